"""`mcp`: the workspace's MCP servers and their state in this session."""

from __future__ import annotations

from ..cards.inert import inert_inline
from ..cards.words import count
from .base import Call, Result

HOW = (
    "an MCP server is a file `.mewrk/mcp/<name>.yaml` with `command:` and `args:` (a program speaking MCP "
    "over stdio) or `url:` (a streamable HTTP address)"
)


def mcp(call: Call) -> Result:
    """`mcp`: each server of `mcp/`, running (with its tools) or failed (with the reason)."""
    servers = call.current.mcp_servers()
    if not servers:
        return Result(f"There are no MCP servers in this session: {HOW}.")
    rows, said = [], []
    for server in servers:
        if server.state == "running":
            state = f"running, {count(len(server.tools), 'tool')}"
            tools = ", ".join(f"`{name}`" for name in server.tools)
        else:
            state = f"{server.state}: {server.reason}" if server.reason else server.state
            tools = ""
        said.append(f"{server.name} ({state})")
        rows.append(
            f"| `{server.name}` | {server.transport} `{inert_inline(server.where)}` | {inert_inline(state)} | {tools} |"
        )
    lines = ["| server | how | state | tools |", "|---|---|---|---|", *rows]
    return Result("MCP servers: " + "; ".join(said) + ".", markdown="\n".join(lines))
