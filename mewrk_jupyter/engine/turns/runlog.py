"""A run's event log: what the run did, written to the store in batches so that any client can read the
rest of a run by its id (R5) without one row per streamed token."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...cards.models import ModelReply, Thinking
from ...store import runs as run_rows
from ...store.db import Database

Streamed = ModelReply | Thinking  # the cards whose text streams


class RunLog:
    """The events of one run not yet stored; consecutive text of one card is one event."""

    def __init__(self, db: Database, run_id: str, redact: Callable[[Any], Any] | None = None) -> None:
        self.db = db
        self.run_id = run_id
        # Applied to each event's data as it is stored, so that no known secret lands in the log.
        self.redact = redact or (lambda data: data)
        self.pending: list[tuple[str, dict[str, Any]]] = []
        # The card whose streamed text the log follows, and where in its text the part not logged yet
        # begins. Its text is read when the event closes, so a streamed token costs the log nothing.
        self.following: Streamed | None = None
        self._from = 0

    def follow(self, card: Streamed, text: str) -> None:
        """`card` has just received `text`, at the end of its text, and is now the card that streams."""
        self._close_text()
        self.following, self._from = card, len(card.text) - len(text)

    def end_stream(self) -> None:
        """The response's stream ended: its last text becomes an event and no card is followed any more
        (a person may edit the card later; that is no streamed text)."""
        self._close_text()
        self.following = None

    def add(self, kind: str, data: dict[str, Any]) -> None:
        """Any other event of the run."""
        self._close_text()
        self.pending.append((kind, data))

    def flush(self) -> None:
        """Write the pending events in one transaction."""
        self._close_text()
        if not self.pending:
            return
        events, self.pending = self.pending, []
        events = [(kind, self.redact(data)) for kind, data in events]
        with self.db.tx() as conn:
            run_rows.append_events(conn, self.run_id, events)

    def _close_text(self) -> None:
        """The followed card's text since the last event of it becomes an event; the card is still followed."""
        card = self.following
        if card is not None and len(card.text) > self._from:
            self.pending.append(("text", {"card_id": card.id, "text": card.text[self._from :]}))
            self._from = len(card.text)
