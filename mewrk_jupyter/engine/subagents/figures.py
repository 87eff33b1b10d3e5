"""One figure per agent (D5): the conversation a person looks at, the one its subagents came from and
every subagent below it, each with its own context figure and cost."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel

from ...store import sessions as session_rows

MAX_AGENTS = 24  # listed at most: a filter, not an inventory


class AgentFigure(BaseModel):
    """One agent present in a conversation: its session, its dashboard line and what it spent."""

    agent: str
    session_id: str
    title: str
    line: str
    cost_line: str
    current: bool  # the session the person looks at


def agent_figures(session: Any) -> list[AgentFigure]:
    """The agents of the conversation `session` belongs to: the top conversation first, then its subagents
    (and theirs) in the order they started; empty when there is no subagent (one agent, one figure)."""
    conn = session.stored_timeline.db.conn()
    top = session.id
    for _ in range(MAX_AGENTS):  # up through the parents while the session is a subagent's
        row = session_rows.get_session(conn, top)
        if row is None or not row["subagent"] or row["parent_id"] is None:
            break
        top = row["parent_id"]
    ids, queue = [top], [top]
    while queue and len(ids) < MAX_AGENTS:
        for row in session_rows.subagents_of(conn, queue.pop(0)):
            ids.append(row["id"])
            queue.append(row["id"])
    if len(ids) < 2:
        return []
    figures = []
    for sid in ids[:MAX_AGENTS]:
        opened = type(session).open(sid, workspace=session.workspace.root)
        info = opened.context
        figures.append(
            AgentFigure(
                agent=info.agent,
                session_id=sid,
                title=opened.title,
                line=info.line(),
                cost_line=info.cost_line(),
                current=sid == session.id,
            )
        )
    return figures
