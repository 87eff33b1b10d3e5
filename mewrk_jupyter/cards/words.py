"""The words a person reads for each card kind, and counts with their plurals right.

One mapping for every Python surface (magics, Markdown views, undo notices, errors); the widget's
`js/src/card.ts` holds the same labels, and a test keeps the two in step.
"""

from __future__ import annotations

from typing import Protocol

# A card's heading, as the widget shows it above the card's content.
LABELS: dict[str, str] = {
    "system_prompt": "System prompt",
    "user_input": "You",
    "thinking": "Thinking",
    "tool_call": "Tool call",
    "model_reply": "Model",
    "host_message": "Host",
    "summary_divider": "Summary",
    "handoff": "Handoff",
    "native_compaction": "Native compaction",
    "approval": "Approval",
    "subagent": "Subagent",
    "workflow": "Workflow",
    "preview": "Preview",
    "comparison": "Replay",
}

# What a card is called inside a sentence ("deleted the reply"), singular and plural.
NOUNS: dict[str, tuple[str, str]] = {
    "system_prompt": ("system prompt", "system prompts"),
    "user_input": ("message", "messages"),
    "thinking": ("thinking block", "thinking blocks"),
    "tool_call": ("tool call", "tool calls"),
    "model_reply": ("reply", "replies"),
    "host_message": ("host message", "host messages"),
    "summary_divider": ("summary", "summaries"),
    "handoff": ("handoff", "handoffs"),
    "native_compaction": ("compaction", "compactions"),
    "approval": ("approval", "approvals"),
    "subagent": ("subagent card", "subagent cards"),
    "workflow": ("workflow card", "workflow cards"),
    "preview": ("preview", "previews"),
    "comparison": ("replay comparison", "replay comparisons"),
}


def label(kind: str) -> str:
    """A card kind's heading: "Model" for a reply, "You" for a message."""
    return LABELS.get(kind, kind.replace("_", " ").capitalize())


def noun(kind: str, n: int = 1) -> str:
    """A card kind as a word in a sentence: "reply", or "replies" when n is not 1."""
    plain = kind.replace("_", " ")
    one, many = NOUNS.get(kind, (plain, plain + "s"))
    return one if n == 1 else many


def count(n: int, one: str, many: str | None = None) -> str:
    """A number with its noun agreeing: "1 message", "2 messages", "0 replies" (given many=)."""
    return f"{n:,} {one if n == 1 else (many or one + 's')}"


def count_kind(n: int, kind: str) -> str:
    """A number of cards of one kind: "1 reply", "3 tool calls"."""
    return f"{n:,} {noun(kind, n)}"


def cards_of(kinds: list[str]) -> str:
    """Several cards in words: "reply" for one, "2 messages" for one kind, "3 cards" for mixed kinds."""
    if len(kinds) == 1:
        return noun(kinds[0])
    if len(set(kinds)) == 1:
        return count_kind(len(kinds), kinds[0])
    return count(len(kinds), "card")


def format_tokens(n: int) -> str:
    """Tokens as people read them: 950, 1.2k, 18k, 131k."""
    if n < 1000:
        return str(n)
    if n < 10_000:
        return f"{n / 1000:.1f}".rstrip("0").rstrip(".") + "k"
    return f"{round(n / 1000)}k"


def format_cost(amount: float) -> str:
    """An amount as people read it: $0.0042, $0.042, $1.25."""
    if amount == 0:
        return "$0.00"
    return f"${amount:.4f}" if amount < 0.01 else f"${amount:.3f}" if amount < 1 else f"${amount:.2f}"


def verdict(same_tools: bool, same_text: bool) -> str:
    """A replayed turn beside the recording's in words: "same", "same tools, other text", "other tools"."""
    if same_tools and same_text:
        return "same"
    if same_tools:
        return "same tools, other text"
    return "other tools" + ("" if same_text else ", other text")


class Spent(Protocol):
    """One side of a replayed turn, as its line reads it."""

    tokens: int
    cost: float | None


def replay_line(number: int, same_tools: bool, same_text: bool, sides: tuple[Spent, Spent]) -> str:
    """A replayed turn in one line: "turn 2 · same tools, other text · 516 → 777 tokens · $0.0042 → —"
    (the costs only when a side has one)."""
    tokens = " → ".join(format_tokens(side.tokens) for side in sides)
    line = f"turn {number} · {verdict(same_tools, same_text)} · {tokens} tokens"
    if all(side.cost is None for side in sides):
        return line
    return line + " · " + " → ".join(format_cost(s.cost) if s.cost is not None else "—" for s in sides)


def divider_text(covered: int, tokens_saved: int | None) -> str:
    """A summary divider's line: "12 earlier messages · compacted into a summary · ≈62k tokens saved"."""
    parts = [count(covered, "earlier message")] if covered else []
    parts.append("compacted into a summary")
    if tokens_saved is not None:
        parts.append(f"≈{format_tokens(tokens_saved)} tokens saved")
    return " · ".join(parts)
