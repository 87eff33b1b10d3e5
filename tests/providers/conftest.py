from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .three import KEY_ENV, WIRES, Wire, write_three
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


@pytest.fixture(params=list(WIRES))
def wire(request: pytest.FixtureRequest, workspace: Path, wire_server: WireServer, monkeypatch) -> Wire:
    """Each wire protocol in turn, its vendor written and trusted, pointing at `wire_server`."""
    monkeypatch.setenv(KEY_ENV, "sk-three-test")
    write_three(workspace, wire_server)
    return WIRES[request.param]
