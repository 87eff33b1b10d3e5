"""Where the model reads a summary instead of the cards above it (C6): the cards a request reads.

A summary divider cuts the timeline. Above the last one the model reads that divider's summary, not the
cards: they stay on the timeline, readable and editable, and in the history, but no request carries them.
System prompts above the cut are kept: they are the agent's instructions, not conversation a summary
retells (a handoff and a native compaction keep them too).
"""

from __future__ import annotations

from ...cards.models import Card, SummaryDivider, SystemPrompt

# How a request introduces the summary, so that the model reads it as what it is.
SUMMARY_OPENING = (
    "This conversation continues from a summary of its earlier part, written when the conversation was "
    "compacted: the messages it covers are no longer in your context. Go on from where it left off."
)

# Kinds that are not messages of the conversation: what a summary covers is counted without them. A
# native-compaction card is one: it carries the person's kept messages and the compacted conversation.
NOT_MESSAGES = (
    "system_prompt",
    "summary_divider",
    "approval",
    "preview",
    "subagent",
    "workflow",
    "comparison",
)


def summary_message(divider: SummaryDivider) -> str:
    """The user message a request carries in place of the cards above the divider."""
    return f"{SUMMARY_OPENING}\n\n<summary>\n{divider.summary.strip()}\n</summary>"


def last_divider(cards: list[Card]) -> int | None:
    """The index of the last summary divider on the timeline, or None."""
    for index in range(len(cards) - 1, -1, -1):
        if isinstance(cards[index], SummaryDivider):
            return index
    return None


def read_cards(cards: list[Card]) -> list[Card]:
    """The cards a request reads: from the last divider on, after the system prompts above it."""
    cut = last_divider(cards)
    if cut is None:
        return cards
    return [card for card in cards[:cut] if isinstance(card, SystemPrompt)] + cards[cut:]


def messages_of(cards: list[Card]) -> int:
    """How many messages of the conversation these cards hold (system prompts, dividers and the like aside)."""
    return sum(card.kind not in NOT_MESSAGES for card in cards)


def since_last_summary(cards: list[Card]) -> list[Card]:
    """The cards after the last divider (all of them when there is none)."""
    cut = last_divider(cards)
    return cards if cut is None else cards[cut + 1 :]
