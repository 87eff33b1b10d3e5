"""The in-memory copy of a session's timeline: cards sorted by order key, found by id in O(log n)."""

from __future__ import annotations

from bisect import bisect_left

from ...cards.models import Card, Thinking


def _bound(card: Card) -> bool:
    """A signed thinking block bound to what it follows: a change above it can make it unsendable (T7)."""
    return isinstance(card, Thinking) and card.bound_to is not None


class Timeline:
    """Cards in order with their keys; mirrors the store and is rebuilt from it when another process writes."""

    def __init__(self, rows: list[tuple[str, Card]]):
        self.keys = [key for key, _ in rows]
        self.cards = [card for _, card in rows]
        self.key_of = {card.id: key for key, card in rows}
        # Kept up to date so that "is any block bound?" costs nothing on the many timelines with none.
        self.bound_thinking = {card.id for card in self.cards if _bound(card)}

    def __len__(self) -> int:
        return len(self.cards)

    def get(self, card_id: str) -> tuple[str, Card] | None:
        """A card and its key, or None."""
        key = self.key_of.get(card_id)
        if key is None:
            return None
        return key, self.cards[bisect_left(self.keys, key)]

    def index(self, card_id: str) -> int:
        """The position of a card on the timeline."""
        return bisect_left(self.keys, self.key_of[card_id])

    def put(self, card: Card, key: str) -> None:
        """Add a card at its key, or replace it (moving it if its key changed)."""
        if _bound(card):
            self.bound_thinking.add(card.id)
        else:
            self.bound_thinking.discard(card.id)
        old = self.key_of.get(card.id)
        if old == key:
            self.cards[bisect_left(self.keys, key)] = card
            return
        if old is not None:
            self.remove(card.id)
        i = bisect_left(self.keys, key)
        self.keys.insert(i, key)
        self.cards.insert(i, card)
        self.key_of[card.id] = key

    def remove(self, card_id: str) -> None:
        """Take a card out, if present."""
        key = self.key_of.pop(card_id, None)
        if key is None:
            return
        self.bound_thinking.discard(card_id)
        i = bisect_left(self.keys, key)
        del self.keys[i]
        del self.cards[i]
