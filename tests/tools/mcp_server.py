"""A real MCP server for the tests, written with the official SDK (`MCPServer`).

`python mcp_server.py` serves over stdio; `python mcp_server.py http PORT` over streamable HTTP at
`http://127.0.0.1:PORT/mcp`. With `PID_FILE` in its environment it writes its process id there, so a
test can see that the process ended; the tool `env` reads `ARGV`, the arguments it was started with.
"""

from __future__ import annotations

import os
import signal
import sys
from pathlib import Path

import anyio
from mcp.server.mcpserver import MCPServer

server = MCPServer("testing")


@server.tool()
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool()
def env(name: str) -> str:
    """The value of one of the server's environment variables, or `<unset>`."""
    return os.environ.get(name, "<unset>")


@server.tool()
async def sleep(seconds: float) -> str:
    """Wait, then say so."""
    await anyio.sleep(seconds)
    return f"slept {seconds:g} s"


@server.tool()
def crash() -> str:
    """End the server's process at once, without answering."""
    os.kill(os.getpid(), signal.SIGKILL)
    return "not reached"


if __name__ == "__main__":
    os.environ["ARGV"] = " ".join(sys.argv[1:])  # what it was started with, readable through `env`
    if os.environ.get("PID_FILE"):
        Path(os.environ["PID_FILE"]).write_text(str(os.getpid()))
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
