"""History rows (T17): each request exactly as sent, with what came back, apart from the timeline.

A request is stored packed (store/parts.py): the messages and files it shares with the requests before
it are stored once, so a long session's history grows with what each request adds.
"""

from __future__ import annotations

import json
import sqlite3
import time
from typing import Any

from .parts import Reader, pack, reader, unpack, unpack_field

# Above every row's id: "before" no row in particular.
_LAST_ID = 2**63 - 1


def record_request(
    conn: sqlite3.Connection,
    session_id: str,
    run_id: str | None,
    model: str,
    protocol: str,
    request: dict[str, Any],
    started_at: float | None = None,
    neutral: dict[str, Any] | None = None,
) -> int:
    """Store a request as it was sent (at `started_at`, by default now), and beside it the neutral request
    it was built from (`neutral`, a ModelRequest's JSON), when there is one; returns the history row id."""
    cur = conn.execute(
        "INSERT INTO history (session_id, run_id, started_at, model, protocol, request, packed, neutral) "
        "VALUES (?, ?, ?, ?, ?, ?, 1, ?) RETURNING id",
        (
            session_id,
            run_id,
            started_at or time.time(),
            model,
            protocol,
            pack(conn, request),
            pack(conn, neutral) if neutral is not None else None,
        ),
    )
    return int(cur.fetchone()[0])


def record_response(
    conn: sqlite3.Connection, entry_id: int, response: dict[str, Any], error: str | None = None
) -> None:
    """Store what came back for a request (and the error, if the exchange failed)."""
    conn.execute(
        "UPDATE history SET response = ?, error = ?, ended_at = ? WHERE id = ?",
        (json.dumps(response, ensure_ascii=False), error, time.time(), entry_id),
    )


def _request_of(read: Reader, row: sqlite3.Row) -> Any:
    return unpack(read, row["request"]) if row["packed"] else json.loads(row["request"])


def _entry(read: Reader, row: sqlite3.Row) -> dict[str, Any]:
    """A history row as a dict, its request and response read back as the values that were recorded."""
    entry = dict(row)
    entry.pop("neutral", None)  # the engine's own form of the request: `request` is what was sent
    entry["request"] = _request_of(read, row)
    entry["response"] = json.loads(row["response"]) if row["response"] else None
    return entry


def load_history(conn: sqlite3.Connection, session_id: str) -> list[dict[str, Any]]:
    """Every history row of a session, oldest first, each with its `number` in the session (from 1)."""
    rows = conn.execute(
        "SELECT *, ROW_NUMBER() OVER (ORDER BY id) AS number FROM history WHERE session_id = ? ORDER BY id",
        (session_id,),
    ).fetchall()
    read = reader(conn)  # one reader for all rows: they share most of their parts
    return [_entry(read, row) for row in rows]


def request_spans(
    conn: sqlite3.Connection, session_id: str, since: float, until: float | None = None
) -> list[tuple[float, float]]:
    """When each answered model request (not a tool run) the session made from `since` (until before
    `until`) started and ended, oldest first, read without the requests themselves."""
    until_clause = " AND started_at < ?" if until is not None else ""
    rows = conn.execute(
        "SELECT started_at, ended_at FROM history WHERE session_id = ? AND protocol != 'tool' "
        f"AND ended_at IS NOT NULL AND started_at >= ?{until_clause} ORDER BY id",
        (session_id, since) if until is None else (session_id, since, until),
    ).fetchall()
    return [(float(row[0]), float(row[1])) for row in rows]


def load_entry(conn: sqlite3.Connection, session_id: str, entry_id: int) -> dict[str, Any] | None:
    """One history row of a session with its `number` in the session, or None."""
    row = conn.execute(
        "SELECT *, (SELECT COUNT(*) FROM history AS h WHERE h.session_id = history.session_id AND h.id <= history.id)"
        " AS number FROM history WHERE session_id = ? AND id = ?",
        (session_id, entry_id),
    ).fetchone()
    return _entry(reader(conn), row) if row is not None else None


def last_answered(
    conn: sqlite3.Connection, session_id: str, before: int | None = None
) -> tuple[int, dict[str, Any]] | None:
    """The id and usage figures of the session's most recent answered request of a turn (before the row
    `before`, when given), or None.

    A request that wrote a summary (its response marked `compaction`) carried the conversation with a
    question the next request will not ask: it says nothing of the context's size, and is passed over.
    """
    row = conn.execute(
        "SELECT id, response ->> 'usage' FROM history "
        "WHERE session_id = ? AND id < ? AND response ->> 'usage' IS NOT NULL "
        "AND response ->> 'compaction' IS NULL ORDER BY id DESC LIMIT 1",
        (session_id, _LAST_ID if before is None else before),
    ).fetchone()
    return (int(row[0]), json.loads(row[1])) if row else None


def last_measured(conn: sqlite3.Connection, session_id: str) -> tuple[int, dict[str, Any] | None] | None:
    """The session's most recent request of a turn that says how large the context was: answered (its
    id and usage), or stopped before the vendor counted it (its id and None); None before the first.

    A stopped request was sent all the same, so the figure is its size, not the one before it. Its stop
    reason is `stop` in the neutral record, `stop_reason` in a row stored before it (providers/record.py).
    """
    row = conn.execute(
        "SELECT id, response ->> 'usage' FROM history "
        "WHERE session_id = ? AND response ->> 'compaction' IS NULL "
        "AND (response ->> 'usage' IS NOT NULL "
        "OR COALESCE(response ->> 'stop', response ->> 'stop_reason') = 'stopped') "
        "ORDER BY id DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    if row is None:
        return None
    return int(row[0]), (json.loads(row[1]) if row[1] is not None else None)


def last_sent(conn: sqlite3.Connection, session_id: str) -> dict[str, Any] | None:
    """The session's most recent answered model request (not a tool run, not a provider's compaction,
    which offers no tools): its model, protocol, times and the tools it offered (read alone, not the
    whole body), and the tools of the neutral request it was built from (None in a row stored before
    rows kept it); None before the first."""
    row = conn.execute(
        "SELECT model, protocol, started_at, ended_at, request, packed, neutral FROM history "
        "WHERE session_id = ? AND protocol != 'tool' AND response IS NOT NULL AND error IS NULL "
        "AND COALESCE(response ->> 'compaction', '') != 'native' ORDER BY id DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    if row is None:
        return None
    if row["packed"]:
        tools = unpack_field(reader(conn), row["request"], "tools")
    else:
        tools = json.loads(row["request"]).get("tools")
    neutral = unpack_field(reader(conn), row["neutral"], "tools") if row["neutral"] else None
    kept = {key: row[key] for key in ("model", "protocol", "started_at", "ended_at")}
    return kept | {"tools": tools or [], "neutral_tools": neutral}


def request_body(conn: sqlite3.Connection, entry_id: int) -> dict[str, Any] | None:
    """The body of one request exactly as sent, or None."""
    row = conn.execute("SELECT request, packed FROM history WHERE id = ?", (entry_id,)).fetchone()
    return _request_of(reader(conn), row) if row else None


USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def usage_by_model(conn: sqlite3.Connection, session_id: str) -> dict[str, dict[str, int]]:
    """Token figures summed over every answered request of the session, per model (D6)."""
    sums = ", ".join(f"SUM(COALESCE(CAST(response -> 'usage' ->> '{f}' AS BIGINT), 0))" for f in USAGE_FIELDS)
    rows = conn.execute(
        f"SELECT model, {sums} FROM history "
        "WHERE session_id = ? AND response ->> 'usage' IS NOT NULL GROUP BY model ORDER BY model",
        (session_id,),
    ).fetchall()
    return {row[0]: dict(zip(USAGE_FIELDS, map(int, row[1:]), strict=True)) for row in rows}


def reported_costs(conn: sqlite3.Connection, session_id: str) -> dict[str, float]:
    """What the vendor said the session's answered requests cost, per model, where it said (D6)."""
    rows = conn.execute(
        "SELECT model, SUM(CAST(response ->> 'cost' AS DOUBLE PRECISION)) FROM history "
        "WHERE session_id = ? AND response ->> 'cost' IS NOT NULL GROUP BY model ORDER BY model",
        (session_id,),
    ).fetchall()
    return {row[0]: float(row[1]) for row in rows}
