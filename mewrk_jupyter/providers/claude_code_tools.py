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
    "under it (or relative to it); Bash runs there. The working directory the environment names is an "
    "empty stand-in for that folder: a path under it means the same path under {root}."
)
# What of the tools' parameters the project's tools do not take, said before the model wastes a call on it.
NOT_TAKEN = {
    "Read": "pages",
    "Edit": "replace_all (give old_string with enough context to occur once)",
    "Bash": "run_in_background (unless the agent may start background work), dangerouslyDisableSandbox",
    "Grep": (
        "glob, type, output_mode other than content (it prints path:line:text for each match), "
        "-A/-B/-C/context, head_limit, offset, multiline, -o"
    ),
}


def system_line(names: list[str], root: str) -> str:
    """What the model is told of the folder its file tools work in (the CLI's own system lines are not ours)
    and of the parameters not taken."""
    line = SYSTEM_LINE.format(names=", ".join(names), root=root)
    limits = [f"{name}: {NOT_TAKEN[name]}" for name in names if name in NOT_TAKEN]
    if limits:
        line += " Parameters not taken here — " + "; ".join(limits) + "."
    return line


def _under(path: str, folder: str) -> str | None:
    """`path` relative to `folder` when it lies under it (lexically), else None."""
    if path == folder:
        return "."
    if path.startswith(folder.rstrip("/") + "/"):
        return os.path.relpath(path, folder)
    return None


def _relative(raw: Any, root: str, *stand_ins: str) -> Any:
    """A path under `root`, or under a stand-in for it (the CLI's own working directory), as the project's
    relative path; any other value as it was."""
    if not isinstance(raw, str) or not os.path.isabs(raw):
        return raw
    normal = os.path.normpath(raw)
    for folder in (root, *stand_ins):
        if (inside := _under(normal, folder)) is not None:
            return inside
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


def _with_relative_path(out: dict[str, Any], root: str, stand_ins: tuple[str, ...]) -> dict[str, Any]:
    """`out` with its `path`, where it has one, as the project's relative path."""
    if "path" in out:
        out["path"] = _relative(out["path"], root, *stand_ins)
    return out


def _read(params: dict[str, Any], root: str, *stand_ins: str) -> dict[str, Any]:
    out = _with_relative_path(_renamed(params, {"file_path": "path"}), root, stand_ins)
    if out.get("offset") == 0:  # Claude Code's 0 is the first line, the project's 1
        del out["offset"]
    out.pop("allow_large", None)  # the project's read has its own limit, and its result says where it cut
    return out


def _bash(params: dict[str, Any], root: str, *stand_ins: str) -> dict[str, Any]:
    out = _drop_false(
        _renamed(params, {"run_in_background": "background"}), "background", "dangerouslyDisableSandbox"
    )
    out.pop("description", None)  # what the command does, in words for the person; the card shows the command
    timeout = out.get("timeout")
    if isinstance(timeout, int | float) and not isinstance(timeout, bool):
        if timeout <= 0:  # no limit of its own: the project's default
            del out["timeout"]
        else:  # milliseconds; the project's bash takes seconds, at least one
            out["timeout"] = max(1, timeout / 1000)
    return out


def _grep(params: dict[str, Any], root: str, *stand_ins: str) -> dict[str, Any]:
    out = _drop_false(dict(params), "-i", "-o", "multiline")
    if out.get("output_mode") == "content":  # what the project's grep prints
        del out["output_mode"]
    # The project's grep numbers its lines: a call without numbers gets them, more than it asked for.
    out.pop("-n", None)
    if out.pop("-i", None) is True and isinstance(out.get("pattern"), str):
        out["pattern"] = "(?i)" + out["pattern"]
    return _with_relative_path(out, root, stand_ins)


def _glob(params: dict[str, Any], root: str, *stand_ins: str) -> dict[str, Any]:
    out = _with_relative_path(dict(params), root, stand_ins)
    if out.get("path", ".") == ".":
        # An absolute pattern under the workspace: the project's find matches paths relative to `path`.
        out["pattern"] = _relative(out.get("pattern"), root, *stand_ins)
    return out


Mapper = Callable[..., dict[str, Any]]


def _with_path(names: dict[str, str], *false: str) -> Mapper:
    def mapped(params: dict[str, Any], root: str, *stand_ins: str) -> dict[str, Any]:
        return _with_relative_path(_drop_false(_renamed(params, names), *false), root, stand_ins)

    return mapped


_TO_PROJECT: dict[str, Mapper] = {
    "Read": _read,
    "Write": _with_path({"file_path": "path"}),
    "Edit": _with_path({"file_path": "path", "old_string": "old", "new_string": "new"}, "replace_all"),
    "Bash": _bash,
    "Grep": _grep,
    "Glob": _glob,
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


def to_project(name: str, params: dict[str, Any], root: str, *stand_ins: str) -> tuple[str, dict[str, Any]]:
    """A call of Claude Code's tool `name` as a call of the project's tool that does its work; a path under
    `root` or a `stand_ins` folder (the CLI's own working directory) is the project's relative path."""
    return PROJECT_TOOL[name], _TO_PROJECT[name](params, root, *stand_ins)


def to_claude(project: str, params: dict[str, Any], root: str) -> dict[str, Any]:
    """A call of the project's tool `project` (as the timeline holds it, perhaps edited) in Claude Code's
    words: what the model sees of its earlier calls."""
    names = _TO_CLAUDE[project]
    out = _renamed(params, names)
    key = names.get("path", "path")
    if key in out:
        out[key] = _absolute(out[key], root)
    if (
        project == "bash"
        and isinstance(out.get("timeout"), int | float)
        and not isinstance(out["timeout"], bool)
    ):
        out["timeout"] = round(out["timeout"] * 1000)
    return out
