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

    def text(self, card_id: str, text: str) -> None:
        """More streamed text of a card: it joins the card's previous text event when that is the last."""
        pending = self.pending
        if pending and pending[-1][0] == "text" and pending[-1][1]["card_id"] == card_id:
            pending[-1][1]["text"] += text
        else:
            pending.append(("text", {"card_id": card_id, "text": text}))

    def add(self, kind: str, data: dict[str, Any]) -> None:
        """Any other event of the run."""
        self.pending.append((kind, data))

    def flush(self) -> None:
        """Write the pending events in one transaction."""
        if not self.pending:
            return
        events, self.pending = self.pending, []
        events = [(kind, self.redact(data)) for kind, data in events]
        with self.db.tx() as conn:
            run_rows.append_events(conn, self.run_id, events)
