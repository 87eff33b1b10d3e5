"""Claude Code's built-in tools, as the project's own tools run them (protocol claude-agent, X7).

An agent file may list a tool by Claude Code's name (`Read`, `Bash`…). On protocol claude-agent the model
is then offered the CLI's own definition of it, under that name, and the CLI is stopped before it does
anything with a call (a PreToolUse hook): the call comes back as the project's tool (`read`, `bash`…) with
its parameters in the project's words, and the engine runs it like any other — safety level, rules, hooks,
approval card, sandbox, the workspace's bounds. The next request carries the call back in Claude Code's
words. Every other protocol offers the project's tool as it is.

Paths: Claude Code's file tools take absolute paths; the model is told the workspace's folder (the
system line below) and a path under it becomes the project's relative path. A path elsewhere is kept as
the model wrote it, and the project's tool refuses it with its own sentence. A parameter the project's tool
has no equivalent for is kept under Claude Code's name, so the call's result names it as not taken
(`Invalid parameters for ...`) and the model asks again without it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

# Claude Code's tool -> the project's tool that does its work.
PROJECT_TOOL = {
    "Read": "read",
    "Write": "write",
    "Edit": "edit",
    "Bash": "bash",
    "Grep": "grep",
    "Glob": "find",
}

# Claude Code's other tools, and why an agent file that lists one is refused.
NOT_OFFERED = {
    "WebFetch": "it fetches pages from inside the CLI, outside the safety level's sandbox and approvals",
    "WebSearch": "it searches from inside the CLI, outside the safety level's sandbox and approvals",
    "Agent": "it starts Claude Code's own subagents inside the CLI; the project's subagents are its agent files",
    "Task": "it starts Claude Code's own subagents inside the CLI; the project's subagents are its agent files",
    "NotebookEdit": "it edits a notebook file inside the CLI; the project's notebook tools change the open notebook",
    "MultiEdit": "this version of Claude Code has no MultiEdit; list Edit",
    "LS": "this version of Claude Code has no LS; list Glob, or the project's ls",
    "TodoWrite": "it keeps a list inside the CLI that no card shows",
}

SYSTEM_LINE = (
    "Claude Code's tools here ({names}) work in the workspace folder {root}: give their paths absolute "
    "under it (or relative to it); Bash runs there."
)


def system_line(names: list[str], root: str) -> str:
    """What the model is told of the folder its file tools work in (the CLI's own system lines are not ours)."""
    return SYSTEM_LINE.format(names=", ".join(names), root=root)


def _relative(raw: Any, root: str) -> Any:
    """A path under `root` as the project's relative path; any other value as it was."""
    if not isinstance(raw, str) or not os.path.isabs(raw):
        return raw
    normal = os.path.normpath(raw)
    if normal == root:
        return "."
    if normal.startswith(root.rstrip("/") + "/"):
        return os.path.relpath(normal, root)
    return raw


def _absolute(raw: Any, root: str) -> Any:
    """A project path as Claude Code's absolute one; a value that is not a relative path as it was."""
    if not isinstance(raw, str) or os.path.isabs(raw) or not raw.strip():
        return raw
    return root if raw in (".", "./") else os.path.join(root, raw.removeprefix("./"))


def _renamed(params: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    return {names.get(key, key): value for key, value in params.items()}


def _drop_false(params: dict[str, Any], *keys: str) -> dict[str, Any]:
    """`keys` left out where they say what the project's tool does anyway (false, or absent)."""
    return {k: v for k, v in params.items() if not (k in keys and v is False)}


def _read(params: dict[str, Any], root: str) -> dict[str, Any]:
    out = _renamed(params, {"file_path": "path"})
    out["path"] = _relative(out.get("path"), root)
    if out.get("offset") == 0:  # Claude Code's 0 is the first line, the project's 1
        del out["offset"]
    out.pop("allow_large", None)  # the project's read has its own limit, and its result says where it cut
    return out


def _bash(params: dict[str, Any], root: str) -> dict[str, Any]:
    out = _drop_false(
        _renamed(params, {"run_in_background": "background"}), "background", "dangerouslyDisableSandbox"
    )
    out.pop("description", None)  # what the command does, in words for the person; the card shows the command
    timeout = out.get("timeout")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool):
        out["timeout"] = max(1, timeout / 1000)  # milliseconds; the project's bash takes seconds
    return out


def _grep(params: dict[str, Any], root: str) -> dict[str, Any]:
    out = _drop_false(dict(params), "-i", "-o", "multiline")
    if out.get("output_mode") == "content":  # what the project's grep prints
        del out["output_mode"]
    if out.get("-n") is True:  # it numbers the lines
        del out["-n"]
    if out.pop("-i", None) is True and isinstance(out.get("pattern"), str):
        out["pattern"] = "(?i)" + out["pattern"]
    out["path"] = _relative(out.get("path"), root)
    return {k: v for k, v in out.items() if not (k == "path" and v is None)}


def _with_path(names: dict[str, str], *false: str) -> Callable[[dict[str, Any], str], dict[str, Any]]:
    def mapped(params: dict[str, Any], root: str) -> dict[str, Any]:
        out = _drop_false(_renamed(params, names), *false)
        if "path" in out:
            out["path"] = _relative(out["path"], root)
        return out

    return mapped


_TO_PROJECT: dict[str, Callable[[dict[str, Any], str], dict[str, Any]]] = {
    "Read": _read,
    "Write": _with_path({"file_path": "path"}),
    "Edit": _with_path({"file_path": "path", "old_string": "old", "new_string": "new"}, "replace_all"),
    "Bash": _bash,
    "Grep": _grep,
    "Glob": _with_path({}),
}

# The project's parameter -> Claude Code's, for the calls a request carries back.
_TO_CLAUDE = {
    "read": {"path": "file_path"},
    "write": {"path": "file_path"},
    "edit": {"path": "file_path", "old": "old_string", "new": "new_string"},
    "bash": {"background": "run_in_background"},
    "grep": {},
    "find": {},
}
_FILE_PATH = {"read", "write", "edit"}


def to_project(name: str, params: dict[str, Any], root: str) -> tuple[str, dict[str, Any]]:
    """A call of Claude Code's tool `name` as a call of the project's tool that does its work."""
    return PROJECT_TOOL[name], _TO_PROJECT[name](params, root)


def to_claude(project: str, params: dict[str, Any], root: str) -> dict[str, Any]:
    """A call of the project's tool `project` (as the timeline holds it, perhaps edited) in Claude Code's
    words: what the model sees of its earlier calls."""
    out = _renamed(params, _TO_CLAUDE[project])
    key = "file_path" if project in _FILE_PATH else "path"
    if key in out:
        out[key] = _absolute(out[key], root)
    if (
        project == "bash"
        and isinstance(out.get("timeout"), int | float)
        and not isinstance(out["timeout"], bool)
    ):
        out["timeout"] = round(out["timeout"] * 1000)
    return out
