"""History rows (T17): each request exactly as sent, with what came back, apart from the timeline."""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any


def record_request(
    conn: sqlite3.Connection,
    session_id: str,
    run_id: str | None,
    model: str,
    protocol: str,
    request: dict[str, Any],
) -> int:
    """Store a request as it is sent; returns the history row id."""
    cur = conn.execute(
        "INSERT INTO history (session_id, run_id, started_at, model, protocol, request) VALUES (?, ?, ?, ?, ?, ?)",
        (session_id, run_id, time.time(), model, protocol, json.dumps(request, ensure_ascii=False)),
    )
    assert cur.lastrowid is not None  # an INSERT always sets it
    return cur.lastrowid


def record_response(
    conn: sqlite3.Connection, entry_id: int, response: dict[str, Any], error: str | None = None
) -> None:
    """Store what came back for a request (and the error, if the exchange failed)."""
    conn.execute(
        "UPDATE history SET response = ?, error = ?, ended_at = ? WHERE id = ?",
        (json.dumps(response, ensure_ascii=False), error, time.time(), entry_id),
    )


def load_history(conn: sqlite3.Connection, session_id: str) -> list[sqlite3.Row]:
    """Every history row of a session, oldest first, each with its `number` in the session (from 1)."""
    return conn.execute(
        "SELECT *, ROW_NUMBER() OVER (ORDER BY id) AS number FROM history WHERE session_id = ? ORDER BY id",
        (session_id,),
    ).fetchall()


def load_entry(conn: sqlite3.Connection, session_id: str, entry_id: int) -> sqlite3.Row | None:
    """One history row of a session with its `number` in the session, or None."""
    return conn.execute(
        "SELECT *, (SELECT COUNT(*) FROM history AS h WHERE h.session_id = history.session_id AND h.id <= history.id)"
        " AS number FROM history WHERE session_id = ? AND id = ?",
        (session_id, entry_id),
    ).fetchone()


def last_answered(conn: sqlite3.Connection, session_id: str) -> tuple[int, dict[str, Any]] | None:
    """The id and usage figures of the session's most recent answered request, or None."""
    row = conn.execute(
        "SELECT id, json_extract(response, '$.usage') FROM history "
        "WHERE session_id = ? AND json_extract(response, '$.usage') IS NOT NULL ORDER BY id DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    return (int(row[0]), json.loads(row[1])) if row else None


def request_body(conn: sqlite3.Connection, entry_id: int) -> dict[str, Any] | None:
    """The body of one request exactly as sent, or None."""
    row = conn.execute("SELECT request FROM history WHERE id = ?", (entry_id,)).fetchone()
    return json.loads(row[0]) if row else None


USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def usage_by_model(conn: sqlite3.Connection, session_id: str) -> dict[str, dict[str, int]]:
    """Token figures summed over every answered request of the session, per model (D6)."""
    sums = ", ".join(f"SUM(COALESCE(json_extract(response, '$.usage.{f}'), 0))" for f in USAGE_FIELDS)
    rows = conn.execute(
        f"SELECT model, {sums} FROM history "
        "WHERE session_id = ? AND json_extract(response, '$.usage') IS NOT NULL GROUP BY model ORDER BY model",
        (session_id,),
    ).fetchall()
    return {row[0]: dict(zip(USAGE_FIELDS, map(int, row[1:]), strict=True)) for row in rows}
