"""Resume points (A3): where a turn paused for an approval, so any process can go on from there."""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any


def put_resume_point(
    conn: sqlite3.Connection, session_id: str, approval_id: str, data: dict[str, Any]
) -> None:
    """Store the resume point of the approval card `approval_id`."""
    conn.execute(
        "INSERT INTO resume_points (session_id, approval_id, created_at, data) VALUES (?, ?, ?, ?) ON CONFLICT "
        "(session_id, approval_id) DO UPDATE SET created_at = excluded.created_at, data = excluded.data",
        (session_id, approval_id, time.time(), json.dumps(data)),
    )


def get_resume_point(conn: sqlite3.Connection, session_id: str, approval_id: str) -> dict[str, Any] | None:
    """The stored resume point of an approval, or None when it is gone."""
    row = conn.execute(
        "SELECT data FROM resume_points WHERE session_id = ? AND approval_id = ?", (session_id, approval_id)
    ).fetchone()
    return json.loads(row[0]) if row else None


def waiting_approval_id(conn: sqlite3.Connection, session_id: str) -> str | None:
    """The approval card whose turn is paused, newest first, or None."""
    row = conn.execute(
        "SELECT approval_id FROM resume_points WHERE session_id = ? ORDER BY created_at DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    return row[0] if row else None


def has_resume_point(conn: sqlite3.Connection, session_id: str) -> bool:
    """True when a turn of the session waits for an approval."""
    row = conn.execute("SELECT 1 FROM resume_points WHERE session_id = ? LIMIT 1", (session_id,)).fetchone()
    return row is not None


def sessions_with_resume_point(conn: sqlite3.Connection) -> set[str]:
    """The sessions a turn of which waits for an approval."""
    return {row[0] for row in conn.execute("SELECT DISTINCT session_id FROM resume_points").fetchall()}


def drop_resume_point(conn: sqlite3.Connection, session_id: str, approval_id: str) -> None:
    """Forget a resume point once its approval is decided."""
    conn.execute(
        "DELETE FROM resume_points WHERE session_id = ? AND approval_id = ?", (session_id, approval_id)
    )
