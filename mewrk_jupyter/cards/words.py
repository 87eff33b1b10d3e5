"""The words a person reads for each card kind, and counts with their plurals right.

One mapping for every Python surface (magics, Markdown views, undo notices, errors); the widget's
`js/src/card.ts` holds the same labels, and a test keeps the two in step.
"""

from __future__ import annotations

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
    "preview": "Preview",
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
    "preview": ("preview", "previews"),
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
