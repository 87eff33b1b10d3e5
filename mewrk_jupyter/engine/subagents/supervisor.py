"""A subagent's supervisor: drives its session on a thread of its own — the first turn, each approval it
pauses for (shown on the timeline of its parent and of every conversation above it, up to the top one
the person looks at, and answered on any of them), and its result once it ended.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

from ...cards.models import Approval, ModelReply, Subagent
from ...store import sessions as session_rows
from ..background.tasks import TASKS, BackgroundTask, TaskState
from ..events import StateChanged, StatusChanged
from ..timeline.state import state_of
from ..timeline.stored import StoredTimeline
from .waiting import waiting_status

# The supervisors of this process's subagents that still run, by task id (an approval is forwarded here).
SUPERVISORS: dict[str, Supervisor] = {}
NO_REPLY = "(The subagent ended without a reply.)"
STOPPED = "(The subagent was stopped before it finished.)"
WITHDRAWN = "This call was not run: the subagent was stopped while its approval waited."
ENDINGS: dict[str, TaskState] = {"done": "completed", "stopped": "stopped"}
MAX_DEPTH = 8  # subagents of subagents searched for a waiting approval
MAX_ROUNDS = 8  # turns a subagent takes to read the results of its own background work


def final_reply(child: Any) -> str:
    """The subagent's result: the text of the last reply on its timeline."""
    for card in reversed(child.cards):
        if isinstance(card, ModelReply) and card.text.strip():
            return str(card.text)
    return NO_REPLY


class Supervisor:
    """Follows one subagent from its first turn to its result, on a daemon thread."""

    def __init__(self, parent: StoredTimeline, task: BackgroundTask, child: Any, task_text: str) -> None:
        self.parent = parent  # the spawning session's timeline
        self.task = task
        self.child = child  # the subagent's own Session
        self.text = task_text
        # Re-entered by a decision on the parent: the subagent's own approve() comes back to `decide`.
        self.lock = threading.RLock()
        self.deciding = False
        self.stopping = False
        self.decided = threading.Event()
        self.next_run: Any = None
        # The approval shown on each conversation above the subagent while it waits: session id -> card.
        self.mirrors: dict[str, tuple[StoredTimeline, Approval]] = {}

    @property
    def mirror(self) -> Approval | None:
        """The waiting approval as shown on the parent's timeline, or None."""
        shown = self.mirrors.get(self.parent.session_id)
        return shown[1] if shown is not None else None

    def mirror_on(self, session_id: str) -> Approval | None:
        """The waiting approval as shown on the timeline of `session_id` (the parent or one above)."""
        shown = self.mirrors.get(session_id)
        return shown[1] if shown is not None else None

    def above(self) -> list[StoredTimeline]:
        """The timelines of the parent and of every conversation above it, up to the top one."""
        timelines = [self.parent]
        conn = self.parent.db.conn()
        for _ in range(MAX_DEPTH):
            row = session_rows.get_session(conn, timelines[-1].session_id)
            if row is None or not row["subagent"] or row["parent_id"] is None:
                break
            opened = type(self.child).open(row["parent_id"], workspace=self.child.workspace.root)
            timelines.append(opened.stored_timeline)
        return timelines

    def tell_status(self, timelines: list[StoredTimeline]) -> None:
        """Tell the views of each timeline whether an approval waits below it: the composer's line, and the
        state (subagent_awaiting_approval while it waits and no turn of that conversation runs)."""
        for timeline in timelines:
            sid = timeline.session_id
            timeline.emit(StatusChanged(sid, waiting_status(timeline.current().cards)))
            timeline.emit(StateChanged(sid, state_of(timeline.db.conn(), sid)))

    def start(self) -> None:
        """Start the subagent's first turn in the background."""
        SUPERVISORS[self.task.id] = self
        threading.Thread(target=self.main, name=f"mewrk-{self.task.id}", daemon=True).start()

    def main(self) -> None:
        try:
            self.follow()
        except Exception as exc:  # the subagent's failure is its result, never the parent's crash
            self.end("failed", f"The subagent failed: {type(exc).__name__}: {exc}")

    def send(self, text: str | None) -> Any:
        """Start (or, with None, continue) the subagent's turn in the background; None, sending nothing,
        once it was asked to stop — and a turn that a stop asked for meanwhile is stopped at once."""
        with self.lock:
            if self.stopping:
                return None
        run = self.child.send(text, wait=False)
        if self.stopping:  # the stop came while the turn started, when there was no turn to stop yet
            self.child.stop()
        return run

    def follow(self) -> None:
        run = self.send(self.text)
        rounds = 0
        while run is not None:
            run.wait()
            if self.stopping:
                break
            if run.state == "awaiting_approval":
                run = self.await_decision()
            elif run.state == "done" and self.own_work() and rounds < MAX_ROUNDS:
                # Its turn ended with background work of its own still out: its result is what it says
                # once that work's results reached it (the next request delivers them).
                rounds += 1
                TASKS.wait(self.own_work(), float("inf"), lambda: self.stopping)
                run = None if self.stopping else self.send(None)
            else:
                break
            if run is None:
                break
        if run is None or self.stopping or run.state == "awaiting_approval":
            reply = final_reply(self.child)
            self.end("stopped", STOPPED if reply == NO_REPLY else f"{reply}\n\n{STOPPED}")
        elif run.error is not None:
            self.end("failed", f"The subagent's turn failed: {run.error}")
        else:
            self.end(ENDINGS.get(run.state, "failed"), final_reply(self.child))

    def own_work(self) -> list[BackgroundTask]:
        """The subagent's own background work whose result it has not read yet."""
        return [task for task in TASKS.of(self.child.id) if not task.collected]

    def await_decision(self) -> Any:
        """Show the subagent's pending approval on the parent's timeline and wait for the decision there;
        returns the subagent's run that goes on, or None when the subagent was stopped meanwhile."""
        pending = self.child.pending_approval
        if pending is None:
            return None
        timelines = self.above()
        with self.lock:
            self.decided.clear()
            for timeline in timelines:
                mirror = Approval(
                    tool_card_id=pending.tool_card_id,
                    name=pending.name,
                    params=dict(pending.params),
                    session_id=self.child.id,
                )
                timeline.append(mirror)
                self.mirrors[timeline.session_id] = (timeline, mirror)
        self.tell_status(timelines)
        # Plan mode turned on while the turn ended, before the approval showed: it is withdrawn now.
        if self.child.withdraw_withheld_approval() is None:
            self.show("awaiting_approval")
        self.decided.wait()
        with self.lock:
            run, self.next_run = self.next_run, None
        if run is not None:
            self.show("running")
        return run

    def decide(
        self,
        decision: str,
        reason: str | None,
        always: bool | str,
        in_policy: bool = False,
        go_on: Callable[[], Any] | None = None,
    ) -> Any:
        """The person's decision on the approval shown on the parent — or, with `go_on` (which records it
        and returns the subagent's run), taken in the subagent's own conversation: the subagent goes on (or
        reads the rejection) and every shown copy says so; returns its run, or None when no approval of
        this subagent is shown."""
        with self.lock:
            if not self.mirrors or self.decided.is_set() or self.deciding:
                return None
            self.deciding = True
            try:
                if go_on is not None:
                    run = go_on()
                elif decision == "rejected":
                    run = self.child.reject(reason, wait=False)
                else:
                    run = self.child.approve(reason, always=always, in_policy=in_policy, wait=False)
            finally:
                self.deciding = False
            final = "approved_always" if decision == "approved" and always is not False else decision
            update = {"decision": final, "reason": reason}
            timelines = self.close_mirrors(update)
            self.next_run = run
            self.decided.set()
        self.tell_status(timelines)
        return run

    def follow_plan_mode(self, go_on: Callable[[], Any]) -> Any:
        """Plan mode turned on while the subagent waits for the approval of a call plan mode withholds:
        `go_on` (the subagent's own) withdraws the approval, answering the call that it was not run, and
        starts the turn again from where it paused; every shown copy expires, and the subagent goes on.
        Returns its run, or None when no such approval waits."""
        with self.lock:
            if not self.mirrors or self.decided.is_set():
                return None  # nothing shown yet (await_decision looks once it is) or already decided
            run = go_on()
            if run is None:
                return None
            timelines = self.close_mirrors({"decision": "expired"})
            self.next_run = run
            self.decided.set()
        self.tell_status(timelines)
        return run

    def close_mirrors(self, update: dict[str, Any]) -> list[StoredTimeline]:
        """Write the decision (or the expiry) on every shown copy of the approval; returns their timelines."""
        shown, self.mirrors = list(self.mirrors.values()), {}
        for timeline, mirror in shown:
            timeline.save(mirror.model_copy(update=update))
        return [timeline for timeline, _ in shown]

    def stop(self) -> None:
        """Stop the subagent (its own background work too); its result says it was stopped."""
        with self.lock:
            if self.stopping:  # the subagent's own stop asks again: once is enough
                return
            self.stopping = True
        self.child.stop()
        with self.lock:
            timelines = self.close_mirrors({"decision": "expired"})  # nobody will answer them now
            self.decided.set()
        self.tell_status(timelines)

    def show(self, state: TaskState, result: str | None = None) -> None:
        """The task's state on the parent's `subagent` card."""
        TASKS.set_state(self.task, state, result)
        card = self.parent.find(self.task.card_id or "")
        if isinstance(card, Subagent):
            self.parent.save(
                card.model_copy(update={"state": self.task.state, "result": self.task.result or None})
            )

    def end(self, state: TaskState, result: str) -> None:
        """The subagent ended: its result waits to be collected, and its card says how it ended."""
        SUPERVISORS.pop(self.task.id, None)
        self.show(state, result)


def waiting_supervisor(session_id: str, depth: int = 0) -> Supervisor | None:
    """The supervisor of a subagent of the session — or of a subagent's own subagent — whose approval
    waits (the first one, if several wait)."""
    tasks = [task for task in TASKS.of(session_id) if not task.ended]
    for task in tasks:
        supervisor = SUPERVISORS.get(task.id)
        if supervisor is not None and supervisor.mirrors:
            return supervisor
    if depth < MAX_DEPTH:
        for task in tasks:
            found = waiting_supervisor(task.child_session, depth + 1) if task.child_session else None
            if found is not None:
                return found
    return None


def supervisor_of(child_session: str) -> Supervisor | None:
    """The supervisor of this process that follows the subagent session `child_session`, or None."""
    task = TASKS.by_child(child_session)
    return SUPERVISORS.get(task.id) if task is not None else None


def subagent_approval(session_id: str) -> Approval | None:
    """A subagent's approval waiting for the person, as shown on this session's timeline, or None."""
    supervisor = waiting_supervisor(session_id)
    return supervisor.mirror_on(session_id) if supervisor is not None else None


def decide_for_subagent(
    session_id: str, decision: str, reason: str | None, always: bool | str, in_policy: bool = False
) -> Any:
    """Answer the approval a subagent of the session (at any depth) waits for; returns the subagent's run
    that goes on, or None when none waits."""
    supervisor = waiting_supervisor(session_id)
    return supervisor.decide(decision, reason, always, in_policy) if supervisor is not None else None
