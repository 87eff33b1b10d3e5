"""The search tools `grep` (an RE2 regular expression over text files) and `find` (a glob over paths).

Both walk the workspace without following symlinked folders, skip `.git` and `.mewrk`, and leave out
any symlink that resolves outside the workspace. The patterns come from the model, so they run in RE2,
whose matching time grows linearly with the text: a pattern such as `(a+)+$` cannot hold the process
the way a backtracking engine would. grep matches in a child process (match_pool), which its time limit
and Stop end with the search: RE2's linear time can still be a minute for a long line.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import re2

from .base import Tool, ToolFailure, object_schema
from .files import is_binary
from .match_child import compiled
from .match_pool import Matcher
from .paths import Workspace

SKIPPED_FOLDERS = frozenset({".git", ".mewrk"})
# What RE2 says of syntax that needs backtracking: a backreference (`\1`), lookaround (`(?=`, `(?<!`).
_BACKTRACKING = re2.compile(r"^invalid (escape sequence: \\[1-9]|perl operator: \(\?[=!<P])")
NO_BACKTRACKING = (
    "grep uses RE2 syntax, which matches in linear time and so has no backreferences, lookahead or lookbehind"
)


def compile_pattern(regex: str, shown: str | None = None) -> Any:
    """`regex` compiled by RE2; a ToolFailure naming `shown` (the model's pattern) when RE2 cannot run it."""
    try:
        return compiled(regex)  # the model reads the reason in the result; nothing goes to stderr
    except re2.error as exc:
        raw = exc.args[0] if exc.args else ""
        reason = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
        name = f"`{shown}`" if shown is not None else f"`{regex}`"
        if _BACKTRACKING.search(reason):
            raise ToolFailure(
                f"{name} cannot be searched: {NO_BACKTRACKING} ({reason}); rewrite the pattern without them."
            ) from exc
        what = "glob" if shown is not None else "regular expression"
        raise ToolFailure(f"{name} is not a valid {what}: {reason}.") from exc


def _stopped(cancel: threading.Event | None) -> None:
    if cancel is not None and cancel.is_set():
        raise ToolFailure("The search was stopped before it finished.")


def _walk(ws: Workspace, start: Path, cancel: threading.Event | None) -> Iterator[tuple[Path, bool]]:
    """Every path under `start` (and whether it is a folder), in sorted order, inside the workspace."""
    if not start.is_dir():
        yield start, False
        return
    for folder, dirnames, filenames in os.walk(start):
        _stopped(cancel)
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
    regex = params["pattern"]
    compile_pattern(regex)  # a pattern RE2 cannot run gets its sentence before any child is asked
    start, shown = _start(ws, params)
    with Matcher(regex, lambda: _stopped(cancel)) as matcher:
        for path, is_dir in _walk(ws, start, cancel):
            if is_dir or not path.is_file():  # a pipe or a device is no text to search
                continue
            _stopped(cancel)
            try:
                data = path.read_bytes()
            except OSError:
                continue
            if not is_binary(data):
                matcher.add(ws.display(path), data)
        hits = matcher.hits()
    return "\n".join(hits) if hits else f"No line matches `{regex}` under `{shown}`."


def glob_regex(pattern: str) -> Any:
    """An RE2 regex for a glob over `/`-separated paths: `**` spans folders, `*` and `?` stay inside one.

    Match it with `fullmatch`. A glob with many stars would backtrack for long in Python's `re`.
    """
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
            out.append(re2.escape(char))
        index += 1
    return compile_pattern("".join(out), shown=pattern)


def _find(ws: Workspace, params: dict[str, Any], cancel: threading.Event | None) -> str:
    pattern = params["pattern"]
    matcher = glob_regex(pattern.removeprefix("./"))
    start, shown = _start(ws, params)
    # Like `find -name`, a pattern without a `/` matches a name at any depth.
    by_name = "/" not in pattern
    found: list[str] = []
    for path, is_dir in _walk(ws, start, cancel):
        candidate = path.name if by_name else Path(os.path.relpath(path, start)).as_posix()
        if matcher.fullmatch(candidate):
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
            "Search text files for a regular expression (RE2 syntax: no backreferences or lookaround); "
            "prints `path:line:text` for each match.",
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
