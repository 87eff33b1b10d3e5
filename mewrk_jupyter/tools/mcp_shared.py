"""The MCP servers of this process, shared: one connection (one server process) per workspace and server
name, whichever sessions of that workspace use it, on one event loop thread.

A session holds a server while its configuration names it; the server stops when the last session lets
it go (the session changed its configuration, lost its trust or was closed) and at the latest when the
process exits. A changed file ends the old server for every session at once: each takes the new one
at its next look. A server that failed stays failed for every session until its file changes.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ..config.mcp import McpServerConfig
from .mcp_client import McpConnection
from .sandbox import Sandbox

STOP_WAIT = 8.0  # seconds a stop waits for the SDK's own shutdown of a server (stdin, TERM, KILL)

Holder = Callable[[McpConnection], None]  # told when a server it holds fails


@dataclass
class _Held:
    """One running (or failed) server and the sessions holding it, each by the way it is told of a failure."""

    connection: McpConnection
    run: concurrent.futures.Future[None]
    holders: dict[int, Holder] = field(default_factory=dict)


class SharedServers:
    """Every MCP connection of the process, by (workspace, server name)."""

    def __init__(self) -> None:
        self._lock = threading.RLock()  # `hold` starts the loop while it holds the lock
        self._held: dict[tuple[Path, str], _Held] = {}
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    def hold(
        self,
        root: Path,
        name: str,
        config: McpServerConfig,
        holder: int,
        told: Holder,
        sandbox: Sandbox | None = None,
    ) -> McpConnection | None:
        """The server `name` of the workspace `root` as `config` describes it, in `sandbox`, for the
        session `holder`: the running one (perhaps failed), or one started now (an older one of another
        configuration or sandbox is ended first); `told` hears when it fails. None once the process is
        exiting."""
        sandbox = sandbox if sandbox is not None else Sandbox(root)
        with self._lock:
            if self._closed:
                return None
            key = (root, name)
            held = self._held.get(key)
            if held is not None and (
                held.connection.config != config
                or held.connection.sandbox != sandbox
                or held.connection.state == "stopped"
            ):
                self._end(key)
                held = None
            if held is None:
                connection = McpConnection(name, config, root, self._failed, sandbox)
                run = asyncio.run_coroutine_threadsafe(connection.serve(), self.loop())
                held = self._held[key] = _Held(connection, run)
            held.holders[holder] = told
            return held.connection

    def release(self, connection: McpConnection, holder: int) -> concurrent.futures.Future[None] | None:
        """The session `holder` no longer uses `connection`; the last one to let it go stops it (the
        returned future ends when it did)."""
        with self._lock:
            key = (connection.root, connection.name)
            held = self._held.get(key)
            if held is None or held.connection is not connection:
                return None  # ended already: its file changed, or the folder lost its trust
            held.holders.pop(holder, None)
            if held.holders:
                return None
            return self._end(key)

    def end_workspace(self, root: Path) -> list[concurrent.futures.Future[None]]:
        """End every server of the workspace `root`, for every session (its folder is no longer trusted)."""
        with self._lock:
            return [run for key in [k for k in self._held if k[0] == root] if (run := self._end(key))]

    def close(self) -> None:
        """Stop every server and the loop (at exit); nothing is started after."""
        with self._lock:
            self._closed = True
            runs = [run for key in list(self._held) if (run := self._end(key))]
            loop = self._loop
        concurrent.futures.wait(runs, timeout=STOP_WAIT)
        if loop is not None:
            loop.call_soon_threadsafe(loop.stop)

    def loop(self) -> asyncio.AbstractEventLoop:
        """The event loop every connection runs on, started on its thread at first use."""
        with self._lock:
            if self._loop is None:
                loop = asyncio.new_event_loop()
                threading.Thread(target=loop.run_forever, name="mewrk-mcp", daemon=True).start()
                self._loop = loop
            return self._loop

    # ---- inside --------------------------------------------------------------------------------

    def _end(self, key: tuple[Path, str]) -> concurrent.futures.Future[None] | None:
        """Forget the server of `key` and stop it (the lock is held)."""
        held = self._held.pop(key, None)
        if held is None:
            return None
        if self._loop is not None:
            self._loop.call_soon_threadsafe(held.connection.stop_on_loop)
        return held.run

    def _failed(self, connection: McpConnection) -> None:
        with self._lock:
            held = self._held.get((connection.root, connection.name))
            told = list(held.holders.values()) if held is not None and held.connection is connection else []
        for tell in told:
            tell(connection)


SHARED = SharedServers()
atexit.register(SHARED.close)
