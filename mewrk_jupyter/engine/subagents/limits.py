"""How far subagents may go: how deep subagents of subagents nest, and how many run at once under one
conversation. A model that spawns in a loop (an agent whose task makes it spawn itself) is refused with a
sentence instead of starting sessions, threads and model calls without end."""

from __future__ import annotations

import sqlite3

from ...store import sessions as session_rows
from ..background.tasks import TASKS

# A conversation's own subagent is at depth 1; one at MAX_DEPTH may not start subagents of its own.
MAX_DEPTH = 3
# Subagents running at once under one conversation, at every depth (in this process).
MAX_RUNNING = 8


def chain_up(conn: sqlite3.Connection, session_id: str) -> list[str]:
    """The session and the sessions that spawned it, up to the conversation that is no subagent."""
    chain = [session_id]
    row = session_rows.get_session(conn, session_id)
    # Bounded by the rows that exist; the length check also guards against a cycle in a damaged store.
    while row is not None and row["subagent"] and row["parent_id"] and len(chain) <= MAX_DEPTH + 1:
        chain.append(row["parent_id"])
        row = session_rows.get_session(conn, row["parent_id"])
    return chain


def running_under(session_id: str, depth: int = 0) -> int:
    """How many subagents run under the session, its subagents' own included."""
    found = 0
    for task in TASKS.of(session_id):
        # A workflow counts from its start, before its first step's session exists.
        if task.kind == "subagent" and task.child_session or task.kind == "workflow":
            found += 0 if task.ended else 1
            if depth < MAX_DEPTH and task.child_session:
                found += running_under(task.child_session, depth + 1)
    return found


def spawn_refusal(conn: sqlite3.Connection, session_id: str) -> str | None:
    """Why the session may not start a subagent now (one sentence), or None when it may."""
    chain = chain_up(conn, session_id)
    if len(chain) > MAX_DEPTH:
        return (
            f"a subagent {MAX_DEPTH} levels deep may not start subagents of its own; do this task yourself."
        )
    if running_under(chain[-1]) >= MAX_RUNNING:
        return (
            f"{MAX_RUNNING} subagents already run in this conversation; collect one with `task_wait` "
            "first, or do this task yourself."
        )
    return None
