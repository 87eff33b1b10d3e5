"""What the store holds, read as the public views: the workspace's sessions and a history row."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ..store import sessions as session_rows
from ..store.db import database
from .timeline.state import states_of
from .turns.records import find_run
from .views import HistoryEntry, SessionInfo, SessionInfoList
from .workspace import Workspace


def list_sessions(workspace: str | Path | None = None) -> SessionInfoList:
    """Every session of the workspace: id, title, state and parent (N1, T11)."""
    ws = Workspace.at(workspace)
    db = database(ws.store)
    conn = db.conn()
    out = SessionInfoList()
    states = states_of(conn)
    for row in session_rows.list_sessions(conn):
        out.append(
            SessionInfo(
                id=row["id"],
                title=row["title"],
                state=states.get(row["id"], "idle"),
                parent=row["parent_id"],
                created_at=row["created_at"],
                model=json.loads(row["settings"]).get("model", ""),
            )
        )
    return out


def session_of_run(run_id: str, workspace: str | Path | None = None) -> str:
    """The id of the session a run belongs to (RunNotFound when the workspace has no such run)."""
    ws = Workspace.at(workspace)
    return find_run(database(ws.store).conn(), run_id).session_id


def history_entry_of(row: dict[str, Any]) -> HistoryEntry:
    """One stored history row (as store.history reads it back), read as the entry `s.history` lists."""
    return HistoryEntry(
        id=row["id"],
        number=row["number"],
        run_id=row["run_id"],
        model=row["model"],
        protocol=row["protocol"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        request=row["request"],
        response=row["response"],
        error=row["error"],
    )
