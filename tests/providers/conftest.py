from __future__ import annotations

from collections.abc import Iterator

import pytest

from .wire_server import WireServer


@pytest.fixture
def wire_server() -> Iterator[WireServer]:
    """A scripted vendor server on 127.0.0.1 with a free port; stopped after the test."""
    server = WireServer().start()
    try:
        yield server
    finally:
        server.stop()
