"""A session's MCP servers (`mcp/<name>.yaml`): started with the official `mcp` SDK on the process's MCP
event loop thread, shared with the other sessions of the workspace (mcp_shared.py), their tools offered
as `mcp__<server>__<tool>`, let go when the session goes; the last session to let a server go stops it,
and the process's exit stops all. A server that fails to start or dies is reported to each session
holding it (`news()`), never raised.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import concurrent.futures
import json
import re
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..cards.models import Attachment
from ..config.mcp import McpServerConfig
from ..providers.base import IMAGE_TYPES
from .base import Tool, ToolResult
from .kernel_capture import MAX_IMAGE_BYTES, MAX_IMAGES
from .mcp_client import McpConnection, ServerState
from .mcp_shared import SHARED, STOP_WAIT, SharedServers
from .sandbox import Sandbox

if TYPE_CHECKING:
    import mcp_types

PREFIX = "mcp__"
MAX_NAME = 64  # what the vendors accept as a tool name
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")
_POLL = 0.05
GONE_WAIT = 2.0  # seconds a call cut off by its connection waits to learn whether the server is gone


def tool_name(server: str, tool: str) -> str:
    """The name the model calls a server's tool by: `mcp__<server>__<tool>`, in the letters vendors allow."""
    return f"{PREFIX}{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"


def server_prefix(name: str) -> str | None:
    """`mcp__<server>` for the name of an MCP tool (a safety level may list it for all the server's
    tools), or None for any other tool."""
    if not name.startswith(PREFIX):
        return None
    server, sep, _ = name[len(PREFIX) :].partition("__")
    return f"{PREFIX}{server}" if sep and server else None


@dataclass(frozen=True)
class ServerStatus:
    """What `%mewrk mcp` shows of one server."""

    name: str
    transport: str
    where: str
    state: ServerState
    tools: tuple[str, ...] = ()
    reason: str | None = None


class McpServers:
    """The MCP servers one session uses: held in the process's shared pool while its configuration
    names them."""

    def __init__(self, root: Path, shared: SharedServers = SHARED) -> None:
        self.root = root
        self._shared = shared
        self._lock = threading.RLock()  # a failure may be told while this session syncs
        self._servers: dict[str, McpConnection] = {}
        self._news: list[McpConnection] = []
        self._made: dict[int, tuple[McpConnection, list[Tool]]] = {}  # each running server's tools, made once
        self._closed = False

    def sync(
        self,
        configs: Mapping[str, McpServerConfig],
        wait: bool = True,
        cancel: threading.Event | None = None,
        sandbox: Sandbox | None = None,
    ) -> None:
        """Use exactly the servers of `configs`, each stdio one in `sandbox`: hold new or changed ones
        (started if no other session of the workspace runs them; waited for, up to each one's
        startup_timeout, when `wait`), let the others go. A failed server is started again only once its
        file or sandbox changes; `cancel` (the turn's Stop) ends the wait, not the start."""
        sandbox = sandbox if sandbox is not None else Sandbox(self.root)
        with self._lock:
            if self._closed:
                return
            gone = [
                n
                for n, c in self._servers.items()
                if configs.get(n) != c.config or c.sandbox != sandbox or c.state == "stopped"
            ]
            for name in gone:
                self._let_go(name)
            for name, config in sorted(configs.items()):
                if name not in self._servers:
                    connection = self._shared.hold(self.root, name, config, id(self), self._failed, sandbox)
                    if connection is None:  # the process is exiting
                        continue
                    self._servers[name] = connection
                    if connection.state == "failed":  # failed for another session already: told here too
                        self._failed(connection)
            # Started now, or earlier without waiting (while the person wrote), or by another session.
            starting = [c for c in self._servers.values() if not c.settled.is_set()]
        if not wait:
            return
        # Each connection's own deadline ends a slow start; this only bounds the wait for them.
        deadline = time.monotonic() + max((c.config.startup_timeout for c in starting), default=0) + STOP_WAIT
        while not all(c.settled.is_set() for c in starting) and time.monotonic() < deadline:
            if cancel is not None and cancel.is_set():
                return
            time.sleep(_POLL)

    def end_all(self) -> None:
        """End the workspace's servers for every session of this process (its folder lost its trust)."""
        with self._lock:
            for name in list(self._servers):
                self._made.pop(id(self._servers.pop(name)), None)
        self._shared.end_workspace(self.root)

    def statuses(self) -> list[ServerStatus]:
        """Each server's state, by name."""
        with self._lock:
            servers = sorted(self._servers.items())
        return [
            ServerStatus(
                name,
                c.config.transport,
                c.config.where,
                c.state,
                tuple(tool_name(name, t.name) for t in c.tools) if c.state == "running" else (),
                c.reason,
            )
            for name, c in servers
        ]

    def news(self) -> list[str]:
        """One sentence for each server that failed since the last call (then forgotten)."""
        with self._lock:
            failed, self._news = self._news, []
        return [_failure_sentence(c) for c in failed]

    def tools(self) -> list[Tool]:
        """The tools of the running servers, as the registry runs them."""
        found: list[Tool] = []
        with self._lock:
            for server, connection in sorted(self._servers.items()):
                if connection.state != "running":
                    continue
                made = self._made.get(id(connection))
                if made is None or made[0] is not connection:
                    tools = [
                        self._tool(connection, name, listed)
                        for listed in connection.tools
                        # A name past the limit would make a vendor refuse the whole request.
                        if len(name := tool_name(server, listed.name)) <= MAX_NAME
                    ]
                    made = self._made[id(connection)] = (connection, tools)
                found += made[1]
        return found

    def close(self) -> None:
        """Let every server go (the last session to hold one stops it, waiting for the SDK to end its
        process tree); nothing is held after."""
        with self._lock:
            self._closed = True
            stopping = [run for name in list(self._servers) if (run := self._let_go(name))]
        concurrent.futures.wait(stopping, timeout=STOP_WAIT)

    # ---- inside --------------------------------------------------------------------------------

    def _let_go(self, name: str) -> concurrent.futures.Future[None] | None:
        connection = self._servers.pop(name)
        self._made.pop(id(connection), None)
        return self._shared.release(connection, id(self))

    def _failed(self, connection: McpConnection) -> None:
        with self._lock:
            if self._servers.get(connection.name) is connection and connection not in self._news:
                self._news.append(connection)

    def _tool(self, connection: McpConnection, name: str, listed: mcp_types.Tool) -> Tool:
        loop = self._shared.loop()
        schema: dict[str, Any] = dict(listed.input_schema or {"type": "object", "properties": {}})
        schema.setdefault("type", "object")
        # An MCP schema rarely says so: its servers take what the schema lists and ignore nothing.
        schema.setdefault("additionalProperties", False)
        description = (listed.description or listed.title or listed.name).strip()

        def handler(params: dict[str, Any], cancel: threading.Event | None) -> ToolResult:
            future = asyncio.run_coroutine_threadsafe(connection.call(listed.name, params), loop)
            # Waited for by polling, not by result(timeout): a TimeoutError the call itself raised (the
            # SDK's read timeout) must not read as "not done yet".
            while not future.done():
                if cancel is not None and cancel.is_set():
                    future.cancel()  # the SDK tells the server the request was cancelled
                    return ToolResult(text=f"`{name}` was stopped before it finished.", is_error=True)
                concurrent.futures.wait([future], _POLL)
            try:
                return result_of(future.result())
            except ConnectionError as exc:
                return ToolResult(text=str(exc), is_error=True)
            except concurrent.futures.CancelledError:
                # Not by Stop: the connection failed under the call (an HTTP server gone away).
                connection.ended.wait(GONE_WAIT)
                return ToolResult(text=_ended(connection, name), is_error=True)
            except Exception as exc:  # the server's error answer, or the SDK's read timeout
                text = str(exc).strip() or type(exc).__name__
                return ToolResult(
                    text=f"The call to the MCP server `{connection.name}` failed: {text}", is_error=True
                )

        return Tool(
            name,
            f"{description}\n\n(From the MCP server `{connection.name}`.)",
            schema,
            handler,
            timeout=connection.config.timeout,
            read_only=bool(listed.annotations and listed.annotations.read_only_hint),
            declared=True,
        )


def result_of(result: mcp_types.CallToolResult) -> ToolResult:
    """A tool result from an MCP call's content blocks: text kept, images kept as the card's images (each
    noted in the text), anything else described."""
    import mcp_types

    parts: list[str] = []
    images: list[Attachment] = []
    for block in result.content:
        if isinstance(block, mcp_types.TextContent):
            parts.append(block.text)
        elif isinstance(block, mcp_types.ImageContent) and (image := _image(block, len(images) + 1)):
            # Kept on the card, and sent to a model with vision input; one without reads this note.
            images.append(image)
            parts.append(
                f"[image: {image.name}, {block.mime_type}, {image.size} bytes; shown to the person on the card]"
            )
        elif isinstance(block, mcp_types.ImageContent | mcp_types.AudioContent):
            kind = "image" if isinstance(block, mcp_types.ImageContent) else "audio"
            parts.append(f"[{kind} {block.mime_type}, {len(block.data) * 3 // 4} bytes, not shown]")
        elif isinstance(block, mcp_types.ResourceLink):
            parts.append(f"[resource {block.uri}]")
        elif isinstance(block, mcp_types.EmbeddedResource):
            inner = block.resource
            text = getattr(inner, "text", None)
            parts.append(text if isinstance(text, str) else f"[resource {inner.uri}, binary, not shown]")
    if not parts and result.structured_content is not None:
        parts.append(json.dumps(result.structured_content, ensure_ascii=False))
    text = "\n".join(parts) if parts else "(no output)"
    return ToolResult(text=text, is_error=bool(result.is_error), images=tuple(images))


def _image(block: Any, number: int) -> Attachment | None:
    """An MCP image block as a card's image: a type every protocol takes, in valid base64, at most
    MAX_IMAGES of them; None otherwise (the result then describes it instead)."""
    if block.mime_type not in IMAGE_TYPES or number > MAX_IMAGES:
        return None
    try:
        data = base64.b64decode(block.data, validate=True)
    except (binascii.Error, ValueError):
        return None
    if not data or len(data) > MAX_IMAGE_BYTES:
        return None
    extension = block.mime_type.split("/", 1)[1].replace("jpeg", "jpg")
    encoded = base64.b64encode(data).decode("ascii")
    return Attachment(
        name=f"image-{number}.{extension}", media_type=block.mime_type, data=encoded, size=len(data)
    )


def _failure_sentence(connection: McpConnection) -> str:
    what = "stopped" if connection.started_once else "failed to start"
    return (
        f"The MCP server `{connection.name}` {what}: {connection.reason}. "
        f"Its tools are not available in this conversation."
    )


def _ended(connection: McpConnection, name: str) -> str:
    if connection.state == "failed":
        return connection.unavailable()
    return f"`{name}` ended without a result: the MCP server `{connection.name}` closed the call."
