"""A real MCP server for the tests, written with the official SDK (`MCPServer`).

`python mcp_server.py` serves over stdio; `python mcp_server.py http PORT` over streamable HTTP at
`http://127.0.0.1:PORT/mcp`. With `PID_FILE` in its environment it writes its process id there, so a
test can see that the process ended; with `START_LOG` it adds a line with its process id to that file
each time it starts, so a test can count the processes; the tool `env` reads `ARGV`, the arguments it
was started with.
"""

from __future__ import annotations

import os
import random
import signal
import struct
import sys
import zlib
from pathlib import Path

import anyio
from mcp.server.mcpserver import Image, MCPServer
from mcp_types import ImageContent, TextContent, ToolAnnotations

server = MCPServer("testing")
# `add` and `env` change nothing and say so (`readOnlyHint`): plan mode still offers them.
READ_ONLY = ToolAnnotations(read_only_hint=True)


@server.tool(annotations=READ_ONLY)
def add(a: int, b: int) -> int:
    """Add two integers."""
    return a + b


@server.tool(annotations=READ_ONLY)
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


def _png(width: int, height: int) -> bytes:
    """A PNG of noise (it does not compress: a figure's size), written by hand: no imaging library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    noise = random.Random(width * height)
    rows = b"".join(b"\x00" + noise.randbytes(3 * width) for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", header)
        + chunk(b"IDAT", zlib.compress(rows))
        + chunk(b"IEND", b"")
    )


if os.environ.get("DRAW"):  # only where a test asks: the other tests count this server's tools

    @server.tool()
    def draw(size: int) -> list[TextContent | ImageContent]:
        """Draw a square of noise `size` pixels wide, and an SVG that no vendor takes as an image."""
        svg = Image(data=b"<svg xmlns='http://www.w3.org/2000/svg'/>", format="svg+xml")
        square = Image(data=_png(size, size))
        text = TextContent(type="text", text=f"a square, {size} × {size} pixels")
        return [text, square.to_image_content(), svg.to_image_content()]


if __name__ == "__main__":
    os.environ["ARGV"] = " ".join(sys.argv[1:])  # what it was started with, readable through `env`
    if os.environ.get("PID_FILE"):
        Path(os.environ["PID_FILE"]).write_text(str(os.getpid()))
    if os.environ.get("START_LOG"):
        with open(os.environ["START_LOG"], "a") as log:
            log.write(f"{os.getpid()}\n")
    if sys.argv[1:2] == ["http"]:
        server.run("streamable-http", host="127.0.0.1", port=int(sys.argv[2]))
    else:
        server.run("stdio")
