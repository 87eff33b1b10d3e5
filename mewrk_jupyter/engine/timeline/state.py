"""What state a session is in — its turn running, an approval waiting, or idle — as the store says, for
every process alike (R4)."""

from __future__ import annotations

import sqlite3

from ...store import approvals as resume_rows
from ...store import cards as card_rows
from ...store import runs as run_rows
from ..events import SessionState


def state_of(conn: sqlite3.Connection, session_id: str) -> SessionState:
    """running, awaiting_approval, subagent_awaiting_approval or idle, read from the store."""
    row = run_rows.current_run(conn, session_id)
    if row is not None and not run_rows.is_stale(row):
        return "running"
    if resume_rows.has_resume_point(conn, session_id):
        return "awaiting_approval"
    return state_between(conn, session_id)


def states_of(conn: sqlite3.Connection) -> dict[str, SessionState]:
    """The state of every session that is not idle, as state_of reads it, in three queries however many
    sessions there are: a listing asks for all of them, and each query is a round trip to the team store."""
    states: dict[str, SessionState] = dict.fromkeys(
        card_rows.sessions_waiting_on_subagent(conn), "subagent_awaiting_approval"
    )
    states |= dict.fromkeys(resume_rows.sessions_with_resume_point(conn), "awaiting_approval")
    running = [row["session_id"] for row in run_rows.running_runs(conn) if not run_rows.is_stale(row)]
    return states | dict.fromkeys(running, "running")


def state_between(conn: sqlite3.Connection, session_id: str) -> SessionState:
    """The state of a session none of whose turns runs or waits: whether a subagent's approval waits."""
    return "subagent_awaiting_approval" if card_rows.waiting_subagent(conn, session_id) else "idle"
