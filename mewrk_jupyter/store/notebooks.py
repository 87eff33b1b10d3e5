"""Rows of the sessions notebooks used: per notebook path, the last session (cell "") and the session
each cell showed."""

from __future__ import annotations

import sqlite3

WHOLE_NOTEBOOK = ""  # the cell name of a notebook's own row: the session it used last


def remember(conn: sqlite3.Connection, notebook: str, cell: str, session_id: str, at: float) -> None:
    """Record that `cell` of `notebook` (WHOLE_NOTEBOOK: the notebook itself) used `session_id` now."""
    conn.execute(
        "INSERT INTO notebook_sessions (notebook, cell, session_id, used_at) VALUES (?, ?, ?, ?) ON CONFLICT "
        "(notebook, cell) DO UPDATE SET session_id = excluded.session_id, used_at = excluded.used_at",
        (notebook, cell, session_id, at),
    )


def recall(conn: sqlite3.Connection, notebook: str, cell: str) -> str | None:
    """The session `cell` of `notebook` used last (WHOLE_NOTEBOOK: the notebook), if it still exists."""
    row = conn.execute(
        "SELECT n.session_id FROM notebook_sessions n JOIN sessions s ON s.id = n.session_id "
        "WHERE n.notebook = ? AND n.cell = ?",
        (notebook, cell),
    ).fetchone()
    return row[0] if row is not None else None
