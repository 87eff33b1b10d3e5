"""Background work in the store: each task of this process is a row of the `tasks` table, its state
followed and its heartbeat renewed, so that another process (a kernel, the HTTP API) sees what runs
here — a handoff or compaction there refuses while it runs — and a stop asked there reaches it."""

from __future__ import annotations

import logging
import os
import socket
import uuid

from ...store import tasks as task_rows
from ...store.db import Database
from .heartbeat import Heartbeat
from .tasks import BackgroundTask

log = logging.getLogger(__name__)

BEAT_EVERY = 2.0  # seconds between beats; a row silent for runs.STALE_AFTER is taken as its owner's crash
OWNER = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
TASK_HEARTBEAT = Heartbeat(lambda: BEAT_EVERY)


class StoredTask:
    """One task's row: its heartbeat, and the stop another process asks for through it."""

    def __init__(self, task: BackgroundTask, db: Database) -> None:
        self.task = task
        self.db = db

    @property
    def done(self) -> bool:
        """Whether the task ended (its row is closed, nothing more to beat)."""
        return self.task.ended

    def beat(self) -> bool:
        """Renew the row's heartbeat; a stop asked elsewhere stops the task here."""
        try:
            with self.db.tx() as conn:
                stop_asked = task_rows.beat_task(conn, self.task.id)
        except Exception:  # a busy or closed store: the next beat tries again
            return True
        if stop_asked:
            self.task.stop()
        return True

    def follow(self, task: BackgroundTask) -> None:
        """Write the task's new state to its row."""
        try:
            with self.db.tx() as conn:
                task_rows.set_task_state(conn, task.id, task.state)
        except Exception:  # the store's row goes stale and reads as ended; the task itself goes on
            log.exception("the state of task %s could not be stored", task.id)


def track(task: BackgroundTask, db: Database) -> BackgroundTask:
    """Store a task that has just started in this process and keep its row alive while it runs."""
    with db.tx() as conn:
        task_rows.record_task(
            conn, task.id, task.session_id, task.kind, task.label, task.child_session, OWNER
        )
    stored = StoredTask(task, db)
    task.on_change = stored.follow
    TASK_HEARTBEAT.add(stored)
    return task
