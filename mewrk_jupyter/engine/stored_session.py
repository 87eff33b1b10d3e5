"""What a session is in the store, read alike by every process: its id, title, parent and handovers, its
timeline, the requests it sent and its runs. `Session` builds the engine — settings, tools, turns — on it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..cards.models import Card
from ..errors import InvalidInput
from ..store import history as history_rows
from ..store import sessions as session_rows
from ..store.db import Database
from .catalog import history_entry_of
from .events import Listener, SessionState
from .timeline.mirror import Timeline
from .timeline.stored import StoredTimeline
from .turns.records import RunEvent, RunInfo, events_after, find_run, session_runs
from .turns.status import TurnStatus
from .views import HistoryEntry, HistoryList


class StoredSession:
    """A session's stored record: the base of `Session`, which adds what runs in this process."""

    def __init__(self, db: Database, row: Any) -> None:
        self.id: str = row["id"]
        self._title: str = row["title"]
        self.parent_id: str | None = row["parent_id"]
        # The session this one continues after a handoff or a native compaction, if it is a handover.
        self.handover_of: str | None = row["handover_of"]
        self.created_at: float = row["created_at"]
        self.stored_timeline = StoredTimeline(db, self.id)
        self._status = TurnStatus(self.stored_timeline)

    @property
    def title(self) -> str:
        """The session's title."""
        return self._title

    @title.setter
    def title(self, value: str) -> None:
        if not isinstance(value, str) or not value.strip():
            raise InvalidInput("A title must be non-empty text.")
        with self.stored_timeline.db.tx() as conn:
            session_rows.set_title(conn, self.id, value.strip())
        self._title = value.strip()

    @property
    def handovers(self) -> list[str]:
        """The ids of the sessions that continue this one after a handoff or a native compaction, oldest
        first (their titles are `<title>-handover-<n>`); `handover_of` is the way back."""
        rows = session_rows.handovers_of(self.stored_timeline.db.conn(), self.id)
        return [row["id"] for row in rows]

    @property
    def state(self) -> SessionState:
        """idle, running, awaiting_approval, or subagent_awaiting_approval (`pending_approval` is the
        subagent's, answered here) — as the store says, for every process alike (R4)."""
        return self._status.state()

    def timeline(self) -> Timeline:
        """The timeline with its order keys, read again if another process changed the session."""
        return self.stored_timeline.current()

    def card(self, card_id: str | Card) -> Card:
        """One card, by id, unambiguous id prefix, or position from the end (`"-1"`: the last card)."""
        found = self.stored_timeline.find(self.stored_timeline.resolve(card_id))
        assert found is not None  # resolve() found it
        return found

    @property
    def history(self) -> HistoryList:
        """Every request exactly as it was sent, with what came back (T17)."""
        rows = history_rows.load_history(self.stored_timeline.db.conn(), self.id)
        return HistoryList(history_entry_of(row) for row in rows)

    def history_entry(self, entry_id: int) -> HistoryEntry | None:
        """One request of the history by its id, without reading the others; None if there is none."""
        row = history_rows.load_entry(self.stored_timeline.db.conn(), self.id, entry_id)
        return history_entry_of(row) if row is not None else None

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every change of this session; returns the function that unsubscribes."""
        return self.stored_timeline.subscribe(listener)

    def recover_if_orphaned(self) -> None:
        """After a crash mid-turn: close the dead run and mark its unfinished cards interrupted."""
        self._status.recover_if_orphaned()

    def finish_unfinished_cards(self, tool_calls: bool = True) -> None:
        """Mark replies still 'being written' as interrupted and unanswered tool calls as not run."""
        self._status.finish_unfinished_cards(tool_calls)

    def runs(self) -> list[RunInfo]:
        """This session's runs, oldest first, from any process: id, state, whether it still runs, times (R5)."""
        self.recover_if_orphaned()  # a run whose process died reads as ended, not as running forever
        return session_runs(self.stored_timeline.db.conn(), self.id)

    def run_info(self, run_id: str) -> RunInfo:
        """One run of this session by its id: whether it still runs, how it ended (RunNotFound if none)."""
        self.recover_if_orphaned()
        return find_run(self.stored_timeline.db.conn(), run_id, self.id)

    def run_events(self, run_id: str, after: int | None = None) -> list[RunEvent]:
        """A run's stored events in order, those after the sequence number `after` when given (R5)."""
        conn = self.stored_timeline.db.conn()
        find_run(conn, run_id, self.id)
        return events_after(conn, run_id, after)
