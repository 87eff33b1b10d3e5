"""What the offline models write when a request asks for a summary of the conversation (C6).

The engine's summary request ends with a user text that begins `# Summary request`. The offline model
answers it with a structured summary made from the request alone — the same request, the same summary —
so that compaction works, and can be tested, without a key. A summary found in the conversation (the
`<summary>` a compacted request carries) is folded into the new one, so a second compaction keeps what
the first one said.
"""

from __future__ import annotations

import json
import re

from .base import AttachmentPart, Message, TextPart, ToolResultPart, ToolUsePart

# The first line of the engine's summary request; the offline model recognises the request by it.
SUMMARY_REQUEST = "# Summary request"

GOAL, WORDS, FINDINGS, FILES, ERRORS, PENDING, NEXT = (
    "Goal",
    "The person's words",
    "Decisions and findings",
    "Files and code",
    "Errors and fixes",
    "Pending work",
    "Next step",
)
HEADINGS = (GOAL, WORDS, FINDINGS, FILES, ERRORS, PENDING, NEXT)
# How many items a section keeps, the newest; a long conversation's summary stays short.
KEEP = {WORDS: 12, FINDINGS: 8, FILES: 10, ERRORS: 6}

_SUMMARY = re.compile(r"<summary>\n(.*)\n</summary>", re.S)
_REMINDER = re.compile(r"<system-reminder>.*?</system-reminder>", re.S)


def asks_for_summary(messages: list[Message]) -> bool:
    """Whether the request ends with the engine's summary request."""
    if not messages or messages[-1].role != "user":
        return False
    texts = [p.text for p in messages[-1].parts if isinstance(p, TextPart)]
    return bool(texts) and texts[-1].lstrip().startswith(SUMMARY_REQUEST)


def is_summary(text: str) -> bool:
    """Whether a text is the summary a compacted request carries in place of the earlier conversation."""
    return _SUMMARY.search(text) is not None


def _clip(text: str, limit: int) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 1].rstrip() + "…"


def _sections(summary: str) -> dict[str, list[str]]:
    """The items of each section of an earlier summary, by heading."""
    found: dict[str, list[str]] = {}
    heading = None
    for line in summary.splitlines():
        if line.startswith("## "):
            heading = line[3:].strip()
            found[heading] = []
        elif heading is not None and line.startswith("- ") and line[2:] != "None.":
            found[heading].append(line[2:])
    return found


def write_summary(messages: list[Message]) -> str:
    """A structured summary of the conversation the request carries (its last text, the request, aside)."""
    earlier: dict[str, list[str]] = {}
    said: list[str] = []
    items: dict[str, list[str]] = {FINDINGS: [], FILES: [], ERRORS: []}
    last = "person"  # what came last: the person's words, the model's reply or a tool's result
    for message in messages:
        for part in message.parts:
            if isinstance(part, TextPart) and message.role == "user":
                if part.text.lstrip().startswith(SUMMARY_REQUEST):
                    continue
                if found := _SUMMARY.search(part.text):  # an earlier summary: folded into this one
                    earlier = _sections(found.group(1))
                    continue
                text = _REMINDER.sub("", part.text).strip()
                if text:
                    said.append(text)
                    last = "person"
            elif isinstance(part, AttachmentPart):
                said.append(f"[attached {part.name}]")
            elif isinstance(part, TextPart) and message.role == "assistant" and part.text.strip():
                items[FINDINGS].append(_clip(part.text, 200))
                last = "model"
            elif isinstance(part, ToolUsePart):
                items[FILES].append(_clip(f"{part.name} {json.dumps(part.input, ensure_ascii=False)}", 160))
            elif isinstance(part, ToolResultPart):
                if part.is_error:
                    items[ERRORS].append(_clip(f"{part.tool_use_id}: {part.content}", 200))
                last = "tool"
    goal = earlier.get(GOAL) or ([_clip(said[0], 300)] if said else ["(not stated yet)"])
    words = earlier.get(WORDS, []) + [f"“{_clip(text, 300)}”" for text in said]
    pending = [f"The latest request: “{_clip(said[-1], 300)}”"] if said else earlier.get(PENDING, ["None."])
    step = {
        "person": "Answer the person's latest message.",
        "model": "Wait for the person's next message.",
        "tool": "Go on from the result of the last tool call.",
    }[last]
    body = {
        GOAL: goal,
        WORDS: words,
        PENDING: pending,
        NEXT: [step],
        **{name: earlier.get(name, []) + found for name, found in items.items()},
    }
    lines: list[str] = []
    for heading in HEADINGS:
        kept = body[heading][-KEEP[heading] :] if heading in KEEP else body[heading]
        lines += [f"## {heading}", *(f"- {item}" for item in (kept or ["None."])), ""]
    return "\n".join(lines).strip()
