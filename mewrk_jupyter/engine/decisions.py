"""Approvals and Stop across a session and what it started: its own pending call, the calls its subagents
wait for (answered on its timeline), and its background work."""

from __future__ import annotations

from typing import Literal

from ..cards.models import Approval
from ..errors import InvalidInput
from ..store import sessions as session_rows
from ..store import tasks as task_rows
from .background.tasks import TASKS, stop_background_work
from .events import StateChanged
from .replay.run import stop_replays
from .subagents import (
    WITHDRAWN,
    decide_for_subagent,
    reach_subagents,
    stop_subagents_elsewhere,
    subagent_approval,
    supervisor_of,
    waiting_below,
    waiting_status,
)
from .subagents.spawn import Parent
from .turns.approvals import Always, Decision
from .turns.control import TurnControl, drive
from .turns.parts import SessionParts
from .turns.run import Run

FOLLOWED_ELSEWHERE = (
    "This approval belongs to a subagent that another process follows (the kernel or script that started "
    "it): approve or reject it there, or stop it from here with s.stop()."
)


class SessionDecisions:
    """Approve, reject and stop for one session, whichever of its runs or subagents they concern."""

    def __init__(self, parts: SessionParts, turns: TurnControl, session: Parent) -> None:
        self.parts = parts
        self.turns = turns
        self.session = session  # the session itself: stopping its subagents elsewhere opens them

    @property
    def session_id(self) -> str:
        """The session decided for."""
        return self.parts.session_id

    def pending(self) -> Approval | None:
        """The session's own waiting approval, else one a subagent of it waits for."""
        return self.parts.approvals.pending_approval() or subagent_approval(self.session_id)

    def status_line(self) -> str | None:
        """The composer's line while a subagent's approval waits on this timeline, else None."""
        return waiting_status(self.parts.timeline.current().cards)

    def decide(
        self,
        decision: Literal["approved", "rejected"],
        reason: str | None,
        always: Always,
        wait: bool | None,
        in_policy: bool = False,
    ) -> Run:
        """Approve (`approved`, `approved_always` with `always`: what it grants) or reject (`rejected`)
        the session's own pending call, else the call a subagent of it waits for."""
        final: Decision = "approved_always" if decision == "approved" and always is not False else decision
        if self.parts.approvals.waiting_approval() is None:
            run = decide_for_subagent(self.session_id, decision, reason, always, in_policy)
            if run is not None:
                return run
            self.refuse_if_followed_elsewhere()
        else:
            run = self.decide_as_subagent(final, reason, always, in_policy)
            if run is not None:
                return drive(run, wait)
        return self.turns.decide(final, reason, wait, always, in_policy)

    def decide_as_subagent(
        self, decision: Decision, reason: str | None, always: Always, in_policy: bool
    ) -> Run | None:
        """A subagent's own approval decided in its conversation, while it is shown above: its supervisor
        here goes on with the run, and every shown copy says how it was decided; None when none follows."""
        supervisor = supervisor_of(self.session_id)
        if supervisor is None:
            return None
        plain = "rejected" if decision == "rejected" else "approved"
        return supervisor.decide(
            plain,
            reason,
            always,
            in_policy,
            lambda: self.turns.decide(decision, reason, False, always, in_policy),
        )

    def refuse_if_followed_elsewhere(self) -> None:
        """A subagent's approval shown here that no supervisor of this process follows is answered in the
        process that follows it: deciding it here would run the call with nobody to take its result."""
        cards = self.parts.timeline.current().cards
        if self.parts.approvals.pending_approval() is None and waiting_below(cards) is not None:
            raise InvalidInput(FOLLOWED_ELSEWHERE)

    def withdraw_withheld(self) -> Run | None:
        """Plan mode turned on while this session's turn waits for the approval of a call plan mode
        withholds: the approval is withdrawn, so nobody can approve a change in plan mode. A subagent
        followed here goes on under plan mode (its supervisor starts the turn again); the person's own
        conversation ends its turn there, its calls answered that they were not run, and the next message
        goes on (so does a subagent whose task ended: a conversation of its own now). A subagent that
        another process follows keeps its approval: deciding it there answers the call under plan mode,
        without running it."""
        supervisor = supervisor_of(self.session_id)
        if supervisor is not None:
            return supervisor.follow_plan_mode(self.go_on_under_plan_mode)
        if task_rows.live_task_of_child(self.parts.timeline.db.conn(), self.session_id) is None:
            resume = self.parts.approvals.withdraw_withheld()
            if resume is not None:
                self.parts.approvals.end_paused_turn(resume["calls"])
                self.parts.timeline.emit(StateChanged(self.session_id, "idle"))
        return None

    def follow_plan_mode(self, on: bool) -> None:
        """Plan mode turned on or off here reaches the subagents still at work (and theirs); turned on, the
        approval of a call it withholds is withdrawn, here and in them."""
        if on:
            self.withdraw_withheld()
        reach_subagents(self.session, on)

    def go_on_under_plan_mode(self) -> Run | None:
        """Withdraw the waiting approval of a call plan mode withholds and go on from where the turn paused
        (the calls left are settled under plan mode, then the model reads the answers); the run, or None
        when no such approval waits."""
        resume = self.parts.approvals.withdraw_withheld()
        return self.turns.resume(resume) if resume is not None else None

    def is_subagent(self) -> bool:
        """Whether the session is a subagent's (started by `agent_spawn`)."""
        row = session_rows.get_session(self.parts.timeline.db.conn(), self.session_id)
        return bool(row is not None and row["subagent"])

    def stop(self) -> bool:
        """Stop the running turn, the background work and the subagents; False if nothing ran."""
        stopped = stop_replays(self.session_id) > 0  # a replay of it, or on it, asks no more
        stopped = bool(stop_background_work(self.session_id)) or stopped
        stopped = stop_subagents_elsewhere(self.session) or stopped  # those another process follows
        if self.is_subagent() and self.parts.approvals.withdraw(WITHDRAWN):
            # A stopped subagent's approval is nobody's to answer: deciding it later would run the call
            # with no one to take its result. Its supervisor here ends it as stopped.
            task = TASKS.by_child(self.session_id)
            if task is not None:
                task.stop()
            stopped = True
        return self.turns.stop() or stopped
