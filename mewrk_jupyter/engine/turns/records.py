"""What the store keeps of a session's runs, read back for any client (R5): each run's state and times,
and its events in order, so that a client that lost its connection reads the rest by run id."""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from pydantic import BaseModel

from ...errors import RunNotFound
from ...store import runs as run_rows


class RunInfo(BaseModel):
    """One run of a session: whether it still runs, how it ended, when."""

    id: str
    session_id: str
    state: str  # running, done, stopped, awaiting_approval, interrupted, error
    running: bool
    started_at: float
    ended_at: float | None
    error: str | None


class RunEvent(BaseModel):
    """One stored event of a run; `seq` counts from 1 in the order the run wrote them."""

    seq: int
    at: float
    kind: str  # text (streamed text of a card, coalesced) or tool_call
    data: dict[str, Any]


def info_of(row: sqlite3.Row) -> RunInfo:
    """A run row read as a RunInfo."""
    return RunInfo(
        id=row["id"],
        session_id=row["session_id"],
        state=row["state"],
        running=row["state"] == "running",
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        error=row["error"],
    )


def session_runs(conn: sqlite3.Connection, session_id: str) -> list[RunInfo]:
    """A session's runs, oldest first."""
    return [info_of(row) for row in run_rows.list_runs(conn, session_id)]


def find_run(conn: sqlite3.Connection, run_id: str, session_id: str | None = None) -> RunInfo:
    """One run by id (of the given session when one is given); RunNotFound says what exists."""
    row = run_rows.get_run(conn, run_id)
    if row is None or (session_id is not None and row["session_id"] != session_id):
        where = f"session `{session_id}`" if session_id is not None else "this workspace"
        raise RunNotFound(f"No run `{run_id}` in {where}; runs() lists the runs of a session.")
    return info_of(row)


def events_after(conn: sqlite3.Connection, run_id: str, after: int | None) -> list[RunEvent]:
    """A run's stored events after the sequence number `after` (all of them when None)."""
    rows = run_rows.load_events(conn, run_id, after or 0)
    return [RunEvent(seq=r["seq"], at=r["at"], kind=r["kind"], data=json.loads(r["data"])) for r in rows]
