"""Session rows: title, parent, settings, and a revision that every change bumps."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Callable
from typing import Any


def create_session(
    conn: sqlite3.Connection,
    session_id: str,
    title: str,
    settings: dict[str, Any],
    parent_id: str | None,
    handover_of: str | None = None,
) -> None:
    """Add a session row; `handover_of` names the session it continues after a compaction."""
    conn.execute(
        "INSERT INTO sessions (id, title, parent_id, created_at, settings, rev, handover_of) "
        "VALUES (?, ?, ?, ?, ?, 0, ?)",
        (session_id, title, parent_id, time.time(), json.dumps(settings), handover_of),
    )


def handovers_of(conn: sqlite3.Connection, session_id: str) -> list[sqlite3.Row]:
    """The sessions that continue `session_id` after a compaction (id and title), oldest first."""
    return conn.execute(
        "SELECT id, title FROM sessions WHERE handover_of = ? ORDER BY created_at, rowid", (session_id,)
    ).fetchall()


def last_handover_at(conn: sqlite3.Connection, session_id: str) -> float | None:
    """When the newest session that continues `session_id` was made (a handover), or None."""
    row = conn.execute("SELECT MAX(created_at) FROM sessions WHERE handover_of = ?", (session_id,)).fetchone()
    return row[0] if row is not None else None


# The `subagent` column: 0 a conversation, 1 a subagent's own, 2 a workflow step's own (a subagent whose
# timeline is a read-only record of the step).
SUBAGENT, WORKFLOW_STEP = 1, 2


def set_subagent(conn: sqlite3.Connection, session_id: str, subagent: bool | int = True) -> None:
    """Mark a session as a subagent's own (it never compacts into a new session by itself); `WORKFLOW_STEP`
    marks a workflow step's."""
    conn.execute("UPDATE sessions SET subagent = ? WHERE id = ?", (int(subagent), session_id))


def subagents_of(conn: sqlite3.Connection, session_id: str) -> list[sqlite3.Row]:
    """The subagent sessions `session_id` started (id and title), its workflows' steps too, oldest first."""
    return conn.execute(
        "SELECT id, title FROM sessions WHERE parent_id = ? AND subagent != 0 ORDER BY created_at, rowid",
        (session_id,),
    ).fetchall()


def get_session(conn: sqlite3.Connection, session_id: str) -> sqlite3.Row | None:
    """The row of one session, or None."""
    return conn.execute("SELECT * FROM sessions WHERE id = ?", (session_id,)).fetchone()


def plan_mode_of(conn: sqlite3.Connection, session_id: str) -> bool | None:
    """The session's stored plan mode, read alone (not the whole settings); None when there is no session."""
    row = conn.execute(
        "SELECT CAST(settings ->> 'plan_mode' AS TEXT) FROM sessions WHERE id = ?", (session_id,)
    ).fetchone()
    return None if row is None else row[0] in ("1", "true")  # SQLite says 1, PostgreSQL true


def is_subagent(conn: sqlite3.Connection, session_id: str) -> bool:
    """Whether the session is a subagent's own (see set_subagent)."""
    row = conn.execute("SELECT subagent FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return bool(row and row[0])


def find_session_ids(conn: sqlite3.Connection, prefix: str) -> list[str]:
    """Session ids that start with `prefix`."""
    rows = conn.execute(
        "SELECT id FROM sessions WHERE substr(id, 1, CAST(? AS INTEGER)) = ? LIMIT 5", (len(prefix), prefix)
    ).fetchall()
    return [row[0] for row in rows]


def list_sessions(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """Every session row, oldest first."""
    return conn.execute("SELECT * FROM sessions ORDER BY created_at, id").fetchall()


def bump_rev_later(conn: sqlite3.Connection, session_id: str) -> Callable[[], int]:
    """Mark the session changed, and how to read the new revision once the transaction has ended: on a team
    store the statement then goes in one flight with the transaction's COMMIT (SQLite reads it at once,
    since it commits nothing with a statement's rows unread)."""
    cursor = conn.execute("UPDATE sessions SET rev = rev + 1 WHERE id = ? RETURNING rev", (session_id,))
    if isinstance(conn, sqlite3.Connection):
        rev = cursor.fetchall()[0][0]
        return lambda: int(rev)
    return lambda: int(cursor.fetchall()[0][0])


def rev_and_running(conn: sqlite3.Connection, session_id: str) -> tuple[int, bool]:
    """The session's current revision, and whether a run of it is marked running (perhaps a dead one's):
    what an edit asks before it changes anything, in one query."""
    row = conn.execute(
        "SELECT rev, EXISTS (SELECT 1 FROM runs WHERE session_id = ? AND state = 'running') "
        "FROM sessions WHERE id = ?",
        (session_id, session_id),
    ).fetchone()
    return (row[0], bool(row[1])) if row else (-1, False)


def get_rev(conn: sqlite3.Connection, session_id: str) -> int:
    """The session's current revision."""
    row = conn.execute("SELECT rev FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return row[0] if row else -1


def set_title(conn: sqlite3.Connection, session_id: str, title: str) -> None:
    """Rename the session."""
    conn.execute("UPDATE sessions SET title = ? WHERE id = ?", (title, session_id))


def set_settings(conn: sqlite3.Connection, session_id: str, settings: dict[str, Any]) -> None:
    """Replace the session's settings."""
    conn.execute("UPDATE sessions SET settings = ? WHERE id = ?", (json.dumps(settings), session_id))
