"""A request of the history in a few readable lines (T17): the one summary the magic, the repr and the
widget's History panel all show.

Pure functions over a history entry and the previous request of the same session. The request is read
from the body as it was sent (providers/sent.py reads it in neutral words), so the summary says what the
vendor received; the response is read as the neutral record (providers/record.py), of either shape.
"""

from __future__ import annotations

import difflib
import json
from datetime import datetime
from typing import Any, Protocol

from pydantic import BaseModel

from ..cards.inert import code_block, inert_inline, inert_markdown
from ..cards.words import count
from ..providers.base import ThinkingPart, ToolUsePart
from ..providers.offline import estimate_tokens
from ..providers.record import ENDINGS, ModelResponse, SentItem, SentRequest, read_response
from ..providers.sent import read_request
from .assembly.context import format_tokens

# How the title of a request that compacted the conversation says which kind it was.
COMPACTION_TITLES = {
    "summary": " · compaction summary",
    "handoff": " · handoff documents",
    "native": " · native compaction",
}


class HistoryEntry(Protocol):
    """What a summary reads of a history entry (views.HistoryEntry is one)."""

    id: int
    number: int
    model: str
    protocol: str
    started_at: float
    ended_at: float | None
    request: dict[str, Any]
    response: dict[str, Any] | None
    error: str | None


CUT = 80  # characters of a message's first line in its one-line form


def first_line(text: str, limit: int = CUT) -> str:
    """The first non-empty line of a text, cut to `limit` characters; '…' says there was more."""
    lines = [line.strip() for line in text.strip().splitlines()]
    line = lines[0] if lines else ""
    more = len(lines) > 1
    if len(line) > limit:
        line, more = line[: limit - 1].rstrip(), True
    return line + ("…" if more else "")


def item_line(item: SentItem) -> str:
    """A sent item in one line: who or what, in words, then the first line of its text."""
    note = f" ({item.note})" if item.note else ""
    text = "" if item.note.startswith("encrypted") else first_line(item.text)
    return f"{item.label}{note}: {text}" if text else f"{item.label}{note}"


def _quoted(item: SentItem) -> str:
    text = "" if item.note.startswith("encrypted") else first_line(item.text, 40)
    return f"{item.label} “{text}”" if text else item.label


def _edit(old: SentItem, new: SentItem) -> str:
    """An edited item: the first line where the old and new text differ, before and after."""
    old_lines, new_lines = old.text.splitlines(), new.text.splitlines()
    same = zip(old_lines, new_lines, strict=False)
    at = next((i for i, (a, b) in enumerate(same) if a != b), min(len(old_lines), len(new_lines)))
    before = first_line("\n".join(old_lines[at:]), 40)
    after = first_line("\n".join(new_lines[at:]), 40)
    return f"{new.label} “{before}” → “{after}”"


def message_changes(before: list[SentItem], after: list[SentItem]) -> list[str]:
    """What changed between two requests' messages, in words: added, edited and removed items."""
    added: list[str] = []
    edited: list[str] = []
    removed: list[str] = []
    matcher = difflib.SequenceMatcher(a=[i.key() for i in before], b=[i.key() for i in after], autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            continue
        old, new = before[i1:i2], after[j1:j2]
        # Items of the same kind at the same place were edited; the rest came or went.
        while old and new and old[0].label == new[0].label:
            edited.append(_edit(old.pop(0), new.pop(0)))
        removed += [_quoted(i) for i in old]
        added += [_quoted(i) for i in new]
    verbs = (("edited", edited), ("removed", removed), ("added", added))
    return [f"{verb} {_joined(items)}" for verb, items in verbs if items]


def _joined(items: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'."""
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


class RequestSummary(BaseModel):
    """One history entry in plain words: what the History panel and `%mewrk history` show of it."""

    number: int
    entry_id: int
    title: str  # "Request 2" or "Request 3 · tool ls"
    meta: str  # model, protocol, when, how long
    sizes: str  # messages, tokens in and out, system prefix, tools by name
    changes: list[str]  # since the previous request of the session, in words
    messages: list[str]  # one line per part of the messages sent (a text, a tool call, a tool result)
    received: list[str]  # what came back, one line each
    error: str | None

    def _message_lines(self, messages: int | None) -> list[str]:
        """The message lines, capped at `messages` (the first and the last stay)."""
        lines = self.messages
        if messages is not None and len(lines) > messages:
            head, tail = lines[:2], lines[-(messages - 3) :]
            lines = [*head, f"… {len(self.messages) - len(head) - len(tail)} more …", *tail]
        return lines

    def text(self, messages: int | None = 8) -> str:
        """The summary as plain text, for a terminal (`print(s.history)`): no Markdown to read around."""
        indented = [f"  {line}" for line in (self.sizes, *self.changes)]
        lines = self._message_lines(messages)
        if lines:
            indented += ["  Sent:", *(f"    {line}" for line in lines)]
        if self.received:
            indented += ["  Came back:", *(f"    {line}" for line in self.received)]
        if self.error:
            indented.append(f"  Error: {self.error}")
        return "\n".join([f"{self.title} · {self.meta}", *indented])

    def markdown(self, messages: int | None = 8) -> str:
        """The summary as Markdown; `messages` caps the message lines (the first and the last stay)."""
        lines = self._message_lines(messages)
        parts = [f"**{self.title}** · {self.meta}", self.sizes]
        parts += [inert_inline(change) for change in self.changes]  # they quote the cards' text
        if lines:
            parts.append(_fenced("\n".join(lines)))
        if self.received:
            parts.append("Came back:\n\n" + _fenced("\n".join(self.received)))
        if self.error:
            parts.append(f"**Error:** {inert_markdown(self.error)}")  # a server's words may be in it
        return "\n\n".join(parts)


def _fenced(text: str) -> str:
    return code_block(text, "text")


def _meta(entry: HistoryEntry) -> str:
    when = datetime.fromtimestamp(entry.started_at).strftime("%H:%M:%S")
    seconds = (entry.ended_at or 0) - entry.started_at
    took = f" · took {seconds:.1f} s" if seconds >= 0.1 else " · took under 0.1 s"
    if entry.ended_at is None:
        took = " · no answer recorded"
    if entry.protocol == "tool":
        return f"{when}{took}"
    return f"{entry.model} · {entry.protocol} · {when}{took}"


def _usage(response: ModelResponse | None) -> str:
    usage = response.usage if response is not None else None
    if usage is None:
        return ""
    mark = "≈" if usage.estimated else ""  # only an estimate gets ≈; a vendor's count is exact
    return f"{mark}{format_tokens(usage.request_size)} tokens in · {mark}{format_tokens(usage.output_tokens)} out"


def _received(response: ModelResponse | None) -> list[str]:
    """What came back, one line per part, and why the model stopped."""
    if response is None:
        return []
    lines = []
    for part in response.parts:
        if isinstance(part, ThinkingPart):
            note = " (signed)" if part.signature else ""
            lines.append(f"Thinking{note}: {first_line(part.text)}")
        elif isinstance(part, ToolUsePart):
            lines.append(
                f"Tool call: {first_line(part.name + ' ' + json.dumps(part.input, ensure_ascii=False))}"
            )
        else:
            lines.append(f"Model: {first_line(part.text)}")
    if reason := response.stop:
        lines.append(f"Ended: {ENDINGS.get(reason, reason)}")
    return lines


def _tool_run(entry: HistoryEntry) -> RequestSummary:
    """A tool the engine ran (T17 keeps the input that actually ran)."""
    name = entry.request.get("tool") or entry.model.removeprefix("tool:")
    response = entry.response or {}
    result = str(response.get("result") or "")
    received = [f"Result{' (error)' if response.get('is_error') else ''}: {first_line(result) or '(empty)'}"]
    if response.get("truncated"):
        received.append("The output was cut.")
    return RequestSummary(
        number=entry.number,
        entry_id=entry.id,
        title=f"Request {entry.number} · tool {name}",
        meta=_meta(entry),
        sizes=f"{count(len(result.splitlines()), 'line')} of output",
        changes=[],
        messages=[f"Input: {first_line(json.dumps(entry.request.get('input'), ensure_ascii=False))}"],
        received=received if entry.response is not None else [],
        error=entry.error,
    )


def summarise(entry: HistoryEntry, previous: HistoryEntry | None, compare: bool = True) -> RequestSummary:
    """A history entry in a few lines; `previous` is the session's model request before it (None: it is
    the first), and `compare=False` leaves out what changed, for an entry shown without its history."""
    if entry.protocol == "tool":
        return _tool_run(entry)
    sent = read_request(entry.request, entry.protocol)
    response = read_response(entry.response)
    prefix = sum(estimate_tokens(s) for s in sent.system)
    # The panel lists the parts (a reply and its tool call are two parts of one message): the count of
    # messages says how many parts they hold when that differs, so that the two figures agree.
    sizes = [count(sent.messages, "message")]
    if len(sent.items) != sent.messages:
        sizes[0] += f" in {count(len(sent.items), 'part')}"
    if usage := _usage(response):
        sizes.append(usage)
    sizes.append(f"system prefix ≈{format_tokens(prefix)} tokens ({count(len(sent.system), 'part')})")
    sizes.append("tools: " + ", ".join(sent.tools) if sent.tools else "no tools")
    if not compare:
        changes = []
    elif previous is None:
        changes = ["The first request of this session."]
    else:
        changes = _changes(previous, sent, entry)
    return RequestSummary(
        number=entry.number,
        entry_id=entry.id,
        # A request that compacted the conversation — a summary (C6), handoff documents (C5) or natively
        # (C4) — says so.
        title=f"Request {entry.number}"
        + COMPACTION_TITLES.get(str(response.compaction if response else None), ""),
        meta=_meta(entry),
        sizes=" · ".join(sizes),
        changes=changes,
        messages=[item_line(i) for i in sent.items],
        received=_received(response),
        error=entry.error,
    )


def _changes(previous: HistoryEntry, sent: SentRequest, entry: HistoryEntry) -> list[str]:
    """Since the previous request: the model, the system prefix, the tools, then the messages."""
    before = read_request(previous.request, previous.protocol)
    words = []
    if previous.model != entry.model:
        words.append(f"the model went from {previous.model} to {entry.model}")
    if before.system != sent.system:
        old, new = (format_tokens(sum(estimate_tokens(s) for s in x.system)) for x in (before, sent))
        words.append(f"the system prefix changed (≈{old} → ≈{new} tokens)")
    if gained := [t for t in sent.tools if t not in before.tools]:
        words.append("tools added: " + ", ".join(gained))
    if lost := [t for t in before.tools if t not in sent.tools]:
        words.append("tools no longer offered: " + ", ".join(lost))
    words += message_changes(before.items, sent.items)
    return [f"Since request {previous.number}: {'; '.join(words) if words else 'nothing changed'}."]


def summarise_history(entries: list[HistoryEntry]) -> list[RequestSummary]:
    """Every entry summarised, each model request against the model request before it."""
    out, previous = [], None
    for entry in entries:
        out.append(summarise(entry, previous))
        if entry.protocol != "tool":
            previous = entry
    return out


def previous_request(entries: list[HistoryEntry], number: int) -> HistoryEntry | None:
    """The model request before entry `number` (1-based), skipping tool runs; None for the first."""
    for entry in reversed(entries[: number - 1]):
        if entry.protocol != "tool":
            return entry
    return None


def full_markdown(entry: HistoryEntry) -> str:
    """The request exactly as sent and the response as recorded, as JSON blocks."""
    body = json.dumps(entry.request, indent=2, ensure_ascii=False)
    answer = json.dumps(entry.response, indent=2, ensure_ascii=False) if entry.response else "null"
    return f"**Sent**\n\n```json\n{body}\n```\n\n**Came back**\n\n```json\n{answer}\n```"
