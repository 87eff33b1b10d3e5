"""Task rows: a session's background work (subagents, background commands) as every process sees it —
who owns it, its heartbeat, and a stop request that its owner reads at the next beat."""

from __future__ import annotations

import sqlite3
import time

from .runs import is_stale

ENDED = ("completed", "failed", "stopped")


def record_task(
    conn: sqlite3.Connection,
    task_id: str,
    session_id: str,
    kind: str,
    label: str,
    child_session: str | None,
    owner: str,
) -> None:
    """Store a task that has just started in this process."""
    now = time.time()
    conn.execute(
        "INSERT INTO tasks (id, session_id, kind, label, child_session, state, owner, started_at, "
        "heartbeat_at) VALUES (?, ?, ?, ?, ?, 'running', ?, ?, ?) ON CONFLICT (id) DO UPDATE SET "
        "session_id = excluded.session_id, kind = excluded.kind, label = excluded.label, "
        "child_session = excluded.child_session, state = 'running', owner = excluded.owner, "
        "started_at = excluded.started_at, heartbeat_at = excluded.heartbeat_at, ended_at = NULL, "
        "stop_requested = 0",
        (task_id, session_id, kind, label, child_session, owner, now, now),
    )


def set_task_state(conn: sqlite3.Connection, task_id: str, state: str) -> None:
    """Move a task to `state`; an ended state closes it."""
    ended = time.time() if state in ENDED else None
    conn.execute("UPDATE tasks SET state = ?, ended_at = ? WHERE id = ?", (state, ended, task_id))


def set_task_child(conn: sqlite3.Connection, task_id: str, child_session: str) -> None:
    """The session a task follows now (a workflow's step at work), so that every process finds it."""
    conn.execute("UPDATE tasks SET child_session = ? WHERE id = ?", (child_session, task_id))


def beat_task(conn: sqlite3.Connection, task_id: str) -> bool:
    """Renew a task's heartbeat; returns True when another process asked it to stop."""
    rows = conn.execute(
        "UPDATE tasks SET heartbeat_at = ? WHERE id = ? RETURNING stop_requested", (time.time(), task_id)
    ).fetchall()
    return bool(rows and rows[0][0])


def live_tasks(conn: sqlite3.Connection, session_id: str) -> list[sqlite3.Row]:
    """The session's tasks that have not ended and whose owner still lives, oldest first."""
    rows = conn.execute(
        "SELECT * FROM tasks WHERE session_id = ? AND ended_at IS NULL ORDER BY started_at", (session_id,)
    ).fetchall()
    now = time.time()
    return [row for row in rows if not is_stale(row, now)]


def request_task_stop(conn: sqlite3.Connection, task_id: str) -> None:
    """Ask a task's owner to stop it (it reads the request at its next beat)."""
    conn.execute("UPDATE tasks SET stop_requested = 1 WHERE id = ? AND ended_at IS NULL", (task_id,))


def live_task_of_child(conn: sqlite3.Connection, child_session: str) -> sqlite3.Row | None:
    """The live task (its owner alive) that follows the subagent session `child_session`, or None."""
    rows = conn.execute(
        "SELECT * FROM tasks WHERE child_session = ? AND ended_at IS NULL", (child_session,)
    ).fetchall()
    now = time.time()
    return next((row for row in rows if not is_stale(row, now)), None)
