"""Plan mode reaches the subagents at work: turning it on or off in a conversation turns it on or off in
each subagent of it still running (and in theirs), whose next request follows it, with the same host
message the conversation got. A subagent copies plan mode when it starts (spawn.py); this is for the
ones already going. One that waits for the person's approval of a call plan mode withholds does not keep
it waiting: the approval is withdrawn (shown as expired on every timeline above it), the call answered that
plan mode withdrew it, and the subagent goes on planning (supervisor.py). A subagent that another process
follows keeps its approval; deciding it there answers the call under plan mode without running it.
"""

from __future__ import annotations

import sqlite3

from ...cards.models import HostMessage
from ...store import sessions as session_rows
from ...store import tasks as task_rows
from ..events import SettingsChanged
from ..settings.model import SessionSettings
from ..timeline.state import state_of
from ..timeline.stored import StoredTimeline
from ..toolbox.policy import plan_message
from .spawn import Parent
from .supervisor import MAX_DEPTH


def reach_subagents(parent: Parent, on: bool, depth: int = 0) -> None:
    """Turn plan mode on or off in the subagents of `parent` that still run (their tasks have not ended),
    and in theirs."""
    conn = parent.stored_timeline.db.conn()
    for row in session_rows.subagents_of(conn, parent.id):
        if task_rows.live_task_of_child(conn, row["id"]) is None:
            continue  # it ended: a conversation of its own now, with the settings it had
        child = type(parent).open(row["id"], workspace=parent.workspace.root)
        follow_plan_mode(child.stored_timeline, on)
        if on:  # its approval of a call plan mode withholds is withdrawn: it goes on planning
            child.withdraw_withheld_approval()
        if depth < MAX_DEPTH:
            reach_subagents(child, on, depth + 1)


def follow_plan_mode(timeline: StoredTimeline, on: bool) -> None:
    """Store plan mode `on` in the session of `timeline`; when no turn of it runs, its host message goes at
    the end of the timeline in the same transaction, else the running turn places it before its next
    request (turns/run.py), or as it ends."""
    sid = timeline.session_id
    changed = False

    def write(conn: sqlite3.Connection) -> HostMessage | None:
        nonlocal changed
        row = session_rows.get_session(conn, sid)
        settings = SessionSettings.model_validate_json(row["settings"]) if row is not None else None
        if settings is None or settings.plan_mode == on:
            return None
        session_rows.set_settings(conn, sid, settings.model_copy(update={"plan_mode": on}).model_dump())
        changed = True
        return None if state_of(conn, sid) == "running" else plan_message(on)

    timeline.append_after(write)
    if changed:
        timeline.emit(SettingsChanged(sid, ("plan_mode",)))
