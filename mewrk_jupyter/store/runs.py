"""Run rows: one turn per session held in the store, with a heartbeat and a stop request (R1–R5)."""

from __future__ import annotations

import json
import os
import socket
import sqlite3
import time
from typing import Any

# A running turn whose owner has not beaten its heart for this long is taken to have crashed.
STALE_AFTER = 20.0


def current_run(conn: sqlite3.Connection, session_id: str) -> sqlite3.Row | None:
    """The session's running turn, or None."""
    return conn.execute(
        "SELECT * FROM runs WHERE session_id = ? AND state = 'running'", (session_id,)
    ).fetchone()


def running_runs(conn: sqlite3.Connection) -> list[sqlite3.Row]:
    """The running turn of every session that has one."""
    return conn.execute("SELECT * FROM runs WHERE state = 'running'").fetchall()


def _owner_gone(owner: str) -> bool:
    """True when the owner ran on this host and its process no longer exists."""
    host, _, rest = owner.partition(":")
    pid = rest.partition(":")[0]
    if host != socket.gethostname() or not pid.isdigit():
        return False
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def is_stale(row: sqlite3.Row, now: float | None = None) -> bool:
    """True when the owner of a running turn crashed: its process is gone or its heart stopped beating.

    A row of the team store also knows whether its owner is still connected to the database, wherever
    it runs (store/postgres.py): a server killed on another machine is seen at once, not after its heart
    stopped for STALE_AFTER."""
    if ((now or time.time()) - row["heartbeat_at"]) > STALE_AFTER or _owner_gone(row["owner"]):
        return True
    connected = getattr(row, "owner_gone", None)
    return bool(connected is not None and connected(row["owner"]))


def claim_turn(conn: sqlite3.Connection, session_id: str, run_id: str, owner: str) -> sqlite3.Row | None:
    """Start a turn unless one runs; returns the running row that refused the claim, else None."""
    running = current_run(conn, session_id)
    now = time.time()
    if running is not None:
        if not is_stale(running, now):
            return running
        end_run(conn, running["id"], "interrupted", "its process stopped while the turn ran")
    conn.execute(
        "INSERT INTO runs (id, session_id, state, owner, started_at, heartbeat_at) VALUES (?, ?, 'running', ?, ?, ?)",
        (run_id, session_id, owner, now, now),
    )
    return None


def beat(conn: sqlite3.Connection, run_id: str) -> bool:
    """Renew a run's heartbeat; returns True when someone asked it to stop."""
    conn.execute("UPDATE runs SET heartbeat_at = ? WHERE id = ?", (time.time(), run_id))
    row = conn.execute("SELECT stop_requested FROM runs WHERE id = ?", (run_id,)).fetchone()
    return bool(row and row[0])


def request_stop(conn: sqlite3.Connection, session_id: str) -> str | None:
    """Ask the session's running turn to stop, whoever owns it; returns its run id."""
    running = current_run(conn, session_id)
    if running is None:
        return None
    conn.execute("UPDATE runs SET stop_requested = 1 WHERE id = ?", (running["id"],))
    return running["id"]


def end_run(conn: sqlite3.Connection, run_id: str, state: str, error: str | None = None) -> None:
    """Close a run with its final state: done, stopped, interrupted or error."""
    conn.execute(
        "UPDATE runs SET state = ?, ended_at = ?, error = ? WHERE id = ?", (state, time.time(), error, run_id)
    )


def get_run(conn: sqlite3.Connection, run_id: str) -> sqlite3.Row | None:
    """One run by its id, or None."""
    return conn.execute("SELECT * FROM runs WHERE id = ?", (run_id,)).fetchone()


def list_runs(conn: sqlite3.Connection, session_id: str) -> list[sqlite3.Row]:
    """A session's runs, oldest first."""
    return conn.execute(
        "SELECT * FROM runs WHERE session_id = ? ORDER BY started_at", (session_id,)
    ).fetchall()


def append_events(conn: sqlite3.Connection, run_id: str, events: list[tuple[str, dict[str, Any]]]) -> None:
    """Append a batch of a run's events (coalesced by the caller, not one row per token)."""
    row = conn.execute("SELECT coalesce(max(seq), 0) FROM run_events WHERE run_id = ?", (run_id,)).fetchone()
    seq = row[0]
    now = time.time()
    conn.executemany(
        "INSERT INTO run_events (run_id, seq, at, kind, data) VALUES (?, ?, ?, ?, ?)",
        [(run_id, seq + i + 1, now, kind, json.dumps(data)) for i, (kind, data) in enumerate(events)],
    )


def load_events(conn: sqlite3.Connection, run_id: str, after: int = 0) -> list[sqlite3.Row]:
    """A run's events after a sequence number."""
    return conn.execute(
        "SELECT * FROM run_events WHERE run_id = ? AND seq > ? ORDER BY seq", (run_id, after)
    ).fetchall()
