"""The session: one conversation, composed of its parts — the stored timeline, a person's edits,
turns with their tools and approvals — behind the public surface of DESIGN §2.
"""

from __future__ import annotations

import threading
import uuid
import weakref
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from ..cards.models import (
    Approval,
    Card,
    HostMessage,
    Interpolation,
    SummaryDivider,
    UserInput,
    register_session_opener,
)
from ..cards.order import key_between
from ..config.hooks import HOOK_EVENTS
from ..config.policy import Tier
from ..config.skills import read_skill
from ..errors import InvalidInput, MewrkError, SessionNotFound
from ..providers.base import ModelInfo, ToolSpec
from ..providers.registry import config_for, prices_of, resolve
from ..store import cards as card_rows
from ..store import history as history_rows
from ..store import sessions as session_rows
from ..store.db import Database, database
from ..tools.mcp import ServerStatus
from .admission import admit
from .agent import agent_of, agent_start
from .assembly.attachments import attachments_for_message
from .assembly.context import ContextInfo, measure, session_spending
from .assembly.prefix import skill_text
from .background import TASKS, stop_background_work
from .catalog import history_entry_of
from .compaction import AutoCompaction, HandoffTool, compact_in_place, compact_now
from .configure import changed_fields, changed_settings, check_async_tools
from .display import make_view, view_bundle
from .events import Listener, SessionState, SettingsChanged
from .notebook import read_notebook, write_export
from .render import timeline_markdown
from .represent import represent
from .settings import SessionSettings, StoredSettings, parse_settings
from .subagents import (
    WITHDRAWN,
    SubagentCalls,
    chain,
    decide_for_subagent,
    stop_subagents_elsewhere,
    subagent_approval,
    waiting_below,
    waiting_status,
)
from .timeline.edits import TimelineEdits
from .timeline.mirror import Timeline
from .timeline.stored import StoredTimeline
from .turns.approvals import Approvals
from .turns.control import TurnControl
from .turns.parts import SessionParts
from .turns.policy import PLAN_OFF, PLAN_ON, policy_for
from .turns.records import RunEvent, RunInfo, events_after, find_run, session_runs
from .turns.run import Run
from .turns.status import TurnStatus
from .turns.toolbox import ToolBox
from .turns.toollock import ToolLock
from .unbuilt import unbuilt_notices, warn_unbuilt
from .views import CardList, HistoryEntry, HistoryList
from .workspace import Workspace

_LIVE: weakref.WeakValueDictionary[tuple[Path, str], Session] = weakref.WeakValueDictionary()
_LIVE_LOCK = threading.Lock()


def plan_message(on: bool) -> HostMessage:
    """The host message that tells the model plan mode began or ended."""
    return HostMessage(topic="plan_mode", text=PLAN_ON if on else PLAN_OFF)


def _kept(_timeline: Timeline, _result: None) -> None:
    """A settings change leaves the cards as they are."""


def open_subagent(session_id: str) -> Session:
    """Open a subagent's session by id, in the workspace it was started in (else the current directory)."""
    task = TASKS.by_child(session_id)
    return Session.open(session_id, workspace=task.workspace if task is not None else None)


def forget_open_sessions() -> None:
    """Forget the sessions this process has open, so the next `Session.open` reads them from the store."""
    with _LIVE_LOCK:
        _LIVE.clear()


FOLLOWED_ELSEWHERE = (
    "This approval belongs to a subagent that another process follows (the kernel or script that started "
    "it): approve or reject it there, or stop it from here with s.stop()."
)


class Session:
    """One conversation: its cards, settings, history and runs. Use `Session.new` or `Session.open`."""

    def __init__(self, workspace: Workspace, db: Database, row: Any):
        self.workspace = workspace
        self.id: str = row["id"]
        self._title: str = row["title"]
        self.parent_id: str | None = row["parent_id"]
        # The session this one continues after a handoff or a native compaction, if it is a handover.
        self.handover_of: str | None = row["handover_of"]
        self.created_at: float = row["created_at"]
        settings = SessionSettings.model_validate_json(row["settings"])
        self._settings = StoredSettings(db, self.id, settings)
        # The engine side of the session: the parts below receive what they need, nothing more.
        self.stored_timeline = StoredTimeline(db, self.id)
        status = TurnStatus(self.stored_timeline)
        toolbox = ToolBox(workspace, self._settings, self.stored_timeline)
        # The session's MCP servers stop when it is collected, and at the latest when the process exits.
        weakref.finalize(self, toolbox.mcp.servers.close)
        approvals = Approvals(self.stored_timeline, self._settings, toolbox)
        self._parts = SessionParts(
            workspace, self._settings, self.stored_timeline, status, toolbox, approvals
        )
        self._edits = TimelineEdits(self.stored_timeline, status.check_idle, approvals)
        self._turns = TurnControl(
            self._parts,
            session=self,
            before_request=AutoCompaction(self._parts, self),
            take_calls=chain(HandoffTool(self._parts, self), SubagentCalls(self._parts, self)),
        )

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
        config = config_for(ws.home)
        assert config is not None  # a workspace always has a configuration folder, perhaps empty
        # A folder not trusted yet, or with invalid files, is said in notices rather than acted on.
        start, notices = admit(config, agent_start(config, model, settings), model_asked=model is not None)
        parsed = parse_settings(start.settings)
        # An unknown model is a clear error now, not at the first send; so are async tool calls it cannot take.
        _, info = resolve(parsed.model, ws.home)
        check_async_tools(parsed, info)
        if "compaction" not in start.settings:  # a new conversation compacts natively where its model can
            parsed.compaction = "native" if info.native_compaction else "handoff"
        policy_for(config, parsed.safety_level)  # so is an unknown safety level
        for name in parsed.skills:
            read_skill(ws.home, name)  # and a skill that does not exist or cannot be read
        notices += unbuilt_notices(config, parsed.agent, agent_of(config, parsed.agent), parsed.model)
        warn_unbuilt(notices)
        cards: list[tuple[str, Card]] = []
        if start.system_prompt is not None:
            cards.append((key_between(None, None), start.system_prompt))
        if parsed.plan_mode:  # its guidance is a card, so a branch or fork carries it
            cards.append((key_between(cards[-1][0] if cards else None, None), plan_message(True)))
        session = cls._create(ws, title or "untitled", parsed, parent_id=None, cards=cards)
        session.run_hooks("session_start")  # what they print opens the conversation
        return session

    @classmethod
    def import_notebook(
        cls,
        path: str | Path,
        *,
        model: str | None = None,
        title: str | None = None,
        workspace: str | Path | None = None,
    ) -> Session:
        """A new session from a notebook that `export` wrote: its cards in order, with their kinds, ids and
        text (as edited in the notebook; cells added there by hand are left out). The model is `model`, or
        the workspace's default; the title is `title`, or the exported session's."""
        cards, meta = read_notebook(Path(path))
        ws = Workspace.at(workspace)
        config = config_for(ws.home)
        assert config is not None  # a workspace always has a configuration folder, perhaps empty
        start, notices = admit(config, agent_start(config, model, {}), model_asked=model is not None)
        parsed = parse_settings(start.settings)
        resolve(parsed.model, ws.home)
        warn_unbuilt(notices)
        rows: list[tuple[str, Card]] = []
        for card in cards:
            rows.append((key_between(rows[-1][0] if rows else None, None), card))
        name = title or str(meta.get("title") or Path(path).stem)
        return cls._create(ws, name, parsed, parent_id=None, cards=rows)

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
        assert row is not None  # the id was just found
        key = (db.path, row["id"])
        with _LIVE_LOCK:
            live = _LIVE.get(key)
            if live is None:
                live = cls(ws, db, row)
                _LIVE[key] = live
        live.recover_if_orphaned()
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
        with self.stored_timeline.db.tx() as conn:
            session_rows.set_title(conn, self.id, value.strip())
        self._title = value.strip()

    @property
    def handovers(self) -> list[str]:
        """The ids of the sessions that continue this one after a handoff or a native compaction, oldest
        first (their titles are `<title>-handover-<n>`); `handover_of` is the way back."""
        rows = session_rows.handovers_of(self.stored_timeline.db.conn(), self.id)
        return [row["id"] for row in rows]

    @property
    def settings(self) -> SessionSettings:
        """Model, agent, safety level, memory levels, reasoning and the other conversation settings."""
        return self._settings.refresh()  # another process may have changed them

    def configure(self, **changes: Any) -> SessionSettings:
        """Change conversation settings (model, safety_level, reasoning, memory, host_container,
        async_tools, compaction, plan_mode) and store them; a value that cannot act is refused with a
        sentence and nothing changes. Refused while a turn runs, like an edit."""
        self._parts.status.check_idle()
        before = self.settings
        after = changed_settings(before, changes, self.workspace.home)
        timeline = self.stored_timeline
        timeline.commit(lambda conn: session_rows.set_settings(conn, self.id, after.model_dump()), _kept)
        self._settings.value = after
        changed = changed_fields(before, after)
        if changed:
            timeline.emit(SettingsChanged(self.id, changed))
        if "plan_mode" in changed:  # the model reads when plan mode begins and ends, where it happened
            timeline.append(plan_message(after.plan_mode))
        return after

    @property
    def state(self) -> SessionState:
        """idle, running or awaiting_approval — as the store says, for every process alike (R4)."""
        return self._parts.status.state()

    @property
    def cards(self) -> CardList:
        """The timeline, in order."""
        return CardList(self.stored_timeline.current().cards, self.not_sent)

    def timeline(self) -> Timeline:
        """The timeline with its order keys, read again if another process changed the session."""
        return self.stored_timeline.current()

    def card(self, card_id: str | Card) -> Card:
        """One card, by id, unambiguous id prefix, or position from the end (`"-1"`: the last card)."""
        found = self.stored_timeline.find(self.stored_timeline.resolve(card_id))
        assert found is not None  # resolve() found it
        return found

    @property
    def history(self) -> HistoryList:
        """Every request exactly as it was sent, with what came back (T17)."""
        rows = history_rows.load_history(self.stored_timeline.db.conn(), self.id)
        return HistoryList(history_entry_of(row) for row in rows)

    def history_entry(self, entry_id: int) -> HistoryEntry | None:
        """One request of the history by its id, without reading the others; None if there is none."""
        row = history_rows.load_entry(self.stored_timeline.db.conn(), self.id, entry_id)
        return history_entry_of(row) if row is not None else None

    @property
    def context(self) -> ContextInfo:
        """How full the window is: the last request's size (the vendor's) and the next one's (an estimate)."""
        _, info = resolve(self.settings.model, self.workspace.home)
        conn = self.stored_timeline.db.conn()
        sizes = measure(conn, self.id, self.stored_timeline.current().cards)
        return ContextInfo(
            agent=self.settings.agent,
            model=info.name,
            reasoning=self.settings.reasoning,
            # The figure is the most recent request's size; before the first, the next one's estimate.
            used=sizes.next_request if sizes.last_request is None else sizes.last_request,
            window=info.context_window,
            estimated=sizes.last_request is None,
            by_kind=sizes.by_kind,
            last_request=sizes.last_request,
            next_request=sizes.next_request,
            # What the whole session spent, priced apart from the room left in the window (D6).
            **session_spending(
                conn, self.id, lambda model: prices_of(model, self.workspace.home)
            ).model_dump(),
        )

    @property
    def model_info(self) -> ModelInfo:
        """What the engine knows of the session's model: window, vision, thinking, prices."""
        return resolve(self.settings.model, self.workspace.home)[1]

    @property
    def pending_approval(self) -> Approval | None:
        """The approval card waiting for a decision (A1) — this session's own, else one a subagent of it
        waits for — or None."""
        return self._parts.approvals.pending_approval() or subagent_approval(self.id)

    @property
    def status_line(self) -> str | None:
        """What the composer's status line says beside the cards while a subagent's approval waits on
        this timeline (the session itself stays idle: the person may go on writing), else None."""
        return waiting_status(self.stored_timeline.current().cards)

    def not_sent(self) -> dict[str, str]:
        """Cards the next request leaves out although they are on the timeline: card id -> why (T7)."""
        timeline = self.stored_timeline.current()
        # Only a signed block bound to what it follows can fall out; most timelines have none to check.
        if not timeline.bound_thinking:
            return {}
        try:
            _, info = resolve(self.settings.model, self.workspace.home)
            return self._parts.assemble(timeline.cards, info).not_sent
        except MewrkError:  # the model or the tools are misconfigured: sending says so, plainly
            return {}

    def tool_specs(self) -> list[ToolSpec]:
        """The tools this session's model may call, with their JSON schemas (T5)."""
        return self._parts.toolbox.specs()

    @property
    def tool_lock(self) -> ToolLock | None:
        """What the tool lock holds while the prompt cache is warm: the next request keeps the last one's
        tools (and host-message container) rather than the changed ones; None when nothing is held."""
        _, info = resolve(self.settings.model, self.workspace.home)
        return self._parts.offered(info).lock

    def accept_tool_change(self) -> str:
        """Accept the loss of the warm prompt cache: the next request offers the tools and host-message
        container the settings and configuration give now; returns what happens, in a sentence."""
        lock = self.tool_lock
        self._parts.toolbox.lock.accept()
        self.stored_timeline.emit(SettingsChanged(self.id, ()))  # the views drop the lock's line
        if lock is None:
            return "Nothing was held: the next request offers the tools as they are now."
        return "The next request offers the new tool list, so the prompt cache starts over."

    def mcp_servers(self) -> list[ServerStatus]:
        """The MCP servers of the configuration folder (`mcp/<name>.yaml`) and their state for this session:
        running (with its tools), failed (with the reason) — started now if they were not yet."""
        return self._parts.toolbox.mcp.statuses()

    def tool_tier(self, name: str) -> Tier:
        """allow, ask or deny: what the safety level does with a call of the tool `name` (A4)."""
        return self._parts.toolbox.tier(name)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every change of this session; returns the function that unsubscribes."""
        return self.stored_timeline.subscribe(listener)

    def recover_if_orphaned(self) -> None:
        """After a crash mid-turn: close the dead run and mark its unfinished cards interrupted."""
        self._parts.status.recover_if_orphaned()

    def use_skill(self, name: str) -> HostMessage:
        """Give the model the skill `name` (`skills/<name>/SKILL.md`) now: its instructions arrive as a host
        message at the end of the timeline, read from the next request on. Refused while a turn runs."""
        self._parts.status.check_idle()
        skill = read_skill(self.workspace.home, name)
        text = "The person chose a skill for what follows.\n\n" + skill_text(
            skill.name, skill.description, skill.instructions
        )
        message = HostMessage(topic="skill", text=text)
        self.stored_timeline.append(message)
        return message

    def run_hooks(self, event: str) -> list[HostMessage]:
        """Run the workspace's hooks of `event` (`hooks/<name>.yaml`) now; what they print is added to the
        timeline as host messages, which are returned. The engine runs them itself at their moments."""
        if event not in HOOK_EVENTS:
            raise InvalidInput(f"There is no hook event {event!r}; the events are {', '.join(HOOK_EVENTS)}.")
        return self._parts.toolbox.hooks.run(event)

    def finish_unfinished_cards(self, tool_calls: bool = True) -> None:
        """Mark replies still 'being written' as interrupted and unanswered tool calls as not run."""
        self._parts.status.finish_unfinished_cards(tool_calls)

    # ---- a person's changes (T4–T11) ---------------------------------------------------------------

    def insert(self, card: Card, before: str | Card | None = None, after: str | Card | None = None) -> Card:
        """Place a new card before or after another (default: at the end); nothing is sent (T4)."""
        return self._edits.insert(card, before, after)

    def edit(self, card_id: str | Card, **fields: Any) -> Card:
        """Change a card in place under the rules of T6; the model never sees that it was edited."""
        return self._edits.edit(card_id, **fields)

    def delete(self, *card_ids: str | Card) -> list[Card]:
        """Delete cards at once; one undo brings them all back (T8, T10)."""
        return self._edits.delete(*card_ids)

    def undo(self) -> str:
        """Revert this session's newest step, and only it (T9); returns what was undone."""
        return self._edits.undo()

    def redo(self) -> str:
        """Apply again the step this session undid last; returns what was redone."""
        return self._edits.redo()

    def attach(
        self,
        obj: Any,
        name: str | None = None,
        *,
        before: str | Card | None = None,
        after: str | Card | None = None,
    ) -> UserInput:
        """Add a user input carrying `obj` (default: at the end; nothing is sent): a DataFrame or Series as a
        bounded Markdown table with its shape and dtypes, an array's shape, dtype and preview, a figure or
        image as a PNG attachment (the vision gate applies), an exception with its traceback, other
        objects as their text. `name` labels it (default: the object's type)."""
        shown = represent(obj, name or type(obj).__name__)
        text = self._parts.secrets.redact(shown.text)  # a known secret in the object is hidden on its card
        card = UserInput(text=text, attachments=attachments_for_message(shown.attachments))
        inserted = self.insert(card, before=before, after=after)
        assert isinstance(inserted, UserInput)  # insert returns the card it placed
        return inserted

    def export(self, path: str | Path) -> Path:
        """Write the timeline to `path` (relative to the workspace): a notebook for `.ipynb` — messages and
        replies as Markdown cells, `python` calls as code cells with their output, thinking and other tool
        calls collapsed, each card's kind and id in the cell's metadata — or Markdown for `.md`."""
        target = Path(path).expanduser()
        target = target if target.is_absolute() else self.workspace.root / target
        cards = list(self.stored_timeline.current().cards)
        return write_export(target, cards, self.title, self.id, self.settings.model)

    def compact(self) -> SummaryDivider:
        """Summarise the conversation in place (C6): one call to the session's model writes a summary, and
        the divider placed after the last card makes requests carry it instead of every card above (they
        stay on the timeline). Refused, changing nothing, with too little to compact (fewer than 4
        messages or about 4k tokens), while a turn runs or an approval waits; undo takes it back."""
        self._settings.refresh()  # the summary is written by the model as stored, whoever changed it last
        return compact_in_place(self._parts)

    def compact_now(self) -> Session:
        """Continue the conversation in a new session now, whatever the threshold and the auto-compaction
        toggle (C5): one call to the model writes handoff documents, the original stops at its handoff
        card, and the new session `<title>-handover-<n>` is returned opened, waiting for the next message.
        Refused, changing and sending nothing, while a turn runs, while an approval waits, when the model
        has not replied since the last compaction (or at all), and while background work runs."""
        self._settings.refresh()  # the documents are written by the model as stored, whoever changed it last
        handover: Session = compact_now(self._parts, self)
        return handover

    def branch(self, at: str | Card) -> Session:
        """A new session whose timeline is this one up to and including the card `at` (T11)."""
        return self._copy(self._edits.rows_until(at, inclusive=True), "branch")

    def fork(self, at: str | Card) -> Session:
        """A new session with everything above the card `at` (T11)."""
        return self._copy(self._edits.rows_until(at, inclusive=False), "fork")

    def _copy(self, rows: list[tuple[str, Card]], suffix: str) -> Session:
        settings = self.settings.model_copy(update={"approved_always": []}, deep=True)
        return self._create(self.workspace, f"{self.title} ({suffix})", settings, self.id, rows)

    # ---- turns (T12, A1–A3, T5, T6) --------------------------------------------------------------

    def send(
        self,
        text: str | None = None,
        *,
        attachments: Iterable[Any] = (),
        wait: bool | None = None,
        template: str | None = None,
        interpolated: Iterable[Interpolation] = (),
    ) -> Run:
        """Start a turn: with text, a new user input; with none (or only spaces), continue (T12).

        In a script this waits for the turn to end; in a kernel it returns at once and the turn runs
        in the background, so that Stop and approvals keep working (pass `wait=` to choose).
        `template` and `interpolated` record a message typed with `{expressions}` (the magics fill them).
        """
        self._settings.refresh()  # the turn uses the settings as stored, whoever changed them last
        done = list(interpolated)
        if done and text:
            # What the kernel's values became is the engine reading the kernel, like a tool's result: a
            # known secret among them is hidden on the card (and in an export), not only in the request.
            redact = self._parts.secrets.redact
            text = redact(text)
            done = [i.model_copy(update={"text": redact(i.text)}) for i in done]
        return self._turns.send(text, attachments, wait, template, done)

    def approve(self, reason: str | None = None, *, always: bool = False, wait: bool | None = None) -> Run:
        """Approve the pending tool call (A1) — for this session from now on with `always=True` — and go on;
        with none of its own waiting, the call a subagent of it waits for."""
        if self._parts.approvals.waiting_approval() is None:
            run = decide_for_subagent(self.id, "approved", reason, always)
            if run is not None:
                return run
            self._refuse_if_followed_elsewhere()
        return self._turns.decide("approved_always" if always else "approved", reason, wait)

    def reject(self, reason: str | None = None, *, wait: bool | None = None) -> Run:
        """Reject the pending tool call; the model reads a statement with `reason` and goes on (A2); with
        none of its own waiting, the call a subagent of it waits for."""
        if self._parts.approvals.waiting_approval() is None:
            run = decide_for_subagent(self.id, "rejected", reason, False)
            if run is not None:
                return run
            self._refuse_if_followed_elsewhere()
        return self._turns.decide("rejected", reason, wait)

    def execute(
        self,
        name: str,
        params: dict[str, Any] | None = None,
        *,
        before: str | Card | None = None,
        after: str | Card | None = None,
        wait: bool | None = None,
    ) -> Run:
        """Insert a tool call and run it now under the safety level — Execute and add (T5)."""
        return self._turns.execute(name, params or {}, before, after, wait)

    def reexecute(self, card_id: str | Card, *, wait: bool | None = None) -> Run:
        """Run an `ls`, `grep`, `find`, `read` or `lsp` call again with its edited parameters (T6)."""
        return self._turns.reexecute(card_id, wait)

    def stop(self) -> bool:
        """Stop the running turn, whichever window or process owns it (R3), and the session's background
        work (its subagents stop in turn); False if nothing ran."""
        stopped = bool(stop_background_work(self.id))
        stopped = stop_subagents_elsewhere(self) or stopped  # those another process follows
        if self._is_subagent() and self._parts.approvals.withdraw(WITHDRAWN):
            # A stopped subagent's approval is nobody's to answer: deciding it later would run the call
            # with no one to take its result. Its supervisor here ends it as stopped.
            task = TASKS.by_child(self.id)
            if task is not None:
                task.stop()
            stopped = True
        return self._turns.stop() or stopped

    def _refuse_if_followed_elsewhere(self) -> None:
        """A subagent's approval shown here that no supervisor of this process follows is answered in the
        process that follows it: deciding it here would run the call with nobody to take its result."""
        if self._parts.approvals.pending_approval() is None and waiting_below(self.cards) is not None:
            raise InvalidInput(FOLLOWED_ELSEWHERE)

    def _is_subagent(self) -> bool:
        row = session_rows.get_session(self.stored_timeline.db.conn(), self.id)
        return bool(row is not None and row["subagent"])

    def runs(self) -> list[RunInfo]:
        """This session's runs, oldest first, from any process: id, state, whether it still runs, times (R5)."""
        self.recover_if_orphaned()  # a run whose process died reads as ended, not as running forever
        return session_runs(self.stored_timeline.db.conn(), self.id)

    def run_info(self, run_id: str) -> RunInfo:
        """One run of this session by its id: whether it still runs, how it ended (RunNotFound if none)."""
        self.recover_if_orphaned()
        return find_run(self.stored_timeline.db.conn(), run_id, self.id)

    def run_events(self, run_id: str, after: int | None = None) -> list[RunEvent]:
        """A run's stored events in order, those after the sequence number `after` when given (R5)."""
        conn = self.stored_timeline.db.conn()
        find_run(conn, run_id, self.id)
        return events_after(conn, run_id, after)

    @property
    def last_run(self) -> Run | None:
        """The run this process started most recently, if any."""
        return self._turns.last_run

    # ---- display -------------------------------------------------------------------------------

    def __repr__(self) -> str:
        return f"<Session {self.id} {self.title!r} {self.settings.model} {len(self.stored_timeline.current())} cards>"

    def widget(self) -> Any:
        """The anywidget timeline of this session (N3); every view of it stays in step."""
        return make_view(self)

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None) -> tuple[dict, dict]:
        return view_bundle(self)

    def _repr_markdown_(self) -> str:
        return timeline_markdown(self)


register_session_opener(open_subagent)  # `card.session` of a subagent card opens it
