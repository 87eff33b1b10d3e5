"""`agent_spawn {agent, task}` (T15): a subagent is a conversation of its own — a stored session with the
spawning one as its parent and the subagent flag — that runs in the background under the parent's safety
level and host-message container. The parent's timeline shows a read-only `subagent` card.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Protocol

from ...cards.models import Card, Subagent, ToolCall
from ...cards.order import key_between
from ...config import Config
from ...errors import MewrkError
from ...providers.registry import config_for, resolve
from ...store import cards as card_rows
from ...store import sessions as session_rows
from ..agent import DEFAULT_AGENT, agent_start
from ..background.results import started_text
from ..background.rows import track
from ..background.tasks import TASKS, BackgroundTask, stop_work_elsewhere
from ..settings.model import SessionSettings, parse_settings
from ..timeline.state import state_of
from ..timeline.stored import StoredTimeline
from ..toolbox.policy import plan_message
from ..workspace import Workspace
from .limits import spawn_refusal
from .supervisor import Supervisor

TITLE_CHARS = 40


class Parent(Protocol):
    """The session that spawns (`Session`, seen without importing it: it imports this package)."""

    id: str
    workspace: Workspace
    stored_timeline: StoredTimeline

    @property
    def settings(self) -> SessionSettings:
        """The conversation settings as stored."""

    @classmethod
    def open(cls, session_id: str, *, workspace: str | Path | None = None) -> Any:
        """Open a session of the workspace by id."""


def agent_names(config: Config | None) -> str:
    """The agents of the folder, for a sentence."""
    names = sorted(config.agents) if config is not None else []
    return ", ".join(f"`{name}`" for name in names) or "none (write `.mewrk/agents/<name>.yaml`)"


def subagent_settings(
    config: Config | None, agent: str, parent: SessionSettings
) -> tuple[SessionSettings, list[Card]]:
    """The subagent's settings — its agent's model, tools and skills, the parent's safety level, container
    and plan mode — and the cards it starts with (the agent's system prompt, plan mode's guidance)."""
    if config is None or (agent not in config.agents and agent != DEFAULT_AGENT):
        raise MewrkError(f"There is no agent `{agent}`; the agents are: {agent_names(config)}.")
    values = {
        "agent": agent,
        "safety_level": parent.safety_level,
        "host_container": parent.host_container,
        "plan_mode": parent.plan_mode,  # a subagent of a planning conversation plans too
    }
    start = agent_start(config, None, values)
    settings = parse_settings(start.settings)
    cards: list[Card] = [start.system_prompt] if start.system_prompt is not None else []
    if settings.plan_mode:
        cards.append(plan_message(True))
    return settings, cards


def spawn(parent: Parent, call: ToolCall) -> tuple[str, bool]:
    """Start the subagent a call of `agent_spawn` asks for; returns the call's output and whether it is an
    error (a refusal starts nothing)."""
    agent, task_text = call.params.get("agent"), call.params.get("task")
    if not isinstance(agent, str) or not agent.strip():
        return "`agent` names one of the workspace's agents; no subagent was started.", True
    if not isinstance(task_text, str) or not task_text.strip():
        return "`task` is the subagent's task, in words; no subagent was started.", True
    refused = spawn_refusal(parent.stored_timeline.db.conn(), parent.id)
    if refused is not None:
        return f"No subagent was started: {refused}", True
    home = parent.workspace.home
    try:
        settings, cards = subagent_settings(config_for(home), agent.strip(), parent.settings)
        resolve(settings.model, home)  # an unknown model is refused now, not in the background
    except MewrkError as exc:
        return f"No subagent was started: {exc}", True
    child_id = create_child(parent, agent.strip(), task_text, settings, cards)
    timeline = parent.stored_timeline
    task = BackgroundTask(
        session_id=parent.id,
        kind="subagent",
        label=f"subagent `{agent.strip()}`",
        call_card=call.id,
        as_output=parent.settings.async_tools,
        child_session=child_id,
        workspace=str(parent.workspace.root),
    )
    TASKS.add(track(task, timeline.db))
    card = Subagent(text=task_text.strip(), agent=agent.strip(), session_id=child_id, task_id=task.id)
    timeline.append(card)
    task.card_id = card.id
    child = type(parent).open(child_id, workspace=parent.workspace.root)
    supervisor = Supervisor(timeline, task, child, task_text.strip())
    task.stop = supervisor.stop
    supervisor.start()
    return started_text(task), False


def create_child(
    parent: Parent,
    label: str,
    task_text: str,
    settings: SessionSettings,
    cards: list[Card],
    mark: int = session_rows.SUBAGENT,
) -> str:
    """Store the subagent's session — parent set, subagent flag on — with its first cards, titled by
    `label` (its agent, or a workflow's step) and its task, marked a subagent's or (`mark`) a workflow
    step's; returns its id."""
    child_id = uuid.uuid4().hex[:10]
    first = (task_text.strip().splitlines() or [""])[0]
    title = f"{label}: {first[:TITLE_CHARS]}{'…' if len(first) > TITLE_CHARS else ''}"
    with parent.stored_timeline.db.tx() as conn:
        session_rows.create_session(conn, child_id, title, settings.model_dump(), parent.id)
        session_rows.set_subagent(conn, child_id, mark)
        key = None
        for card in cards:
            key = key_between(key, None)
            card_rows.put_card(conn, child_id, card, key)
    return child_id


def stop_subagents_elsewhere(parent: Parent) -> bool:
    """Stop the parent's background work that another process follows — its tasks there are asked to
    stop through the store, and the running turns of its subagents are stopped (this process's own are
    stopped through their supervisors); True when one was running."""
    with parent.stored_timeline.db.tx() as conn:
        stopped = stop_work_elsewhere(parent.id, conn)
    conn = parent.stored_timeline.db.conn()
    for row in session_rows.subagents_of(conn, parent.id):
        if TASKS.by_child(row["id"]) is None and state_of(conn, row["id"]) == "running":
            type(parent).open(row["id"], workspace=parent.workspace.root).stop()
            stopped = True
    return stopped
