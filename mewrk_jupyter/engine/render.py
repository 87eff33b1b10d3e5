"""Markdown views of a timeline or a turn, for notebooks without the widget and for `%mewrk` output.

What a model, a tool or a person wrote goes through `cards.inert`: the notebook shows it, and no
HTML, script link or remote image in it acts.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping

from ..cards.inert import code_block, code_span, inert_inline, inert_markdown
from ..cards.models import Approval, Card, Comparison, ModelReply, SummaryDivider, Thinking, ToolCall
from ..cards.words import count, label

# Kinds a person types as plain lines; a model's reply is Markdown and is shown as the model wrote it
# (made inert).
PERSON_WRITTEN = ("user_input", "system_prompt")

_DECISIONS = {
    "pending": "waiting for your decision",
    "approved": "approved",
    "approved_always": "approved for this session",
    "rejected": "rejected",
    "expired": "can no longer be resumed",
}


# A fenced code block opens and closes with three or more backticks or tildes, indented 0–3 spaces.
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")


def keep_line_breaks(text: str) -> str:
    """Markdown showing each of a person's lines on its own line (hard breaks); code blocks untouched."""
    lines = text.split("\n")
    fence = ""
    for i, line in enumerate(lines[:-1]):
        opening = _FENCE.match(line)
        if fence:  # inside a code block the line breaks already show
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = ""
        elif opening:
            fence = opening.group(1)
        elif line.strip() and lines[i + 1].strip() and not line.endswith("  "):
            lines[i] = line + "  "  # two spaces before a line break: a hard break in CommonMark
    return "\n".join(lines)


def comparison_markdown(card: Comparison) -> str:
    """A replay's comparison in Markdown: its line, then the diffs of the tool calls and the text."""
    diffs = "".join(f"\n\n{code_block(part, 'diff')}" for part in (card.tools_diff, card.diff) if part)
    return inert_inline(card.title_line()) + diffs


def _quote(text: str) -> str:
    return "\n".join("> " + line if line else ">" for line in text.splitlines()) or ">"


def card_markdown(card: Card, not_sent: str | None = None) -> str:
    """One card as Markdown: a small label line, then the content; `not_sent` is why it is left out."""
    notes = []
    if card.edited:
        notes.append("edited")
    if isinstance(card, ModelReply):
        if not card.complete:
            notes.append("writing…")
        if card.interrupted:
            notes.append("interrupted")
        if card.usage:
            notes.append(count(card.usage.output_tokens, "token") + " out")
    if isinstance(card, Thinking) and card.is_signed and card.edited:
        notes.append("signed: the model still receives the original")
    if not_sent:
        notes.append(f"not sent: {not_sent}")
    if isinstance(card, ToolCall) and card.status in ("pending", "running", "denied", "rejected"):
        notes.append(card.status)
    if isinstance(card, Approval):
        notes.append(_DECISIONS[card.decision] + (f": {inert_inline(card.reason)}" if card.reason else ""))
    head = f"**{label(card.kind)}** · `{card.id}`" + (f" · _{', '.join(notes)}_" if notes else "")
    if isinstance(card, Approval):
        params = json.dumps(card.params, indent=2, ensure_ascii=False)
        asker = card.title_line().removesuffix(card.name)  # who asks: "You asked to run " for a call by hand
        return f"{head}\n\n{asker}{code_span(card.name)}\n\n{code_block(params, 'json')}"
    if isinstance(card, ToolCall):
        result = card.result if card.result is not None else "(no result yet)"
        return f"{head}\n\n{code_span(card.title_line())}\n\n{code_block(result)}"
    if card.kind == "host_message":
        return f"{head} · {inert_inline(getattr(card, 'text', ''))}"
    if isinstance(card, Comparison):
        return f"{head} · {comparison_markdown(card)}"
    if isinstance(card, SummaryDivider):  # the summary is the model's material: the divider shows its line
        return f"{head} · ──── {card.title_line()} ────"
    text = getattr(card, "text", "")
    if isinstance(card, Thinking):
        return f"{head}\n\n{_quote(inert_markdown(text))}"
    if card.kind in PERSON_WRITTEN:
        text = keep_line_breaks(text)
    return f"{head}\n\n{inert_markdown(text)}"


def cards_markdown(cards: Iterable[Card], not_sent: Mapping[str, str] | None = None) -> str:
    """Several cards, separated by rules; `not_sent` maps the ids of cards left out to the reason."""
    unsent = not_sent or {}
    parts = [card_markdown(c, unsent.get(c.id)) for c in cards]
    return "\n\n---\n\n".join(parts) if parts else "_The timeline is empty._"


def timeline_markdown(session) -> str:
    """A whole session: a header line, the cards, and the dashboard line."""
    head = f"### {inert_inline(session.title)} · `{session.id}` · {code_span(session.settings.model)} · {session.state}"
    body = cards_markdown(session.cards, session.not_sent())
    return f"{head}\n\n{body}\n\n`{session.context.line()}`"
