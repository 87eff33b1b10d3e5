"""Opening sessions: the checks a new or imported conversation passes before anything is stored, the rows
that create it (or a branch or fork of one), the stored row an id names, and the sessions this process
has open (one object per session, which every view of it shares)."""

from __future__ import annotations

import functools
import threading
import uuid
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ..cards.models import Card
from ..cards.order import key_between
from ..config import Config, policy_for
from ..config.skills import read_skill
from ..errors import SessionNotFound
from ..providers.registry import config_for, resolve
from ..store import cards as card_rows
from ..store import sessions as session_rows
from ..store.db import Database, database
from .admission import admit
from .agent import agent_of, agent_start
from .assembly.prefix import left_out
from .notebook import read_notebook
from .settings.change import check_async_tools, check_compaction, check_reasoning
from .settings.model import SessionSettings, parse_settings, stored_names
from .toolbox.grants import grant_place
from .toolbox.policy import announced_plan_mode, plan_message
from .toolbox.secrets import sandbox_at
from .unbuilt import notebook_notice, unbuilt_notices
from .workspace import Workspace

S = TypeVar("S")


class OpenSessions:
    """The sessions this process has open, by store and id: opening one twice gives the same object, and
    it is forgotten once nothing uses it."""

    def __init__(self) -> None:
        self._live: weakref.WeakValueDictionary[tuple[Path, str], Any] = weakref.WeakValueDictionary()
        self._lock = threading.Lock()

    def get(self, key: tuple[Path, str], make: Callable[[], Any]) -> Any:
        """The open session of `key`, made by `make` if this process has none."""
        with self._lock:
            live = self._live.get(key)
            if live is None:
                live = make()
                self._live[key] = live
            return live

    def clear(self) -> None:
        """Forget every open session."""
        with self._lock:
            self._live.clear()


OPEN = OpenSessions()


def forget_open_sessions() -> None:
    """Forget the sessions this process has open, so the next `Session.open` reads them from the store."""
    OPEN.clear()


def keyed(cards: list[Card]) -> list[tuple[str, Card]]:
    """The cards with order keys that keep them in the order given."""
    rows: list[tuple[str, Card]] = []
    for card in cards:
        rows.append((key_between(rows[-1][0] if rows else None, None), card))
    return rows


def new_start(
    ws: Workspace, model: str | None, settings: dict[str, Any]
) -> tuple[SessionSettings, list[tuple[str, Card]], list[str]]:
    """The settings and first cards of a new session, and the notices to show before it is made (the
    caller warns, so that a warning points at the person's line); what cannot act is refused now, with a
    sentence, rather than at the first send."""
    config = config_for(ws.home)
    assert config is not None  # a workspace always has a configuration folder, perhaps empty
    settings = stored_names(settings)  # `compaction_mode`, DESIGN §2's name, is `compaction`
    # A folder not trusted yet, or with invalid files, is said in notices rather than acted on.
    start, notices = admit(config, agent_start(config, model, settings), model_asked=model is not None)
    parsed = parse_settings(start.settings)
    # Tools approved always from the start are approved in this folder, as its configuration stands now.
    here = grant_place(ws)
    parsed = parsed.model_copy(update={"approved_where": dict.fromkeys(parsed.approved_always, here)})
    # An unknown model is a clear error now, not at the first send; so are async tool calls it cannot take.
    _, info = resolve(parsed.model, ws.home)
    check_async_tools(parsed, info)
    if "compaction" not in start.settings:  # a new conversation compacts natively where its model can
        parsed = parsed.model_copy(update={"compaction": "native" if info.native_compaction else "handoff"})
    check_compaction(parsed, info)  # native asked for on a model that cannot
    check_reasoning(parsed, info)  # and a reasoning level on a model it cannot set
    policy_for(config, parsed.safety_level)  # so is an unknown safety level
    for name in parsed.skills:
        read_skill(ws.home, name)  # and a skill that does not exist or cannot be read
    notices += unbuilt_notices(config, parsed.agent, agent_of(config, parsed.agent), parsed.model)
    notebook = notebook_notice(parsed.agent, agent_of(config, parsed.agent))
    if notebook is not None:
        notices.append(notebook)
    notices += left_out(ws, parsed.memory, parsed.skills)  # an AGENTS.md linking outside, say
    sandbox = sandbox_notice(ws, config, parsed)
    if sandbox is not None:
        notices.append(sandbox)
    cards: list[Card] = []
    if start.system_prompt is not None:
        cards.append(start.system_prompt)
    if parsed.plan_mode:  # its guidance is a card, so a branch or fork carries it
        cards.append(plan_message(True))
    return parsed, keyed(cards), notices


def sandbox_notice(ws: Workspace, config: Config, parsed: SessionSettings) -> str | None:
    """The sentence a new session says when the commands it may start (bash, the language server, a
    command tool, a hook, a stdio MCP server) are less confined here than they could be."""
    agent = agent_of(config, parsed.agent)
    tools = set(agent.tools) if agent is not None and agent.tools is not None else {"bash", "lsp"}
    runs = (
        bool(tools & {"bash", "lsp", *config.tools})
        or bool(config.hooks)
        or any(server.command is not None for server in config.mcp.values())
    )
    if not runs:
        return None
    return sandbox_at(ws, parsed.safety_level).notice(parsed.safety_level)


def imported_start(
    path: Path, workspace: str | Path | None, model: str | None, title: str | None
) -> tuple[Workspace, str, SessionSettings, list[tuple[str, Card]], list[str]]:
    """The workspace, title, settings and cards of a session imported from a notebook that `export`
    wrote, and the notices to show; the settings are the workspace's for `model` (or its default), the
    title `title` or the exported session's (else the file's name)."""
    cards, meta = read_notebook(path)
    ws = Workspace.at(workspace)
    config = config_for(ws.home)
    assert config is not None  # a workspace always has a configuration folder, perhaps empty
    start, notices = admit(config, agent_start(config, model, {}), model_asked=model is not None)
    parsed = parse_settings(start.settings)
    resolve(parsed.model, ws.home)
    return ws, title or str(meta.get("title") or path.stem), parsed, keyed(cards), notices


def create_session(
    ws: Workspace,
    title: str,
    settings: SessionSettings,
    parent_id: str | None,
    cards: list[tuple[str, Card]],
) -> str:
    """Store a new session with its cards in one transaction; returns its id."""
    db = database(ws.store)
    session_id = uuid.uuid4().hex[:10]
    with db.tx() as conn:
        session_rows.create_session(conn, session_id, title, settings.model_dump(), parent_id)
        for key, card in cards:
            card_rows.put_card(conn, session_id, card, key)
    return session_id


def create_copy(
    ws: Workspace, title: str, settings: SessionSettings, parent_id: str, rows: list[tuple[str, Card]]
) -> str:
    """Store a branch or fork of the session `parent_id` (T11): the cards `rows`, its settings with no tool
    approved always; returns its id."""
    settings = settings.model_copy(update={"approved_always": [], "approved_where": {}}, deep=True)
    if announced_plan_mode(card for _, card in rows) != settings.plan_mode:
        # Cut where its cards announce the other plan mode: the copy's model is told how it stands.
        rows = [*rows, (key_between(rows[-1][0] if rows else None, None), plan_message(settings.plan_mode))]
    return create_session(ws, title, settings, parent_id, rows)


def session_row(ws: Workspace, session_id: str) -> tuple[Database, Any]:
    """The store of the workspace and the row of the session `session_id` names (its id or an unambiguous
    prefix of it); SessionNotFound, with what to do, otherwise."""
    db = database(ws.store)
    conn = db.conn()
    row = session_rows.get_session(conn, session_id)
    if row is None:
        matches = session_rows.find_session_ids(conn, session_id) if session_id else []
        if len(matches) != 1:
            hint = "several sessions start with it" if matches else "list_sessions() shows what exists"
            raise SessionNotFound(f"No session `{session_id}` in {ws.store} ({hint}).")
        row = session_rows.get_session(conn, matches[0])
    assert row is not None  # the id was just found
    return db, row


def open_once(ws: Workspace, session_id: str, make: Callable[[Workspace, Database, Any], S]) -> S:
    """The session `session_id` names in the workspace's store, made by `make` from the workspace, the
    store and its row unless this process has it open already."""
    db, row = session_row(ws, session_id)
    # A partial adds no frame between `make` and the person's line, where its warnings point.
    live: S = OPEN.get((db.path, row["id"]), functools.partial(make, ws, db, row))
    return live
