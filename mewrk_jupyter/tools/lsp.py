"""The `lsp` tool: diagnostics, definition, references and hover from a real Python language server.

The server (jedi-language-server by default) starts on the first call and lives as long as the
registry; lines and columns are 1-based for the model and converted to LSP's 0-based positions.
"""

from __future__ import annotations

import os
import shutil
import sys
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from ..cards.words import count
from .base import Tool, ToolFailure, object_schema
from .files import read_text
from .lsp_client import REQUEST_TIMEOUT, LspClient
from .paths import Workspace
from .sandbox import Sandbox
from .shell import Confinement, Environment

# The command that starts the server; pass another to ToolRegistry.build(lsp_command=...).
LSP_COMMAND: tuple[str, ...] = ("jedi-language-server",)
NOT_INSTALLED = (
    "No Python language server is installed; install jedi-language-server "
    "(pip install jedi-language-server) to use lsp."
)
ACTIONS = ("diagnostics", "definition", "references", "hover")
_SEVERITIES = {1: "error", 2: "warning", 3: "information", 4: "hint"}


def find_server(command: Sequence[str]) -> list[str] | None:
    """The full argv of the language server command, or None when it is not installed."""
    executable = shutil.which(command[0])
    if executable is None:
        # A virtualenv's scripts are beside its python even when the venv is not on PATH.
        beside = Path(sys.executable).parent / command[0]
        if beside.is_file() and os.access(beside, os.X_OK):
            executable = str(beside)
    return [executable, *command[1:]] if executable else None


def _hover_text(contents: Any) -> str:
    if isinstance(contents, list):
        return "\n\n".join(_hover_text(item) for item in contents)
    if isinstance(contents, dict):
        return str(contents.get("value", ""))
    return str(contents or "")


class LspTool:
    """The `lsp` tool of one registry, owning that registry's language server process."""

    def __init__(
        self,
        ws: Workspace,
        environment: Environment,
        command: Sequence[str] = LSP_COMMAND,
        sandbox: Confinement | None = None,
    ) -> None:
        self.ws = ws
        self.environment = environment
        self.sandbox = sandbox or (lambda: Sandbox(ws.root, protected=tuple(ws.protected)))
        self.command = tuple(command)
        self._client: LspClient | None = None
        # One call at a time: the server is shared and documents are synced per call.
        self._lock = threading.Lock()

    def tool(self) -> Tool:
        """This tool's record for the registry."""
        position = {"type": "integer", "minimum": 1}
        schema = object_schema(
            {
                "action": {"type": "string", "enum": list(ACTIONS)},
                "path": {"type": "string", "description": "A Python file, relative to the workspace."},
                "line": {**position, "description": "1-based line (definition, references, hover)."},
                "column": {**position, "description": "1-based column (definition, references, hover)."},
            },
            ["action", "path"],
        )
        description = (
            "Ask a Python language server: diagnostics (syntax errors) of a file, or the definition, "
            "references or hover text of the name at line/column."
        )
        # Starting the server, opening the file and the request itself may each take a request's time.
        return Tool("lsp", description, schema, self.run, timeout=4 * REQUEST_TIMEOUT)

    def run(self, params: dict[str, Any], cancel: threading.Event | None) -> str:
        """Answer one lsp call."""
        shown, action = params["path"], params["action"]
        path = self.ws.resolve(shown)
        text = read_text(path, shown)
        with self._lock:
            client = self._started()
            uri, version = client.sync(path, text)
            if action == "diagnostics":
                return self._diagnostics(client.diagnostics(uri, version, shown), shown)
            position = self._position(params, text, shown)
            request = {"textDocument": {"uri": uri}, "position": position}
            if action == "hover":
                result = client.request("textDocument/hover", request, cancel=cancel)
                where = f"`{shown}` line {params['line']}, column {params['column']}"
                hover = _hover_text(result.get("contents")) if result else ""
                return hover.strip() or f"No hover information at {where}."
            if action == "references":
                request["context"] = {"includeDeclaration": True}
            result = client.request(f"textDocument/{action}", request, cancel=cancel)
            return self._locations(result, action)

    def close(self) -> None:
        """Stop the language server, if it was started."""
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None

    def _started(self) -> LspClient:
        if self._client is not None and self._client.alive:
            return self._client
        argv = find_server(self.command)
        if argv is None:
            raise ToolFailure(NOT_INSTALLED)
        env = self.environment()
        # Confined as a command is (SandboxRefused where a sandbox is required and missing).
        confined = self.sandbox().command(argv, self.ws.root, env, files=argv[:1])
        self._client = LspClient(confined, self.ws.root, env)
        return self._client

    def _position(self, params: dict[str, Any], text: str, shown: str) -> dict[str, int]:
        if "line" not in params or "column" not in params:
            raise ToolFailure(f"`{params['action']}` needs `line` and `column` (both 1-based).")
        lines = text.splitlines()
        if params["line"] > len(lines):
            raise ToolFailure(
                f"line {params['line']} is past the end of `{shown}` ({count(len(lines), 'line')})."
            )
        # LSP counts characters in UTF-16 units; for the ASCII of most code that is the column.
        return {"line": params["line"] - 1, "character": params["column"] - 1}

    def _diagnostics(self, found: list[dict[str, Any]], shown: str) -> str:
        if not found:
            return f"No problems reported for `{shown}`."
        out = []
        for item in found:
            start = item["range"]["start"]
            severity = _SEVERITIES.get(item.get("severity", 1), "error")
            out.append(f"{shown}:{start['line'] + 1}:{start['character'] + 1}: {severity}: {item['message']}")
        return "\n".join(out)

    def _locations(self, result: Any, action: str) -> str:
        found = result if isinstance(result, list) else [result] if result else []
        if not found:
            return f"The language server found no {action}."
        out = []
        for location in found:
            # A LocationLink names its target differently from a Location.
            uri = location.get("uri") or location.get("targetUri", "")
            span = location.get("range") or location.get("targetSelectionRange", {})
            path = Path(unquote(urlparse(uri).path))
            inside = self.ws.contains(path)
            line, column = span["start"]["line"] + 1, span["start"]["character"] + 1
            # Only workspace files are quoted: the file tools' confinement holds here too.
            quoted = self._source_line(path, line) if inside else ""
            out.append(f"{self.ws.display(path) if inside else path}:{line}:{column}:{quoted}")
        return "\n".join(out)

    def _source_line(self, path: Path, line: int) -> str:
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return ""
        return " " + lines[line - 1].strip() if 0 < line <= len(lines) else ""
