"""The file tools `ls`, `read`, `write` and `edit`, confined to the workspace.

`read` numbers lines like `cat -n` (line number, a tab, the line) so that the model can cite a line or
pass the next `offset`; `offset` is the 1-based first line and `limit` the number of lines.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

from ..cards.models import ToolPreview
from ..cards.words import count
from .base import Tool, ToolFailure, digest, object_schema, unified_diff
from .paths import Workspace

READ_LINES = 2_000
# A NUL byte in the first block is what `grep` and `git` also take as the sign of a binary file.
_SNIFF_BYTES = 8_192

_PATH = {"type": "string", "description": "A path relative to the workspace."}


def is_binary(data: bytes) -> bool:
    """True when the bytes look like a binary file rather than text."""
    return b"\0" in data[:_SNIFF_BYTES]


def read_text(path: Path, shown: str) -> str:
    """The text of an existing file, or a ToolFailure saying why it cannot be read as text."""
    if not path.exists():
        raise ToolFailure(f"`{shown}` does not exist.")
    if path.is_dir():
        raise ToolFailure(f"`{shown}` is a directory; use ls to list it.")
    if not path.is_file():  # a pipe would hold the read until a writer came, a device give without end
        raise ToolFailure(
            f"`{shown}` is not a regular file (a pipe, socket or device); only files can be read."
        )
    data = path.read_bytes()
    if is_binary(data):
        raise ToolFailure(
            f"`{shown}` is a binary file ({count(len(data), 'byte')}); only text files can be read."
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ToolFailure(f"`{shown}` is not UTF-8 text ({exc.reason} at byte {exc.start}).") from exc


def _lines(text: str) -> str:
    return count(len(text.splitlines()), "line")


def _ls(ws: Workspace, params: dict[str, Any]) -> str:
    shown = params["path"]
    path = ws.resolve(shown)
    if not path.exists():
        raise ToolFailure(f"`{shown}` does not exist.")
    if not path.is_dir():
        return f"{ws.display(path)} ({path.stat().st_size:,} bytes)"
    entries = []
    for entry in sorted(path.iterdir(), key=lambda p: p.name):
        # Marks as in `ls -F`: a folder ends in /, a symlink in @.
        mark = "@" if entry.is_symlink() else "/" if entry.is_dir() else ""
        entries.append(entry.name + mark)
    return "\n".join(entries) if entries else f"`{shown}` is empty."


def _read(ws: Workspace, params: dict[str, Any]) -> str:
    shown = params["path"]
    lines = read_text(ws.resolve(shown), shown).splitlines()
    offset = params.get("offset", 1)
    limit = params.get("limit", READ_LINES)
    if not lines:
        return f"`{shown}` is empty."
    if offset > len(lines):
        raise ToolFailure(
            f"offset {offset} is past the end of `{shown}`, which has {count(len(lines), 'line')}."
        )
    window = lines[offset - 1 : offset - 1 + limit]
    body = "\n".join(f"{number:>6}\t{line}" for number, line in enumerate(window, start=offset))
    last = offset + len(window) - 1
    if last < len(lines):
        body += f"\n[lines {offset:,}–{last:,} of {len(lines):,}; read on with offset={last + 1}]"
    return body


def _write(ws: Workspace, params: dict[str, Any]) -> str:
    shown, content = params["path"], params["content"]
    path = ws.writable(shown)
    if path.is_dir():
        raise ToolFailure(f"`{shown}` is a directory; write needs a file path.")
    existed = path.exists()
    if existed and not path.is_file():  # writing a pipe would wait for a reader
        raise ToolFailure(
            f"`{shown}` is not a regular file (a pipe, socket or device); write replaces files only."
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8")
    path.write_bytes(data)
    verb = "Overwrote" if existed else "Created"
    return f"{verb} `{ws.display(path)}`: {count(len(data), 'byte')}, {_lines(content)}."


def _edit(ws: Workspace, params: dict[str, Any]) -> str:
    shown, old, new = params["path"], params["old"], params["new"]
    path = ws.writable(shown)
    text = read_text(path, shown)
    if not old:
        raise ToolFailure("`old` is empty; give the exact text to replace.")
    occurrences = text.count(old)
    if occurrences == 0:
        raise ToolFailure(f"`old` does not occur in `{shown}`; it must match the file's text exactly.")
    if occurrences > 1:
        raise ToolFailure(
            f"`old` occurs {occurrences} times in `{shown}`; include more surrounding text so it occurs once."
        )
    start = text.index(old)
    path.write_bytes(text.replace(old, new, 1).encode("utf-8"))
    line = text.count("\n", 0, start) + 1
    return f"Edited `{ws.display(path)}` at line {line}: replaced {_lines(old)} with {_lines(new)}."


def _current(ws: Workspace, shown: str) -> str | None:
    """A file's text as it is now, for a change's preview; None when there is none (or it is not text)."""
    path = ws.writable(shown)
    if not path.is_file():
        return None
    try:
        return read_text(path, shown)
    except ToolFailure:
        return None


def _after(ws: Workspace, params: dict[str, Any], before: str | None) -> str | None:
    """The file's text once the call ran, or None when the call will be refused (it says why)."""
    if "content" in params:  # write
        return str(params["content"])
    old, new = str(params["old"]), str(params["new"])
    if before is None or not old or before.count(old) != 1:
        return None
    return before.replace(old, new, 1)


def _preview(ws: Workspace, params: dict[str, Any]) -> ToolPreview | None:
    """A write's or an edit's change as a diff of the file, and a digest of the file as it is now."""
    shown = str(params["path"])
    before = _current(ws, shown)
    after = _after(ws, params, before)
    if after is None:
        return None
    old = f"a/{shown}" if before is not None else "(new file)"
    expected = digest(before) if before is not None else None
    return ToolPreview(diff=unified_diff(before or "", after, old, f"b/{shown}"), expected=expected)


def _unchanged(ws: Workspace, params: dict[str, Any], preview: ToolPreview) -> None:
    """Refuse a call whose file changed while it waited for approval: a person's edit is not overwritten."""
    if preview.expected is None:
        return
    shown = str(params["path"])
    now = _current(ws, shown)
    if now is None or digest(now) != preview.expected:
        raise ToolFailure(
            f"`{shown}` changed while your call waited for approval, so nothing was written: read it again, "
            "then make the change to the file as it is now."
        )


def file_tools(ws: Workspace) -> list[Tool]:
    """The `ls`, `read`, `write` and `edit` tools working in `ws`; a write or an edit that waits for
    approval shows its change as a diff, and is refused if the file changed meanwhile."""

    def bind(function: Any) -> Any:
        def handler(params: dict[str, Any], cancel: threading.Event | None) -> str:
            return function(ws, params)

        return handler

    def checked(function: Any) -> Any:
        def prepared(params: dict[str, Any], preview: ToolPreview, cancel: threading.Event | None) -> str:
            _unchanged(ws, params, preview)
            return function(ws, params)

        return prepared

    def previewer(params: dict[str, Any]) -> ToolPreview | None:
        return _preview(ws, params)

    line = {"type": "integer", "minimum": 1}
    return [
        Tool(
            "ls",
            "List a folder of the workspace (folders end in /, symlinks in @).",
            object_schema({"path": _PATH}, ["path"]),
            bind(_ls),
        ),
        Tool(
            "read",
            "Read a text file, numbered like `cat -n`; offset is the first line (1-based), limit the "
            f"number of lines (default {READ_LINES:,}).",
            object_schema({"path": _PATH, "offset": line, "limit": line}, ["path"]),
            bind(_read),
        ),
        Tool(
            "write",
            "Write a file (replacing it if it exists), creating its folders.",
            object_schema({"path": _PATH, "content": {"type": "string"}}, ["path", "content"]),
            bind(_write),
            preview=previewer,
            prepared=checked(_write),
        ),
        Tool(
            "edit",
            "Replace the text `old`, which must occur exactly once in the file, with `new`.",
            object_schema(
                {"path": _PATH, "old": {"type": "string"}, "new": {"type": "string"}}, ["path", "old", "new"]
            ),
            bind(_edit),
            preview=previewer,
            prepared=checked(_edit),
        ),
    ]
