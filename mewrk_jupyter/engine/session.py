"""The session: a timeline of cards, the rules for changing it, and the turns that run on it."""

from __future__ import annotations

import json
import threading
import uuid
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..cards import rules
from ..cards.models import Approval, Card, ModelReply, ToolCall, UserInput
from ..cards.undo import UNDO, CardChange, CardState, UndoStep
from ..errors import CardNotFound, InvalidInput, NothingToUndo, SessionBusy, SessionNotFound
from ..providers.base import ToolSpec
from ..providers.registry import default_model, prices_of, resolve
from ..store import approvals as resume_rows
from ..store import cards as card_rows
from ..store import history as history_rows
from ..store import runs as run_rows
from ..store import sessions as session_rows
from ..store.db import Database, database
from . import approvals, handtools
from .attachments import attachments_for_message, check_vision
from .context import ContextInfo, session_spending, tokens_by_kind
from .events import EventHub, Listener, SessionEvent
from .settings import SessionSettings
from .timeline import Timeline
from .toolbox import ToolBox
from .views import CardList, HistoryEntry, HistoryList, SessionInfo, SessionInfoList
from .workspace import Workspace

EDIT_WHILE_RUNNING = (
    "The model is running: nothing on the timeline can change until the turn ends — stop it to edit now."
)
APPROVAL_WAITING = (
    "An approval is waiting: approve or reject it first — s.approve(), s.reject(reason) "
    "or %mewrk approve | reject [reason]."
)

_LIVE: weakref.WeakValueDictionary[tuple[Path, str], Session] = weakref.WeakValueDictionary()
_LIVE_LOCK = threading.Lock()


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


class Session:
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
                    self._events.emit(SessionEvent("reloaded", self.id))
            return self._timeline

    @property
    def cards(self) -> CardList:
        """The timeline, in order."""
        return CardList(self._loaded().cards)

    def card(self, card_id: str | Card) -> Card:
        """One card, by id or unambiguous id prefix."""
        timeline = self._loaded()
        return timeline.get(self._resolve_id(card_id))[1]

    def _resolve_id(self, ref: str | Card) -> str:
        card_id = ref.id if isinstance(ref, Card) else ref
        if not isinstance(card_id, str) or not card_id:
            raise InvalidInput(f"A card is named by its id (a string); got {ref!r}.")
        timeline = self._loaded()
        if card_id in timeline.key_of:
            return card_id
        matches = [cid for cid in timeline.key_of if cid.startswith(card_id)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise InvalidInput(f"`{card_id}` names {len(matches)} cards; give more of the id.")
        raise CardNotFound(f"No card `{card_id}` in session `{self.id}`.")

    @property
    def history(self) -> HistoryList:
        """Every request exactly as it was sent, with what came back (T17)."""
        rows = history_rows.load_history(self._db.conn(), self.id)
        return HistoryList(
            HistoryEntry(
                id=row["id"],
                run_id=row["run_id"],
                model=row["model"],
                protocol=row["protocol"],
                started_at=row["started_at"],
                ended_at=row["ended_at"],
                request=json.loads(row["request"]),
                response=json.loads(row["response"]) if row["response"] else None,
                error=row["error"],
            )
            for row in rows
        )

    @property
    def context(self) -> ContextInfo:
        """How full the context window is: the most recent request's size, by the vendor's count (D2)."""
        _, info = resolve(self.settings.model, self.workspace.home)
        usage = history_rows.last_usage(self._db.conn(), self.id) or {}
        used = (
            usage.get("input_tokens", 0)
            + usage.get("cache_read_tokens", 0)
            + usage.get("cache_write_tokens", 0)
        )
        return ContextInfo(
            agent=self.settings.agent,
            model=info.name,
            reasoning=self.settings.reasoning,
            used=used,
            window=info.context_window,
            estimated=True,  # the vendor's own count of the last request, not of the timeline now (D2)
            by_kind=tokens_by_kind(self._loaded().cards),
            # What the whole session spent, priced apart from the room left in the window (D6).
            **session_spending(
                self._db.conn(), self.id, lambda model: prices_of(model, self.workspace.home)
            ).model_dump(),
        )

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

    # ---- a person's changes (T4–T10) ------------------------------------------------------------

    def _check_idle(self) -> None:
        if self.state == "running":
            raise SessionBusy(EDIT_WHILE_RUNNING)

    def _check_no_approval(self) -> None:
        if self.state == "awaiting_approval":
            raise SessionBusy(APPROVAL_WAITING)

    def insert(self, card: Card, before: str | Card | None = None, after: str | Card | None = None) -> Card:
        """Place a new card before or after another (default: at the end); nothing is sent (T4)."""
        if not isinstance(card, Card):
            raise InvalidInput(
                f"insert() takes a card such as mw.UserInput(text='…'); got {type(card).__name__}."
            )
        if before is not None and after is not None:
            raise InvalidInput("Give either before= or after=, not both.")
        rules.check_insertable(card)
        self._check_idle()
        if card.id in self._loaded().key_of:
            raise InvalidInput(f"A card with id `{card.id}` is already on the timeline; insert a new card.")
        update: dict[str, Any] = {"origin": "person", "response_id": None}
        if isinstance(card, ModelReply):
            update.update(complete=True, interrupted=False)
        card = card.model_copy(update=update, deep=True)
        before_id = self._resolve_id(before) if before is not None else None
        after_id = self._resolve_id(after) if after is not None else None

        def write(conn):
            key = card_rows.key_for_insert(conn, self.id, before=before_id, after=after_id)
            card_rows.put_card(conn, self.id, card, key)
            return key

        key = self._commit(write, lambda t, key: t.put(card, key))
        UNDO.push(UndoStep(self.id, f"insert {card.kind}", [CardChange(card.id, None, CardState(card, key))]))
        self._events.emit(SessionEvent("card_added", self.id, card=card, card_id=card.id, order_key=key))
        return card

    def edit(self, card_id: str | Card, **fields: Any) -> Card:
        """Change a card in place under the rules of T6; the model never sees that it was edited."""
        self._check_idle()
        cid = self._resolve_id(card_id)
        key, old = self._loaded().get(cid)
        new = rules.apply_edit(old, fields)
        self._commit(lambda conn: card_rows.put_card(conn, self.id, new, key), lambda t, _: t.put(new, key))
        UNDO.push(
            UndoStep(self.id, f"edit {old.kind}", [CardChange(cid, CardState(old, key), CardState(new, key))])
        )
        self._events.emit(SessionEvent("card_changed", self.id, card=new, card_id=cid, order_key=key))
        return new

    def delete(self, *card_ids: str | Card) -> list[Card]:
        """Delete cards at once; one undo brings them all back (T8, T10)."""
        if not card_ids:
            raise InvalidInput("delete() needs at least one card id.")
        self._check_idle()
        ids = list(dict.fromkeys(self._resolve_id(c) for c in card_ids))
        timeline = self._loaded()
        states = [(cid, *timeline.get(cid)) for cid in ids]

        def write(conn):
            for cid in ids:
                card_rows.delete_card(conn, self.id, cid)

        def mirror(t: Timeline, _):
            for cid in ids:
                t.remove(cid)

        self._commit(write, mirror)
        label = f"delete {len(ids)} cards" if len(ids) > 1 else f"delete {states[0][2].kind}"
        UNDO.push(
            UndoStep(
                self.id, label, [CardChange(cid, CardState(card, key), None) for cid, key, card in states]
            )
        )
        for cid, _, _ in states:
            self._events.emit(SessionEvent("card_removed", self.id, card_id=cid))
        return [card for _, _, card in states]

    def undo(self) -> str:
        """Revert this session's newest step, and only it (T9); returns what was undone."""
        self._check_idle()
        step = UNDO.take_undo(self.id)
        if step is None:
            raise NothingToUndo("Nothing to undo in this session.")
        try:
            self._apply_states([(c.card_id, c.before) for c in step.changes])
        except BaseException:
            UNDO.restore(step, undone=False)
            raise
        UNDO.mark_undone(step)
        return f"undid {step.label}"

    def redo(self) -> str:
        """Apply again the step this session undid last; returns what was redone."""
        self._check_idle()
        step = UNDO.take_redo(self.id)
        if step is None:
            raise NothingToUndo("Nothing to redo in this session.")
        try:
            self._apply_states([(c.card_id, c.after) for c in step.changes])
        except BaseException:
            UNDO.restore(step, undone=True)
            raise
        UNDO.mark_redone(step)
        return f"redid {step.label}"

    def _apply_states(self, states: list[tuple[str, CardState | None]]) -> None:
        placed: list[tuple[str, Card | None, str | None]] = []

        def write(conn):
            placed.clear()
            for cid, state in states:
                if state is None:
                    card_rows.delete_card(conn, self.id, cid)
                    placed.append((cid, None, None))
                    continue
                current = card_rows.order_key_of(conn, self.id, cid)
                key = (
                    current
                    if current == state.order_key
                    else card_rows.free_key(conn, self.id, state.order_key)
                )
                if current is not None and current != key:
                    card_rows.delete_card(conn, self.id, cid)
                card_rows.put_card(conn, self.id, state.card, key)
                placed.append((cid, state.card, key))

        def mirror(t: Timeline, _):
            for cid, card, key in placed:
                if card is None:
                    t.remove(cid)
                else:
                    t.put(card, key)

        existed = set(self._loaded().key_of)
        self._commit(write, mirror)
        for cid, card, key in placed:
            if card is None:
                self._events.emit(SessionEvent("card_removed", self.id, card_id=cid))
            else:
                kind = "card_changed" if cid in existed else "card_added"
                self._events.emit(SessionEvent(kind, self.id, card=card, card_id=cid, order_key=key))

    # ---- branch and fork (T11) -----------------------------------------------------------------

    def branch(self, at: str | Card) -> Session:
        """A new session whose timeline is this one up to and including the card `at`."""
        return self._copy_until(at, inclusive=True, suffix="branch")

    def fork(self, at: str | Card) -> Session:
        """A new session with everything above the card `at`."""
        return self._copy_until(at, inclusive=False, suffix="fork")

    def _copy_until(self, at: str | Card, inclusive: bool, suffix: str) -> Session:
        self._check_idle()
        cid = self._resolve_id(at)
        timeline = self._loaded()
        end = timeline.index(cid) + (1 if inclusive else 0)
        rows = [(timeline.keys[i], timeline.cards[i].model_copy(deep=True)) for i in range(end)]
        settings = self.settings.model_copy(update={"approved_always": []}, deep=True)
        return Session._create(self.workspace, f"{self.title} ({suffix})", settings, self.id, rows)

    # ---- turns ---------------------------------------------------------------------------------

    def send(self, text: str | None = None, *, attachments: Iterable[Any] = (), wait: bool | None = None):
        """Start a turn: with text, a new user input; with none (or only spaces), continue (T12).

        In a script this waits for the turn to end; in a kernel it returns at once and the turn runs
        in the background, so that Stop and approvals keep working (pass `wait=` to choose).
        """
        from .runs import Run

        if text is not None and not isinstance(text, str):
            raise InvalidInput(f"send() takes text (a string) or nothing; got {type(text).__name__}.")
        attachments = list(attachments)
        if text is not None and not text.strip() and not attachments:
            text = None
        files = attachments_for_message(attachments)
        user = UserInput(text=text or "", attachments=files) if text is not None or files else None
        _, info = resolve(self.settings.model, self.workspace.home)
        check_vision([*self._loaded().cards, *([user] if user else [])], info.name, info.vision)
        self._check_no_approval()
        approvals.abandon_lost(self)
        run = Run(self, user)
        run.start()
        return _drive(run, wait)

    def approve(self, reason: str | None = None, *, always: bool = False, wait: bool | None = None):
        """Approve the pending tool call (A1) — for this session from now on with `always=True` — and go on."""
        return self._decide("approved_always" if always else "approved", reason, wait)

    def reject(self, reason: str | None = None, *, wait: bool | None = None):
        """Reject the pending tool call; the model reads a statement with `reason` and goes on (A2)."""
        return self._decide("rejected", reason, wait)

    def _decide(self, decision: str, reason: str | None, wait: bool | None):
        from .runs import Run

        self._check_idle()
        approval, resume = approvals.decide(self, decision, reason)
        run = Run(self, None, resume=resume)
        try:
            run.start()
        except SessionBusy:  # another window took the session between the decision and the claim
            approval.decision, approval.reason = "pending", None
            self._save(approval)
            with self._db.tx() as conn:
                resume_rows.put_resume_point(conn, self.id, approval.id, resume)
            raise
        return _drive(run, wait)

    def execute(
        self,
        name: str,
        params: dict[str, Any] | None = None,
        *,
        before: str | Card | None = None,
        after: str | Card | None = None,
        wait: bool | None = None,
    ):
        """Insert a tool call and run it now under the safety level — Execute and add (T5)."""
        return _drive(handtools.execute(self, name, params or {}, before, after), wait)

    def reexecute(self, card_id: str | Card, *, wait: bool | None = None):
        """Run an `ls`, `grep`, `find`, `read` or `lsp` call again with its edited parameters (T6)."""
        return _drive(handtools.reexecute(self, card_id), wait)

    def stop(self) -> bool:
        """Stop the running turn, whichever window or process owns it (R3); False if none runs."""
        with self._db.tx() as conn:
            run_id = run_rows.request_stop(conn, self.id)
        run = self._run if self._run is not None and not self._run.done else None
        if run is not None:
            run.cancel()
        return run_id is not None or run is not None

    @property
    def last_run(self):
        """The run this process started most recently, if any."""
        return self._run

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

        def write(conn):
            key = card_rows.key_for_insert(conn, self.id)
            card_rows.put_card(conn, self.id, card, key)
            return key

        key = self._commit(write, lambda t, key: t.put(card, key))
        self._events.emit(SessionEvent("card_added", self.id, card=card, card_id=card.id, order_key=key))
        return key

    def _save(self, card: Card, announce: bool = True) -> None:
        """Persist an engine change to a card (streamed text, a result); skipped if a person deleted it."""
        timeline = self._loaded()
        key = timeline.key_of.get(card.id)
        if key is None:
            return
        self._commit(lambda conn: card_rows.put_card(conn, self.id, card, key), lambda t, _: t.put(card, key))
        if announce:
            self._events.emit(
                SessionEvent("card_changed", self.id, card=card, card_id=card.id, order_key=key)
            )

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

    def widget(self):
        """The anywidget timeline of this session (N3); every view of it stays in step."""
        from ..widget import session_widget

        return session_widget(self)

    def _repr_mimebundle_(self, include=None, exclude=None):
        from ..widget import session_mimebundle

        return session_mimebundle(self, include, exclude)

    def _repr_markdown_(self) -> str:
        from .render import timeline_markdown

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


def _drive(run, wait: bool | None):
    """Wait for a run in a script, return at once in a kernel (unless `wait` says otherwise)."""
    if wait is None:
        wait = not _in_kernel()
    if wait:
        run.wait()
        if run.error is not None:
            raise run.error
    return run
