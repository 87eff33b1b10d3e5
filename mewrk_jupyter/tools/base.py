"""What every tool shares: the result a tool returns, the Tool record, and the output limit."""

from __future__ import annotations

import difflib
import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from ..cards.models import Attachment, CellChange, ToolPreview
from ..cards.words import count
from ..providers.base import ToolSpec

# Beyond this a result costs more context than it is worth; the model is told what it did not see.
MAX_CHARS = 30_000
MAX_LINES = 2_000
# Seconds a call of a tool that runs inside the process (ls, read, grep …) may take before it is ended.
TOOL_TIMEOUT = 60.0


class ToolResult(BaseModel):
    """What a tool call returns to the model: its text, whether it failed, whether the text was cut."""

    model_config = ConfigDict(frozen=True)

    text: str
    is_error: bool = False
    truncated: bool = False
    # Images the call made (`python`'s figures, an MCP tool's images): kept on its card and in an exported
    # notebook, and sent with the result to a model with vision input.
    images: tuple[Attachment, ...] = ()
    # A notebook cell the call changed (notebook_edit): its card keeps it for Revert.
    change: CellChange | None = None


class ToolFailure(Exception):
    """Raised inside a tool with one sentence for the model; the registry turns it into an error result."""


Handler = Callable[[dict[str, Any], threading.Event | None], ToolResult | str]
# What a call would change, read before it runs (while it waits for approval); None: nothing to show.
Previewer = Callable[[dict[str, Any]], ToolPreview | None]
# A handler that is given the preview read before (what the change expects to find).
PreparedHandler = Callable[[dict[str, Any], ToolPreview, threading.Event | None], ToolResult | str]
# Hides the known secret values in a text; a tool that cuts its output applies it before cutting, so that
# a cut never shows the first characters of a secret the whole of which would have been hidden.
Redact = Callable[[str], str]


def no_redaction(text: str) -> str:
    """The text as it is (a registry built without a session's secrets)."""
    return text


@dataclass(frozen=True)
class Tool:
    """A tool the model may call: its name, description, JSON schema and the function that runs it."""

    name: str
    description: str
    input_schema: dict[str, Any]
    handler: Handler
    # The longest a call may run, in seconds: the registry ends a call that overruns it.
    timeout: float = TOOL_TIMEOUT
    # When set, a call's own `timeout` parameter chooses its limit, up to this many seconds (bash).
    max_timeout: float | None = None
    # It changes nothing, by its own account (an MCP server's `readOnlyHint`, a tool file's `read_only`).
    read_only: bool = False
    # What it does is declared outside the engine (an MCP server's tool, a tool file's command): plan mode
    # offers it only when it says it is read-only.
    declared: bool = False
    # Reads what a call would change before it runs, and runs it against what was read (notebook_edit).
    preview: Previewer | None = None
    prepared: PreparedHandler | None = None
    # Undoes what a call of it changed (notebook_edit's Revert); ToolFailure with a sentence when it cannot.
    revert: Callable[[CellChange], str] | None = None

    def time_limit(self, params: dict[str, Any]) -> float:
        """Seconds this call may run: its own `timeout` parameter where the tool takes one, else the tool's."""
        asked = params.get("timeout")
        if self.max_timeout is not None and isinstance(asked, int | float) and not isinstance(asked, bool):
            return min(float(asked), self.max_timeout)
        return self.timeout

    def spec(self) -> ToolSpec:
        """The provider-neutral description of this tool that goes into a model request."""
        return ToolSpec(name=self.name, description=self.description, input_schema=self.input_schema)


def asked_timeout(params: dict[str, Any], default: float, most: float) -> float:
    """The seconds a call's own `timeout` asks for (a positive number), at most `most`; else `default`."""
    asked = params.get("timeout")
    if isinstance(asked, int | float) and not isinstance(asked, bool) and asked > 0:
        return min(float(asked), most)
    return default


# Lines of a change's diff an approval shows; the rest is cut with a note.
DIFF_LINES = 400


def digest(text: str) -> str:
    """A text's sha256, to tell later whether it changed without keeping it (it may hold a secret)."""
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def unified_diff(before: str, after: str, old: str, new: str) -> str:
    """The change from `before` to `after` as a unified diff, as an approval shows it (cut at DIFF_LINES)."""
    lines = [
        line if line.endswith("\n") else line + "\n"
        for line in difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), old, new, lineterm=""
        )
    ]
    if len(lines) > DIFF_LINES:
        lines = [*lines[:DIFF_LINES], f"[… {len(lines) - DIFF_LINES} more lines of the diff]\n"]
    return "".join(lines).rstrip("\n")


def object_schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    """A JSON schema for an object with these properties that refuses unknown keys."""
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


def truncate(text: str, total_chars: int | None = None, total_lines: int | None = None) -> ToolResult:
    """`text` as a result, cut to the output limit with a note saying how much was left out.

    `total_chars` / `total_lines` give the real size when the caller already dropped output it never
    kept (a command that printed gigabytes); the note then reports those.
    """
    lines = text.splitlines(keepends=True)
    known_total = total_chars is not None or total_lines is not None
    if not known_total and len(text) <= MAX_CHARS and len(lines) <= MAX_LINES:
        return ToolResult(text=text)
    shown = "".join(lines[:MAX_LINES])[:MAX_CHARS]
    # End on a whole line unless a single line is longer than the whole limit.
    if "\n" in shown and not shown.endswith("\n"):
        shown = shown[: shown.rindex("\n") + 1]
    chars = total_chars if total_chars is not None else len(text)
    line_count = total_lines if total_lines is not None else len(lines)
    shown_lines = len(shown.splitlines())
    note = (
        f"[output truncated: {count(chars, 'character')}, {count(line_count, 'line')}; "
        f"showing the first {count(len(shown), 'character')} ({count(shown_lines, 'line')})]"
    )
    separator = "" if not shown or shown.endswith("\n") else "\n"
    return ToolResult(text=f"{shown}{separator}{note}", truncated=True)
