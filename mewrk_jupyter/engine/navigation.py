"""What a person reads after a branch, a fork or a switch to another session: one sentence for every surface.

The magics, the widget's slash commands and its context menu all say these same words, so a branch
reads alike wherever it was made. Plain text (no Markdown), so that the widget's notice line and a
notebook's output show it the same.
"""

from __future__ import annotations

from typing import Any

from ..cards.models import Card
from ..cards.words import count, noun

# Characters of a card's first line quoted in a sentence.
QUOTE_AT_MOST = 60


def card_in_words(card: Card) -> str:
    """A card by its kind in words and its first line: 'the reply “The answer is 4.”'."""
    words = "your message" if card.kind == "user_input" else f"the {noun(card.kind)}"
    first = card.title_line() or getattr(card, "summary", "") or getattr(card, "name", "")
    first = first.strip().splitlines()[0] if first.strip() else ""
    if len(first) > QUOTE_AT_MOST:
        first = first[: QUOTE_AT_MOST - 1].rstrip() + "…"
    return f"{words} “{first}”" if first else words


def _copied(origin: Any, new: Any) -> tuple[int, str]:
    """How many of the copy's cards came from the original, and what the copy says after them: where they
    announce another plan mode than the copy's, a plan-mode message follows them (Session._copy)."""
    ids = {card.id for card in origin.cards}
    copied = sum(1 for card in new.cards if card.id in ids)
    if copied == len(new.cards):
        return copied, ""
    if not copied:  # only a session started in plan mode, forked at its first card, gets here
        return copied, " Plan mode is on in the copy: it starts with the guidance."
    if new.settings.plan_mode:
        return copied, " Plan mode is on in the copy: its guidance follows them."
    return copied, " Plan mode is off in the copy: the model is told after them."


def branched_sentence(origin: Any, at: Card, new: Any) -> str:
    """After `origin.branch(at)` made `new`: where it was cut and what the new session holds."""
    copied, told = _copied(origin, new)
    return (
        f"Branched “{origin.title}” at {card_in_words(at)} into “{new.title}” (id {new.id}): "
        f"{count(copied, 'card')}, up to and including that one.{told}"
    )


def forked_sentence(origin: Any, at: Card, new: Any) -> str:
    """After `origin.fork(at)` made `new`: where it was cut and what the new session holds."""
    n, told = _copied(origin, new)
    held = f"the {count(n, 'card')} above it" if n else "an empty timeline, as nothing is above it"
    return f"Forked “{origin.title}” at {card_in_words(at)} into “{new.title}” (id {new.id}): {held}.{told}"


def switched_sentence(session: Any) -> str:
    """After choosing a session to work on (`%mewrk use`, or opening it in a widget)."""
    return (
        f"Switched to “{session.title}” (id {session.id}): "
        f"{session.settings.model}, {count(len(session.cards), 'card')}."
    )


def copy_session(origin: Any, how: str, at: str | Card) -> tuple[Any, str]:
    """Branch or fork `origin` at a card; returns the new session and the sentence that says so."""
    card = origin.card(at)
    if how == "branch":
        new = origin.branch(card.id)
        return new, branched_sentence(origin, card, new)
    new = origin.fork(card.id)
    return new, forked_sentence(origin, card, new)
