"""A language server that speaks LSP over stdio and dies: it publishes no problems for a document it
opens (with no version, as some servers do) and exits with status 3 on the document's first change, or,
given `--die-on-open`, as it opens one. Run by tests/tools/test_lsp_died.py as the lsp tool's server."""

from __future__ import annotations

import json
import sys


def read() -> dict | None:
    length = None
    while True:
        line = sys.stdin.buffer.readline()
        if not line:
            return None
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode().partition(":")
        if name.strip().lower() == "content-length":
            length = int(value)
    return json.loads(sys.stdin.buffer.read(length or 0))


def send(message: dict) -> None:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    sys.stdout.buffer.write(f"Content-Length: {len(body)}\r\n\r\n".encode() + body)
    sys.stdout.buffer.flush()


def main() -> None:
    die_on_open = "--die-on-open" in sys.argv
    while (message := read()) is not None:
        method = message.get("method")
        if method == "initialize":
            send({"id": message["id"], "result": {"capabilities": {"textDocumentSync": 1}}})
        elif method == "textDocument/didOpen":
            if die_on_open:
                sys.exit(3)
            uri = message["params"]["textDocument"]["uri"]
            send({"method": "textDocument/publishDiagnostics", "params": {"uri": uri, "diagnostics": []}})
        elif method == "textDocument/didChange":
            sys.exit(3)
        elif method == "shutdown":
            send({"id": message["id"], "result": None})
        elif method == "exit":
            return


if __name__ == "__main__":
    main()
