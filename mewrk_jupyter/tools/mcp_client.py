"""One MCP server's connection, through the official `mcp` SDK: started, listed, called and stopped on the
event loop of the session's MCP servers (tools/mcp.py), its state readable from any thread.

A stdio server gets the SDK's basic environment (PATH, HOME, …) and the variables its file names, never
the kernel's; what it writes to stderr is kept in a file of its own, and its last lines say why it failed.
"""

from __future__ import annotations

import errno
import functools
import importlib
import math
import os
import tempfile
import threading
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

import anyio

from ..config.mcp import McpServerConfig
from ..errors import ConfigError
from .sandbox import Sandbox, SandboxRefused, findable

if TYPE_CHECKING:  # the SDK is imported when a server starts: a session without one never pays for it
    import mcp_types
    from mcp import Client

ServerState = Literal["starting", "running", "failed", "stopped"]
STDERR_LINES = 3  # the last lines of a stdio server's stderr quoted in the reason it failed
MAX_REASON = 400
TAIL_BYTES = 8000  # of a stdio server's stderr, read to find its last lines


class McpConnection:
    """One configured server: its state, the reason it failed, its tools, and calls of them."""

    def __init__(
        self,
        name: str,
        config: McpServerConfig,
        root: Path,
        on_failure: Callable[[McpConnection], None],
        sandbox: Sandbox | None = None,
    ):
        self.name = name
        self.config = config
        self.root = root
        # Where a stdio server's process runs, as the commands of the session's safety level do.
        self.sandbox = sandbox if sandbox is not None else Sandbox(root)
        self.state: ServerState = "starting"
        self.reason: str | None = None
        self.tools: list[mcp_types.Tool] = []
        self.settled = threading.Event()  # set once it runs, or failed to start
        self.ended = threading.Event()  # set once it failed or stopped
        self.started_once = False
        self._on_failure = on_failure
        self._client: Client | None = None
        self._scope: anyio.CancelScope | None = None
        self._stopping = False
        self._closed: anyio.Event | None = None
        self._stderr = tempfile.TemporaryFile("w+", encoding="utf-8", errors="replace")

    # ---- on the loop ---------------------------------------------------------------------------

    async def serve(self) -> None:
        """Start the server, list its tools, and hold the connection until it stops or dies."""
        from mcp import Client

        _load_result_checks()
        self._closed = anyio.Event()
        with anyio.CancelScope() as scope:
            self._scope = scope
            if self._stopping:
                scope.cancel()
            scope.deadline = anyio.current_time() + self.config.startup_timeout
            try:
                async with Client(
                    self._transport(), cache=None, read_timeout_seconds=self.config.timeout, mode="auto"
                ) as client:
                    self.tools = await _all_tools(client)
                    scope.deadline = math.inf
                    self._client = client
                    self.state, self.started_once = "running", True
                    self.settled.set()
                    await self._closed.wait()
                    gone = (
                        "its process exited" if self.config.command is not None else "the connection closed"
                    )
                    self._fail(gone + self._stderr_tail())
            except (ConfigError, SandboxRefused) as exc:
                self._fail(str(exc))
            except Exception as exc:  # whatever the transport or the server raised: said, never raised
                self._fail(self._describe(exc))
        self._client = None
        if scope.cancelled_caught and not self._stopping:
            limit = self.config.startup_timeout
            self._fail(f"it did not start within {limit:g} second{'' if limit == 1 else 's'}")
        if self._stopping and self.state != "failed":
            self.state = "stopped"
        self.settled.set()
        self.ended.set()
        self._stderr.close()

    async def call(self, tool: str, params: dict[str, Any]) -> mcp_types.CallToolResult:
        """Call one of the server's tools; a connection that closed marks the server failed."""
        import mcp_types
        from mcp import MCPError

        client = self._client
        if client is None or self.state != "running":
            raise ConnectionError(self.unavailable())
        try:
            return await client.call_tool(tool, params, read_timeout_seconds=self.config.timeout)
        except MCPError as exc:
            if exc.code == mcp_types.CONNECTION_CLOSED:
                self._fail("the connection closed" + self._stderr_tail())
                raise ConnectionError(self.unavailable()) from None
            raise
        except OSError as exc:  # an HTTP server that went away
            self._fail(self._describe(exc))
            raise ConnectionError(self.unavailable()) from None

    def stop_on_loop(self) -> None:
        """Stop the server (on the loop's thread): the SDK closes its stdin, then ends its process tree."""
        self._stopping = True
        if self._scope is not None:
            self._scope.cancel()

    # ---- anywhere ------------------------------------------------------------------------------

    def unavailable(self) -> str:
        """Why a call of this server's tools cannot run now."""
        why = f": {self.reason}" if self.reason else ""
        return f"The MCP server `{self.name}` is not running{why}, so its tools are unavailable."

    # ---- inside --------------------------------------------------------------------------------

    def _transport(self) -> Any:
        from mcp import StdioServerParameters, stdio_client
        from mcp.client.streamable_http import create_mcp_http_client, streamable_http_client

        config = self.config
        if config.command is not None:
            env = config.resolve_env()
            path = {"PATH": os.environ.get("PATH", ""), **env}
            if not findable(config.command, path):
                raise FileNotFoundError(errno.ENOENT, "not found", config.command)
            argv = [config.command, *config.resolve_args()]
            # The server's own script (an absolute path among its words) is shown to it read-only.
            argv = self.sandbox.command(argv, self.root, path, argv)
            params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=self.root)
            return self._watched(stdio_client(params, errlog=self._stderr))
        http = create_mcp_http_client(headers=config.resolve_headers() or None)
        return self._watched(streamable_http_client(str(config.url), http_client=http), http)

    @asynccontextmanager
    async def _watched(self, transport: Any, http: Any = None) -> AsyncIterator[Any]:
        """The SDK's transport, with its incoming messages passed through so that the end of them (a
        stdio server that exited while idle) is noticed at once rather than at the next call."""
        try:
            async with transport as (incoming, outgoing):
                send, receive = anyio.create_memory_object_stream[Any](0)

                async def relay() -> None:
                    try:
                        async with send:
                            async for item in incoming:
                                await send.send(item)
                    except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                        return
                    if not self._stopping and self._closed is not None:
                        self._closed.set()

                async with anyio.create_task_group() as group:
                    group.start_soon(relay)
                    try:
                        yield receive, outgoing
                    finally:
                        group.cancel_scope.cancel()
        finally:
            if http is not None:
                await http.aclose()

    def _fail(self, reason: str) -> None:
        if self.state == "failed" or self._stopping:
            return
        self.state, self.reason = "failed", reason[:MAX_REASON]
        self._client = None
        self.settled.set()
        self.ended.set()
        if self._closed is not None:
            self._closed.set()  # the holding task ends the connection and its process
        self._on_failure(self)

    def _describe(self, exc: BaseException) -> str:
        import mcp_types
        from mcp import MCPError

        exc = _innermost(exc)
        if isinstance(exc, FileNotFoundError) and self.config.command is not None:
            return f"the command `{self.config.command}` was not found"
        if isinstance(exc, MCPError) and exc.code == mcp_types.CONNECTION_CLOSED:
            return "it exited before answering" + self._stderr_tail()
        if isinstance(exc, OSError) and exc.strerror:
            return f"{exc.strerror}" + self._stderr_tail()
        text = str(exc).strip() or type(exc).__name__
        return f"{text} ({type(exc).__name__})" + self._stderr_tail()

    def _stderr_tail(self) -> str:
        """The last lines the server wrote to stderr, as ` — it said: …`, or ""."""
        if self.config.command is None or self._stderr.closed:
            return ""
        try:
            # Read where the process wrote, by position: the file is the child's stderr, not a stream of ours.
            fd = self._stderr.fileno()
            size = os.fstat(fd).st_size
            tail = os.pread(fd, TAIL_BYTES, max(0, size - TAIL_BYTES)).decode("utf-8", "replace")
        except (OSError, ValueError):
            return ""
        lines = [line.strip() for line in tail.splitlines() if line.strip()]
        said = " / ".join(lines[-STDERR_LINES:])
        return f" — it said: {said}" if said else ""


@functools.cache  # once per process; every connection starts on the one MCP loop thread
def _load_result_checks() -> None:
    """Import, on a thread of its own, what the SDK checks a tool's structured result with (jsonschema:
    a second, its format checkers). The SDK imports it at the first call of a tool that declares an
    output schema, as most servers' typed tools do; here it loads while the server's process starts,
    which this process only waits for."""

    def load() -> None:
        for module in ("jsonschema.validators", "referencing"):
            try:
                importlib.import_module(module)
            except ImportError:  # then the SDK cannot check results either; its call says so
                return

    threading.Thread(target=load, name="mewrk-mcp-checks", daemon=True).start()


def _innermost(exc: BaseException) -> BaseException:
    """The first real exception inside task-group exception groups."""
    # Duck-typed: BaseExceptionGroup is a builtin only from Python 3.11 (anyio brings a backport).
    inner = getattr(exc, "exceptions", None)
    while isinstance(inner, tuple) and inner and isinstance(inner[0], BaseException):
        exc = inner[0]
        inner = getattr(exc, "exceptions", None)
    return exc


async def _all_tools(client: Client) -> list[mcp_types.Tool]:
    """Every tool the server lists, page by page (bounded, so a server that never ends cannot hang us)."""
    tools: list[mcp_types.Tool] = []
    cursor: str | None = None
    for _ in range(100):
        page = await client.list_tools(cursor=cursor)
        tools += page.tools
        cursor = page.next_cursor
        if cursor is None:
            break
    return tools
