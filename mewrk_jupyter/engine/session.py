"""The session: a timeline of cards, stored, with the engine's side of changing it.

A person's changes live in `editing.py`, turns in `turns.py`; both are mixed into `Session`.
"""

from __future__ import annotations

import json
import re
import threading
import uuid
import weakref
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..cards.models import Approval, Card, ModelReply, ToolCall
from ..cards.words import count
from ..errors import CardNotFound, InvalidInput, SessionNotFound
from ..providers.base import ModelInfo, ToolSpec
from ..providers.registry import config_for, default_model, prices_of, resolve
from ..store import approvals as resume_rows
from ..store import cards as card_rows
from ..store import history as history_rows
from ..store import runs as run_rows
from ..store import sessions as session_rows
from ..store.db import Database, database
from . import approvals
from .context import ContextInfo, measure, session_spending
from .display import make_view, view_bundle
from .editing import TimelineEdits
from .events import CardAdded, CardChanged, EventHub, Listener, Reloaded, SessionEvent
from .policy import policy_for
from .render import timeline_markdown
from .settings import SessionSettings
from .timeline import Timeline
from .toolbox import ToolBox
from .turns import TurnControl
from .views import CardList, HistoryEntry, HistoryList, SessionInfo, SessionInfoList
from .workspace import Workspace

_LIVE: weakref.WeakValueDictionary[tuple[Path, str], Session] = weakref.WeakValueDictionary()
_LIVE_LOCK = threading.Lock()


class Session(TimelineEdits, TurnControl):
    """One conversation: its cards, settings, history and runs. Use `Session.new` or `Session.open`."""

    def __init__(self, workspace: Workspace, db: Database, row: Any):
        self.workspace = workspace
        self._db = db
        self.id: str = row["id"]
        self._title: str = row["title"]
        self.parent_id: str | None = row["parent_id"]
        self.created_at: float = row["created_at"]
        self.settings = SessionSettings.model_validate_json(row["settings"])
        self._lock = threading.RLock()
        self._timeline: Timeline | None = None
        self._rev = -1
        self._events = EventHub()
        self._run = None  # the Run this process drives, if any
        self._toolbox = ToolBox(self)

    # ---- opening -------------------------------------------------------------------------------

    @classmethod
    def new(
        cls,
        model: str | None = None,
        title: str | None = None,
        *,
        workspace: str | Path | None = None,
        **settings: Any,
    ) -> Session:
        """Create a session in the workspace (default: the current directory)."""
        ws = Workspace.at(workspace)
        values = dict(settings)
        values["model"] = model if model is not None else default_model(ws.home, values.get("agent", "main"))
        try:
            parsed = SessionSettings(**values)
        except ValueError as exc:
            raise InvalidInput(f"Invalid session settings: {exc}") from None
        resolve(parsed.model, ws.home)  # an unknown model is a clear error now, not at the first send
        policy_for(config_for(ws.home), parsed.safety_level)  # so is an unknown safety level
        return cls._create(ws, title or "untitled", parsed, parent_id=None, cards=[])

    @classmethod
    def _create(
        cls,
        ws: Workspace,
        title: str,
        settings: SessionSettings,
        parent_id: str | None,
        cards: list[tuple[str, Card]],
    ) -> Session:
        db = database(ws.db_path)
        session_id = uuid.uuid4().hex[:10]
        with db.tx() as conn:
            session_rows.create_session(conn, session_id, title, settings.model_dump(), parent_id)
            for key, card in cards:
                card_rows.put_card(conn, session_id, card, key)
        return cls.open(session_id, workspace=ws.root)

    @classmethod
    def open(cls, session_id: str, *, workspace: str | Path | None = None) -> Session:
        """Reopen a session from the store — in this process, another one, or after a restart."""
        ws = Workspace.at(workspace)
        db = database(ws.db_path)
        conn = db.conn()
        row = session_rows.get_session(conn, session_id)
        if row is None:
            matches = session_rows.find_session_ids(conn, session_id) if session_id else []
            if len(matches) != 1:
                hint = "several sessions start with it" if matches else "list_sessions() shows what exists"
                raise SessionNotFound(f"No session `{session_id}` in {ws.db_path} ({hint}).")
            row = session_rows.get_session(conn, matches[0])
        key = (db.path, row["id"])
        with _LIVE_LOCK:
            live = _LIVE.get(key)
            if live is None:
                live = cls(ws, db, row)
                _LIVE[key] = live
        live._recover_if_orphaned()
        return live

    # ---- reading -------------------------------------------------------------------------------

    @property
    def title(self) -> str:
        """The session's title."""
        return self._title

    @title.setter
    def title(self, value: str) -> None:
        if not isinstance(value, str) or not value.strip():
            raise InvalidInput("A title must be non-empty text.")
        with self._db.tx() as conn:
            session_rows.set_title(conn, self.id, value.strip())
        self._title = value.strip()

    @property
    def state(self) -> str:
        """idle, running or awaiting_approval — as the store says, for every process alike (R4)."""
        return _state_of(self._db.conn(), self.id)

    def _loaded(self) -> Timeline:
        """The timeline, reloaded when another process changed the session since we last looked."""
        with self._lock:
            rev = session_rows.get_rev(self._db.conn(), self.id)
            if self._timeline is None or rev != self._rev:
                reloaded = self._timeline is not None
                self._timeline = Timeline(card_rows.load_cards(self._db.conn(), self.id))
                self._rev = rev
                if reloaded:
                    self._events.emit(Reloaded(self.id))
            return self._timeline

    @property
    def cards(self) -> CardList:
        """The timeline, in order."""
        return CardList(self._loaded().cards)

    def card(self, card_id: str | Card) -> Card:
        """One card, by id, unambiguous id prefix, or position from the end (`"-1"`: the last card)."""
        timeline = self._loaded()
        return timeline.get(self._resolve_id(card_id))[1]

    def _resolve_id(self, ref: str | Card) -> str:
        card_id = ref.id if isinstance(ref, Card) else ref
        if not isinstance(card_id, str) or not card_id:
            raise InvalidInput(f"A card is named by its id (a string); got {ref!r}.")
        timeline = self._loaded()
        if card_id in timeline.key_of:
            return card_id
        if re.fullmatch(r"-\d+", card_id):  # a position from the end: `-1` is the last card
            if not 1 <= -int(card_id) <= len(timeline.cards):
                raise CardNotFound(
                    f"No card at position {card_id}: the timeline has {count(len(timeline.cards), 'card')}."
                )
            return timeline.cards[int(card_id)].id
        matches = [cid for cid in timeline.key_of if cid.startswith(card_id)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise InvalidInput(f"`{card_id}` names {len(matches)} cards; give more of the id.")
        raise CardNotFound(f"No card `{card_id}` in session `{self.id}`.")

    @property
    def history(self) -> HistoryList:
        """Every request exactly as it was sent, with what came back (T17)."""
        return HistoryList(_history_entry(row) for row in history_rows.load_history(self._db.conn(), self.id))

    def history_entry(self, entry_id: int) -> HistoryEntry | None:
        """One request of the history by its id, without reading the others; None if there is none."""
        row = history_rows.load_entry(self._db.conn(), self.id, entry_id)
        return _history_entry(row) if row is not None else None

    @property
    def context(self) -> ContextInfo:
        """How full the window is: the next request's size (an estimate) and the last one's (the vendor's)."""
        _, info = resolve(self.settings.model, self.workspace.home)
        sizes = measure(self._db.conn(), self.id, self._loaded().cards)
        return ContextInfo(
            agent=self.settings.agent,
            model=info.name,
            reasoning=self.settings.reasoning,
            used=sizes.next_request,
            window=info.context_window,
            estimated=True,  # the next request is not sent yet: its size can only be estimated
            by_kind=sizes.by_kind,
            last_request=sizes.last_request,
            # What the whole session spent, priced apart from the room left in the window (D6).
            **session_spending(
                self._db.conn(), self.id, lambda model: prices_of(model, self.workspace.home)
            ).model_dump(),
        )

    @property
    def model_info(self) -> ModelInfo:
        """What the engine knows of the session's model: window, vision, thinking, prices."""
        return resolve(self.settings.model, self.workspace.home)[1]

    @property
    def pending_approval(self) -> Approval | None:
        """The approval card waiting for a decision (A1), or None."""
        return approvals.pending_approval(self)

    def tool_specs(self) -> list[ToolSpec]:
        """The tools this session's model may call, with their JSON schemas (T5)."""
        return self._toolbox.specs()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every change of this session; returns the function that unsubscribes."""
        return self._events.subscribe(listener)

    # ---- engine side: used by runs, not on the undo stack --------------------------------------

    def _commit(self, write: Callable, mirror: Callable[[Timeline, Any], None]) -> Any:
        """Write in one transaction, then mirror the change in memory (or reload if another process wrote)."""
        with self._lock:
            self._loaded()
            with self._db.tx() as conn:
                before = session_rows.get_rev(conn, self.id)
                result = write(conn)
                after = session_rows.bump_rev(conn, self.id)
            if before == self._rev and self._timeline is not None:
                mirror(self._timeline, result)
                self._rev = after
            else:
                self._timeline = None
            return result

    def _append(self, card: Card) -> str:
        """Add an engine or model card at the end of the timeline."""
        return self._place(card)

    def _place(self, card: Card, before_id: str | None = None, after_id: str | None = None) -> str:
        """Store a new card before or after another (default: at the end) and announce it; returns its key."""

        def write(conn):
            key = card_rows.key_for_insert(conn, self.id, before=before_id, after=after_id)
            card_rows.put_card(conn, self.id, card, key)
            return key

        key = self._commit(write, lambda t, key: t.put(card, key))
        self._events.emit(CardAdded(self.id, card, key))
        return key

    def _save(self, card: Card, announce: bool = True) -> None:
        """Persist an engine change to a card (streamed text, a result); skipped if a person deleted it."""
        timeline = self._loaded()
        key = timeline.key_of.get(card.id)
        if key is None:
            return
        self._commit(lambda conn: card_rows.put_card(conn, self.id, card, key), lambda t, _: t.put(card, key))
        if announce:
            self._events.emit(CardChanged(self.id, card, key))

    def _set_settings(self, **changes: Any) -> None:
        """Change settings and store them."""
        settings = self.settings.model_copy(update=changes)
        with self._db.tx() as conn:
            session_rows.set_settings(conn, self.id, settings.model_dump())
        self.settings = settings

    def _emit(self, event: SessionEvent) -> None:
        self._events.emit(event)

    def _recover_if_orphaned(self) -> None:
        """After a crash mid-turn: close the dead run and mark its unfinished cards interrupted."""
        with self._db.tx() as conn:
            row = run_rows.current_run(conn, self.id)
            if row is None or not run_rows.is_stale(row):
                return
            run_rows.end_run(conn, row["id"], "interrupted", "its process stopped while the turn ran")
            waiting = resume_rows.has_resume_point(conn, self.id)
        self.finish_unfinished_cards(tool_calls=not waiting)

    def finish_unfinished_cards(self, tool_calls: bool = True) -> None:
        """Mark replies still 'being written' as interrupted and unanswered tool calls as not run."""
        for card in list(self._loaded().cards):
            if isinstance(card, ModelReply) and not card.complete:
                card.complete = True
                card.interrupted = True
                card.stop_reason = card.stop_reason or "interrupted"
                self._save(card)
            elif (
                tool_calls
                and isinstance(card, ToolCall)
                and card.status in ("pending", "running")
                and card.result is None
            ):
                card.result = "The turn stopped before this call ran."
                card.is_error = True
                card.status = "done"
                self._save(card)

    # ---- display -------------------------------------------------------------------------------

    def __repr__(self) -> str:
        return f"<Session {self.id} {self.title!r} {self.settings.model} {len(self._loaded())} cards>"

    def widget(self) -> Any:
        """The anywidget timeline of this session (N3); every view of it stays in step."""
        return make_view(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict, dict]:
        return view_bundle(self)

    def _repr_markdown_(self) -> str:
        return timeline_markdown(self)


def list_sessions(workspace: str | Path | None = None) -> SessionInfoList:
    """Every session of the workspace: id, title, state and parent (N1, T11)."""
    ws = Workspace.at(workspace)
    db = database(ws.db_path)
    conn = db.conn()
    out = SessionInfoList()
    for row in session_rows.list_sessions(conn):
        out.append(
            SessionInfo(
                id=row["id"],
                title=row["title"],
                state=_state_of(conn, row["id"]),
                parent_id=row["parent_id"],
                created_at=row["created_at"],
                model=json.loads(row["settings"]).get("model", ""),
            )
        )
    return out


def _state_of(conn, session_id: str) -> str:
    row = run_rows.current_run(conn, session_id)
    if row is not None and not run_rows.is_stale(row):
        return "running"
    return "awaiting_approval" if resume_rows.has_resume_point(conn, session_id) else "idle"


def _history_entry(row) -> HistoryEntry:
    return HistoryEntry(
        id=row["id"],
        number=row["number"],
        run_id=row["run_id"],
        model=row["model"],
        protocol=row["protocol"],
        started_at=row["started_at"],
        ended_at=row["ended_at"],
        request=json.loads(row["request"]),
        response=json.loads(row["response"]) if row["response"] else None,
        error=row["error"],
    )
