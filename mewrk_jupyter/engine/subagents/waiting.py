"""What the composer says while an approval waits below a conversation: a subagent (or a subagent's own)
paused for the person, whose card is on this timeline. Read from the stored cards, so every process and
every view that opens the conversation says the same; the person may go on writing meanwhile."""

from __future__ import annotations

from collections.abc import Sequence

from ...cards.models import Approval, Card


def waiting_below(cards: Sequence[Card]) -> Approval | None:
    """The latest approval a subagent waits for, as shown on this timeline, or None."""
    for card in reversed(cards):
        if isinstance(card, Approval) and card.session_id is not None and card.decision == "pending":
            return card
    return None


def waiting_status(cards: Sequence[Card]) -> str | None:
    """The composer's line while a subagent's approval waits on this timeline, else None."""
    approval = waiting_below(cards)
    if approval is None:
        return None
    return (
        f"A subagent waits for your approval of `{approval.name}`: approve or reject it on its card "
        "(you can keep writing here meanwhile)."
    )
