"""What the views were last told, kept in one place: a patch is sent only where it differs."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import cast

from .protocol import CardPayload


@dataclass
class Told:
    """The widget's record of what its views hold: each card as sent (with its order key), the session's
    state, the composer's waiting line, the cards' "not sent" notes and the delete-confirmation preference.
    Every view holds the same (each new one gets a snapshot), so one record serves them all."""

    cards: dict[str, tuple[str, CardPayload]] = field(default_factory=dict)  # id -> (order key, card)
    state: str = "idle"
    waiting: str | None = None  # the composer's line while a subagent's approval waits on this timeline
    unsent: dict[str, str] = field(default_factory=dict)  # card id -> why the next request leaves it out
    confirm_delete: bool = False

    def forget_cards(self) -> None:
        """Before a snapshot: the views will hold exactly the cards it carries."""
        self.cards.clear()

    def unsent_now(self, unsent: dict[str, str]) -> list[tuple[str, CardPayload]]:
        """Take the "not sent" notes as they are now; the cards whose note changed, patched, to send
        (a change above a signed block reaches the cards below it)."""
        before, self.unsent = self.unsent, unsent
        patches = []
        for card_id in before.keys() | unsent.keys():
            known = self.cards.get(card_id)
            if known is None or known[1].get("not_sent") == unsent.get(card_id):
                continue
            key, old = known
            payload = cast(CardPayload, {k: v for k, v in old.items() if k != "not_sent"})
            if card_id in unsent:
                payload["not_sent"] = unsent[card_id]
            self.cards[card_id] = (key, payload)
            patches.append((key, payload))
        return patches
