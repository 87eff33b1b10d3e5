"""Whether a session's turn runs, waits for an approval or is idle — as the store says, for every
process alike (R4) — and the upkeep after a turn ended or its process died."""

from __future__ import annotations

import time

from ...cards.models import ModelReply, ToolCall
from ...errors import SessionBusy
from ...store import approvals as resume_rows
from ...store import runs as run_rows
from ..events import SessionState
from ..timeline.state import state_between, state_of
from ..timeline.stored import StoredTimeline

EDIT_WHILE_RUNNING = (
    "The model is running: nothing on the timeline can change until the turn ends — stop it to edit now."
)
APPROVAL_WAITING = (
    "An approval is waiting: approve or reject it first — s.approve(), s.reject(reason) "
    "or %mewrk approve | reject [reason]."
)
NOT_RUN = "The turn stopped before this call ran."
NOT_FINISHED = "The turn stopped while this call ran, so its result was not recorded."
TAKEN_OVER = "stopped from another window or process, which took the session over"


class TurnStatus:
    """The state of one session's turn, the checks that depend on it, and the cleanup after a crash."""

    def __init__(self, timeline: StoredTimeline) -> None:
        self.timeline = timeline

    def state(self) -> SessionState:
        """running, awaiting_approval, subagent_awaiting_approval or idle."""
        return state_of(self.timeline.db.conn(), self.timeline.session_id)

    def state_after_turn(self) -> SessionState:
        """The state a turn that ended without an approval of its own leaves: idle, unless a subagent's waits."""
        return state_between(self.timeline.db.conn(), self.timeline.session_id)

    def check_idle(self) -> None:
        """Refuse a change to the timeline while a turn runs (asked at every edit: only the run is read)."""
        row = run_rows.current_run(self.timeline.db.conn(), self.timeline.session_id)
        if row is not None and not run_rows.is_stale(row):
            raise SessionBusy(EDIT_WHILE_RUNNING)

    def check_no_approval(self) -> None:
        """Refuse to start a turn while an approval waits for its decision."""
        if self.state() == "awaiting_approval":
            raise SessionBusy(APPROVAL_WAITING)

    def recover_if_orphaned(self) -> None:
        """After a crash mid-turn: close the dead run and mark its unfinished cards interrupted."""
        row = run_rows.current_run(self.timeline.db.conn(), self.timeline.session_id)
        if row is None or not run_rows.is_stale(row):  # the usual case needs no write transaction
            return
        with self.timeline.db.tx() as conn:  # looked at again under the write lock
            row = run_rows.current_run(conn, self.timeline.session_id)
            if row is None or not run_rows.is_stale(row):
                return
            run_rows.end_run(conn, row["id"], "interrupted", "its process stopped while the turn ran")
            waiting = resume_rows.has_resume_point(conn, self.timeline.session_id)
        self.finish_unfinished_cards(tool_calls=not waiting)

    def take_over(self, run_id: str, grace: float) -> bool:
        """Stop another process's run (R3): its owner has `grace` seconds to end it itself; a dead owner,
        or one that does not answer in time (frozen, hung), loses the session at once — its run is ended
        here, which takes its claim (it writes nothing more), and its unfinished cards are closed.
        Returns True when the session was taken over, False when the owner ended its turn itself."""
        db, sid = self.timeline.db, self.timeline.session_id
        deadline = time.monotonic() + grace
        while True:
            row = run_rows.current_run(db.conn(), sid)
            if row is None or row["id"] != run_id:
                return False
            if run_rows.is_stale(row) or time.monotonic() >= deadline:
                break
            time.sleep(0.05)
        with db.tx() as conn:
            row = run_rows.current_run(conn, sid)
            if row is None or row["id"] != run_id:
                return False
            run_rows.end_run(conn, run_id, "stopped", TAKEN_OVER)
            waiting = resume_rows.has_resume_point(conn, sid)
        self.finish_unfinished_cards(tool_calls=not waiting)
        return True

    def finish_unfinished_cards(self, tool_calls: bool = True) -> None:
        """Mark replies still 'being written' as interrupted and unanswered tool calls as not run."""
        for card in list(self.timeline.current().cards):
            if isinstance(card, ModelReply) and not card.complete:
                card.complete = True
                card.interrupted = True
                card.stop_reason = card.stop_reason or "interrupted"
                self.timeline.save(card)
            elif (
                tool_calls
                and isinstance(card, ToolCall)
                and card.status in ("pending", "running")
                and card.result is None
            ):
                card.result = NOT_RUN if card.status == "pending" else NOT_FINISHED
                card.is_error = True
                card.status = "done"
                self.timeline.save(card)
