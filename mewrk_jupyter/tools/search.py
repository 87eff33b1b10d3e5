"""The search tools `grep` (a Python regex over text files) and `find` (a glob over paths).

Both walk the workspace without following symlinked folders, skip `.git` and `.mewrk`, and leave out
any symlink that resolves outside the workspace.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .base import Tool, ToolFailure, object_schema
from .files import is_binary
from .paths import Workspace

SKIPPED_FOLDERS = frozenset({".git", ".mewrk"})


def _walk(ws: Workspace, start: Path, cancel: threading.Event | None) -> Iterator[tuple[Path, bool]]:
    """Every path under `start` (and whether it is a folder), in sorted order, inside the workspace."""
    if not start.is_dir():
        yield start, False
        return
    for folder, dirnames, filenames in os.walk(start):
        if cancel is not None and cancel.is_set():
            raise ToolFailure("The search was stopped before it finished.")
        dirnames[:] = sorted(name for name in dirnames if name not in SKIPPED_FOLDERS)
        base = Path(folder)
        entries = [(name, True) for name in dirnames] + [(name, False) for name in sorted(filenames)]
        for name, is_dir in entries:
            path = base / name
            if path.is_symlink() and not ws.contains(path):
                continue
            yield path, is_dir


def _start(ws: Workspace, params: dict[str, Any]) -> tuple[Path, str]:
    shown = params.get("path", ".")
    start = ws.resolve(shown)
    if not start.exists():
        raise ToolFailure(f"`{shown}` does not exist.")
    return start, shown


def _grep(ws: Workspace, params: dict[str, Any], cancel: threading.Event | None) -> str:
    try:
        pattern = re.compile(params["pattern"])
    except re.error as exc:
        raise ToolFailure(f"`{params['pattern']}` is not a valid regular expression: {exc}.") from exc
    start, shown = _start(ws, params)
    hits: list[str] = []
    for path, is_dir in _walk(ws, start, cancel):
        if is_dir:
            continue
        try:
            data = path.read_bytes()
        except OSError:
            continue
        if is_binary(data):
            continue
        text = data.decode("utf-8", errors="replace")
        name = ws.display(path)
        for number, line in enumerate(text.splitlines(), start=1):
            if pattern.search(line):
                hits.append(f"{name}:{number}:{line}")
    return "\n".join(hits) if hits else f"No line matches `{params['pattern']}` under `{shown}`."


def glob_regex(pattern: str) -> re.Pattern[str]:
    """A regex for a glob over `/`-separated paths: `**` spans folders, `*` and `?` stay inside one."""
    out: list[str] = []
    index = 0
    while index < len(pattern):
        char = pattern[index]
        if pattern.startswith("**/", index):
            out.append("(?:.*/)?")
            index += 3
            continue
        if pattern.startswith("**", index):
            out.append(".*")
            index += 2
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and "]" in pattern[index + 2 :]:
            end = pattern.index("]", index + 2)
            body = pattern[index + 1 : end]
            out.append("[^" + body[1:] + "]" if body.startswith("!") else "[" + body + "]")
            index = end
        else:
            out.append(re.escape(char))
        index += 1
    return re.compile("".join(out) + r"\Z")


def _find(ws: Workspace, params: dict[str, Any], cancel: threading.Event | None) -> str:
    pattern = params["pattern"]
    matcher = glob_regex(pattern.removeprefix("./"))
    start, shown = _start(ws, params)
    # Like `find -name`, a pattern without a `/` matches a name at any depth.
    by_name = "/" not in pattern
    found: list[str] = []
    for path, is_dir in _walk(ws, start, cancel):
        candidate = path.name if by_name else Path(os.path.relpath(path, start)).as_posix()
        if matcher.match(candidate):
            found.append(ws.display(path) + ("/" if is_dir else ""))
    return "\n".join(found) if found else f"No path matches `{pattern}` under `{shown}`."


def search_tools(ws: Workspace) -> list[Tool]:
    """The `grep` and `find` tools working in `ws`."""
    path = {
        "type": "string",
        "description": "Folder or file to search, relative to the workspace (default .).",
    }
    return [
        Tool(
            "grep",
            "Search text files for a Python regular expression; prints `path:line:text` for each match.",
            object_schema({"pattern": {"type": "string"}, "path": path}, ["pattern"]),
            lambda params, cancel: _grep(ws, params, cancel),
        ),
        Tool(
            "find",
            "Find files and folders by glob (`**/*.py`; a pattern without / matches names at any depth).",
            object_schema({"pattern": {"type": "string"}, "path": path}, ["pattern"]),
            lambda params, cancel: _find(ws, params, cancel),
        ),
    ]
