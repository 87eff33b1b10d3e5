"""Background work of a session — subagents and background commands that run beside its turns.

Each piece of work is a `BackgroundTask` in this process's registry, under the session that started it,
and a row of the store's `tasks` table beaten for by its owner (turns/background_rows.py), so that every
process sees it. What must wait for background work (a handoff, a compaction into a new session) asks
`running_background_work`, which reads both; `task_wait` waits here; the next request of the session delivers what
finished and was not collected (turns/background_results.py); stopping the session stops its work.
"""

from __future__ import annotations

import sqlite3
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from ...store import runs as run_rows
from ...store import sessions as session_rows
from ...store import tasks as task_rows

TaskState = Literal["running", "awaiting_approval", "completed", "failed", "stopped"]
ENDED: tuple[TaskState, ...] = ("completed", "failed", "stopped")


def new_task_id() -> str:
    """A fresh task id, short enough to type: `task_` and 8 hex digits."""
    return "task_" + uuid.uuid4().hex[:8]


@dataclass(eq=False)
class BackgroundTask:
    """One piece of background work: what it is, where its result goes, and how it ended."""

    session_id: str  # the session that started it, which receives its result
    kind: Literal["subagent", "command", "workflow"]
    label: str  # how a sentence names it: "subagent `helper`", "command `make test`"
    call_card: str  # the tool-call card that started it
    as_output: bool = False  # async tool calls: the result becomes that call's output
    id: str = field(default_factory=new_task_id)
    state: TaskState = "running"
    result: str = ""
    collected: bool = False  # the model has it (task_wait, a notification, or the call's output)
    child_session: str | None = None  # a subagent's own session
    workspace: str | None = None  # where that session is stored
    card_id: str | None = None  # the subagent card on the starting session's timeline
    stop: Callable[[], None] = lambda: None
    started_at: float = field(default_factory=time.time)
    done: threading.Event = field(default_factory=threading.Event)
    # Told of each change of state (the store's row follows it), outside the registry's lock.
    on_change: Callable[[BackgroundTask], None] | None = None

    @property
    def ended(self) -> bool:
        """Whether the work has finished, however it finished."""
        return self.state in ENDED

    def describe(self) -> str:
        """The work in a few words, with its id: "subagent `helper` (task_1a2b3c4d)"."""
        waiting = ", waiting for an approval" if self.state == "awaiting_approval" else ""
        return f"{self.label} ({self.id}{waiting})"


class BackgroundRegistry:
    """The background tasks of this process, by session; `changed` wakes whoever waits for one to end."""

    def __init__(self) -> None:
        self._tasks: dict[str, BackgroundTask] = {}
        self.changed = threading.Condition()

    def add(self, task: BackgroundTask) -> BackgroundTask:
        """Register a task that has just started."""
        with self.changed:
            self._tasks[task.id] = task
            self.changed.notify_all()
        return task

    def get(self, task_id: str) -> BackgroundTask | None:
        """The task with this id, or None."""
        return self._tasks.get(task_id)

    def of(self, session_id: str) -> list[BackgroundTask]:
        """The session's tasks, oldest first."""
        with self.changed:
            return [task for task in self._tasks.values() if task.session_id == session_id]

    def by_child(self, child_session: str) -> BackgroundTask | None:
        """The subagent task whose own session is `child_session`, if this process started it."""
        with self.changed:
            return next((t for t in self._tasks.values() if t.child_session == child_session), None)

    def set_state(self, task: BackgroundTask, state: TaskState, result: str | None = None) -> None:
        """Move a task to `state` (with its result once it ended) and wake the waiters."""
        with self.changed:
            if task.ended:  # the first ending stands: a stop that comes after the result changes nothing
                return
            task.state = state
            if result is not None:
                task.result = result
        if task.on_change is not None:  # the store first: whoever waits for `done` reads the row ended
            task.on_change(task)
        with self.changed:
            if task.ended:
                task.done.set()
            self.changed.notify_all()

    def wait(self, tasks: list[BackgroundTask], timeout: float, cancelled: Callable[[], bool]) -> bool:
        """Wait until every task in `tasks` ended, `timeout` seconds passed or `cancelled()`; True when
        all ended."""
        deadline = time.monotonic() + timeout
        with self.changed:
            while not all(task.ended for task in tasks):
                left = deadline - time.monotonic()
                if left <= 0 or cancelled():
                    return False
                self.changed.wait(min(left, 0.2))  # a stop is read at least this often
        return True

    def forget_all(self) -> list[BackgroundTask]:
        """Stop every task and forget them all, as if this were a new process; returns those that still
        ran (a caller may wait for their `done`)."""
        with self.changed:
            tasks, self._tasks = list(self._tasks.values()), {}
        running = [task for task in tasks if not task.ended]
        for task in running:
            task.stop()
        return running


TASKS = BackgroundRegistry()


ELSEWHERE = "in another process"


def running_background_work(session_id: str, conn: sqlite3.Connection | None = None) -> list[str]:
    """What runs in the background for the session, one short description each: this process's tasks,
    and with the store's connection those another live process runs — its task rows, and any subagent
    session of the session whose turn runs there."""
    mine = [task for task in TASKS.of(session_id) if not task.ended]
    work = [task.describe() for task in mine]
    if conn is None:
        return work
    children = {task.child_session for task in mine}
    for row in task_rows.live_tasks(conn, session_id):
        if TASKS.get(row["id"]) is not None:  # this process's own: said above, or just ended here
            continue
        waiting = ", waiting for an approval" if row["state"] == "awaiting_approval" else ""
        work.append(f"{row['label']} ({row['id']}{waiting}, {ELSEWHERE})")
        children.add(row["child_session"])
    for row in session_rows.subagents_of(conn, session_id):
        run = run_rows.current_run(conn, row["id"])
        if row["id"] not in children and run is not None and not run_rows.is_stale(run):
            work.append(f"subagent session `{row['title']}` ({row['id']}, its turn running {ELSEWHERE})")
    return work


def stop_work_elsewhere(session_id: str, conn: sqlite3.Connection) -> bool:
    """Ask the processes that run the session's other background tasks to stop them (each reads the
    request at its next beat); True when one was asked."""
    asked = False
    for row in task_rows.live_tasks(conn, session_id):
        if TASKS.get(row["id"]) is None:
            task_rows.request_task_stop(conn, row["id"])
            asked = True
    return asked


def stop_background_work(session_id: str) -> list[BackgroundTask]:
    """Stop every task of the session that still runs (a subagent stops its own in turn); returns them."""
    stopped = [task for task in TASKS.of(session_id) if not task.ended]
    for task in stopped:
        task.stop()
    return stopped


def still_running(work: list[str], then: str) -> str:
    """The refusal while background work runs: what runs, and what to do ("then hand off")."""
    return (
        f"Background work is still running ({', '.join(work)}), and a new session would leave it behind: "
        f"wait for it to finish, {then}."
    )
