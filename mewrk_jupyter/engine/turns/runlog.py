"""A run's event log: what the run did, written to the store in batches so that any client can read the
rest of a run by its id (R5) without one row per streamed token."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...store import runs as run_rows
from ...store.db import Database


class RunLog:
    """The events of one run not yet stored; consecutive text of one card is one event."""

    def __init__(self, db: Database, run_id: str, redact: Callable[[Any], Any] | None = None) -> None:
        self.db = db
        self.run_id = run_id
        # Applied to each event's data as it is stored, so that no known secret lands in the log.
        self.redact = redact or (lambda data: data)
        self.pending: list[tuple[str, dict[str, Any]]] = []
        # The text event still growing (always the last pending one) and its pieces, joined when it
        # closes: appending to one string per token would copy the whole text each time.
        self._text_card: str | None = None
        self._pieces: list[str] = []

    def text(self, card_id: str, text: str) -> None:
        """More streamed text of a card: it joins the card's previous text event when that is the last."""
        if card_id == self._text_card:
            self._pieces.append(text)
            return
        self._close_text()
        self.pending.append(("text", {"card_id": card_id, "text": ""}))
        self._text_card, self._pieces = card_id, [text]

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
        if self._text_card is not None:
            self.pending[-1][1]["text"] = "".join(self._pieces)
            self._text_card, self._pieces = None, []
