from __future__ import annotations

from collections.abc import Iterator

import pytest

from .wire import WireServer
from .wire.clients import close_clients


@pytest.fixture
def wire_server() -> Iterator[WireServer]:
    """A scripted vendor server on 127.0.0.1 with a free port; stopped after the test."""
    server = WireServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(autouse=True)
def _close_sdk_clients() -> Iterator[None]:
    """SDK clients a test made with `wire.clients` are closed when it ends."""
    yield
    close_clients()
