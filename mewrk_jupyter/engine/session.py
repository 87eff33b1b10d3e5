"""The session: one conversation, composed of its parts — the stored timeline, a person's edits,
turns with their tools and approvals, its configuration — behind the public surface of DESIGN §2
(docs/python-api.md describes every name). Each method says what it does and hands the work to the part
that does it: what every process reads from the store in `stored_session` (the base class); opening,
branching and forking in `opening`; settings and the tool lock in `session_config`; approvals, Stop and
plan mode across subagents in `decisions`; a person's edits in `timeline.edits`; turns and hand-run tools
in `turns.control`; compaction in `compaction`; hooks and reverts in the toolbox; workflows in `subagents`;
replays in `replay`; stale results, pruning and cache previews in `economy` (a base); notebooks in `notebook`.
"""

from __future__ import annotations

import warnings
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
    Workflow,
    register_session_opener,
)
from ..config.policy import Tier
from ..errors import ConfigError, ConfigNotice
from ..providers.base import ModelInfo, ToolSpec
from ..store.db import Database
from ..tools.mcp import ServerStatus
from .assembly.context import ContextInfo
from .background.tasks import TASKS
from .compaction import AutoCompaction, HandoffTool, compact_in_place, compact_now, compact_now_refusal
from .decisions import SessionDecisions
from .display import make_view, markdown_view, view_bundle
from .economy.verbs import EconomyVerbs
from .notebook import write_export
from .opening import create_copy, create_session, forget_open_sessions, imported_start, new_start, open_once
from .replay.run import Replay, start_replay
from .represent import attached_input
from .session_config import SessionConfig
from .settings.model import SessionSettings
from .stored_session import StoredSession
from .subagents import SubagentCalls, chain
from .subagents.workflow import StepRecord, person_workflow
from .timeline.edits import TimelineEdits
from .toolbox.grants import drop_foreign_grants
from .toolbox.lock import ToolLock
from .turns.control import TurnControl
from .turns.parts import session_parts, told_already
from .turns.run import Run
from .unbuilt import warn_unbuilt
from .views import CardList
from .workspace import Workspace

# forget_open_sessions is imported from here by tests and benchmarks, as before the session was split.
__all__ = ["Session", "forget_open_sessions", "open_subagent"]


def open_subagent(session_id: str) -> Session:
    """Open a subagent's session by id, in the workspace it was started in (else the current directory)."""
    task = TASKS.by_child(session_id)
    return Session.open(session_id, workspace=task.workspace if task is not None else None)


class Session(StoredSession, EconomyVerbs):
    """One conversation: its cards, settings, history and runs. Use `Session.new` or `Session.open`."""

    def __init__(self, workspace: Workspace, db: Database, row: Any):
        super().__init__(db, row)  # id, title, the stored timeline, history and runs
        self.workspace = workspace
        self._step = StepRecord(row)  # a workflow step's timeline is a read-only record
        self._parts = parts = session_parts(workspace, self.stored_timeline, row)  # the engine side
        # The session's MCP servers stop when it is collected, and at the latest when the process exits.
        weakref.finalize(self, parts.toolbox.mcp.servers.close)
        self._config = SessionConfig(parts)
        self._edits = TimelineEdits(self.stored_timeline, parts.status.check_idle, parts.approvals)
        self._turns = TurnControl(
            parts,
            session=self,
            before_request=AutoCompaction(parts, self),
            take_calls=chain(HandoffTool(parts, self), SubagentCalls(parts, self)),
        )
        self._decisions = SessionDecisions(parts, self._turns, self)
        # A store copied or cloned here keeps no grant given elsewhere: said once, as the grants go (the
        # warning points at the line that opened it: Session.open, through the registry of open ones).
        said = drop_foreign_grants(workspace, parts.settings)
        if said is not None:
            warnings.warn(said, ConfigNotice, stacklevel=5)

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
        parsed, cards, notices = new_start(ws, model, settings)
        warn_unbuilt(notices)
        made = create_session(ws, title or "untitled", parsed, None, cards)
        told_already(made, notices)  # a prefix file left out was said just now: not again
        session = cls.open(made, workspace=ws.root)
        session.run_hooks("session_start")  # what they print opens the conversation
        try:  # built now, the tools and their specs: the first send finds them ready
            session.tool_specs()
        except ConfigError:
            pass  # a misconfiguration is refused by send, with its sentence
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
        """A new session from a notebook `export` wrote: its cards in order, kinds, ids and text as edited
        there (cells added by hand left out); the model `model` or the default, the title `title` or its."""
        ws, name, parsed, cards, notices = imported_start(Path(path), workspace, model, title)
        warn_unbuilt(notices)
        return cls.open(create_session(ws, name, parsed, None, cards), workspace=ws.root)

    @classmethod
    def open(cls, session_id: str, *, workspace: str | Path | None = None) -> Session:
        """Reopen a session from the store — in this process, another one, or after a restart."""
        ws = Workspace.at(workspace)
        live = open_once(ws, session_id, cls)
        live.recover_if_orphaned()
        return live

    # ---- reading and configuring ---------------------------------------------------------------

    @property
    def settings(self) -> SessionSettings:
        """Model, agent, safety level, memory levels, reasoning and the other conversation settings."""
        return self._config.settings()

    def configure(self, **changes: Any) -> SessionSettings:
        """Change conversation settings (model, safety_level, reasoning, memory, host_container,
        async_tools, compaction, plan_mode) and store them; a value that cannot act is refused with a
        sentence and nothing changes. Refused while a turn runs, like an edit. Plan mode turned on or off
        reaches the subagents still at work too (and theirs): their next request follows it. Turned on
        while an approval waits for a call it withholds (here or in such a subagent), that approval is
        withdrawn: the call is answered that it was not run, a subagent goes on, this turn ends there."""
        planned = self._config.settings().plan_mode
        after = self._config.configure(changes)
        if after.plan_mode != planned:
            self._decisions.follow_plan_mode(after.plan_mode)
        self._config.tell_held()
        return after

    def withdraw_withheld_approval(self) -> Run | None:
        """When plan mode is on and this session's turn waits for the approval of a call plan mode
        withholds, withdraw that approval: it expires wherever it shows, and the call is answered that
        plan mode withdrew it, without running. A subagent this process follows goes on planning (its run
        is returned); a conversation's own turn ends there (the next message goes on). None otherwise.
        `configure(plan_mode=True)` does this itself, here and in the subagents at work."""
        return self._decisions.withdraw_withheld()

    @property
    def cards(self) -> CardList:
        """The timeline, in order."""
        return CardList(self.stored_timeline.current().cards, self.not_sent)

    @property
    def context(self) -> ContextInfo:
        """How full the window is: the last request's size (the vendor's) and the next one's (an estimate)."""
        return self._config.context()

    @property
    def model_info(self) -> ModelInfo:
        """What the engine knows of the session's model: window, vision, thinking, prices."""
        return self._config.model_info()

    @property
    def pending_approval(self) -> Approval | None:
        """The approval card waiting for a decision (A1) — this session's own, else one a subagent of it
        waits for — or None."""
        return self._decisions.pending()

    @property
    def status_line(self) -> str | None:
        """What the composer's status line says beside the cards while a subagent's approval waits on
        this timeline (the session itself stays idle: the person may go on writing), else None."""
        return self._decisions.status_line()

    @property
    def read_only(self) -> str | None:
        """Why the person cannot change this timeline (a workflow step's own, X8), or None when they can."""
        return self._step.read_only()

    def _changeable(self) -> None:
        """Refuse the person's change of a read-only timeline; the step's own supervisor still sends."""
        self._step.check()

    def not_sent(self) -> dict[str, str]:
        """Cards the next request leaves out although they are on the timeline: card id -> why (T7)."""
        return self._config.not_sent()

    def tool_specs(self) -> list[ToolSpec]:
        """The tools this session's model may call, with their JSON schemas (T5)."""
        return self._parts.toolbox.specs()

    @property
    def tool_lock(self) -> ToolLock | None:
        """What the tool lock holds while the prompt cache is warm: the next request keeps the last one's
        tools (and host-message container) rather than the changed ones; None when nothing is held (as in
        a subagent at work, whose tools follow its settings at once: toolbox/lock.py says why)."""
        return self._config.tool_lock()

    def accept_tool_change(self) -> str:
        """Accept the loss of the warm prompt cache: the next request offers the tools and host-message
        container the settings and configuration give now; returns what happens, in a sentence."""
        return self._config.accept_tool_change()

    def mcp_servers(self, *, wait: bool = True) -> list[ServerStatus]:
        """The MCP servers of the configuration folder (`mcp/<name>.yaml`) and their state for this session:
        running (with its tools), failed (with the reason) — started now if they were not yet, and waited
        for unless `wait=False` (then a server still starting says so)."""
        return self._parts.toolbox.mcp.statuses(wait)

    def tool_tier(self, name: str, params: dict[str, Any] | None = None) -> Tier:
        """allow, ask or deny: what the safety level does with a call of the tool `name` (A4) — with
        `params`, by the level's rules by command too (`bash(git status*)`, A5)."""
        return self._parts.toolbox.tier(name, params)

    def use_skill(self, name: str) -> HostMessage:
        """Give the model the skill `name` (`skills/<name>/SKILL.md`) now: its instructions arrive as a host
        message at the end of the timeline, read from the next request on. Refused while a turn runs."""
        self._changeable()
        return self._config.use_skill(name)

    def run_hooks(self, event: str) -> list[HostMessage]:
        """Run the workspace's hooks of `event` (`hooks/<name>.yaml`) now; what they print is added to the
        timeline as host messages, which are returned. The engine runs them itself at their moments."""
        self._changeable()
        return self._parts.toolbox.hooks.run_by_hand(event)

    # ---- a person's changes (T4–T11) ---------------------------------------------------------------

    def insert(self, card: Card, before: str | Card | None = None, after: str | Card | None = None) -> Card:
        """Place a new card before or after another (default: at the end); nothing is sent (T4)."""
        self._changeable()
        return self._edits.insert(card, before, after)

    def edit(self, card_id: str | Card, **fields: Any) -> Card:
        """Change a card in place under the rules of T6; the model never sees that it was edited."""
        self._changeable()
        return self._edits.edit(card_id, **fields)

    def delete(self, *card_ids: str | Card) -> list[Card]:
        """Delete cards at once; one undo brings them all back (T8, T10)."""
        self._changeable()
        return self._edits.delete(*card_ids)

    def undo(self) -> str:
        """Revert this session's newest step, and only it (T9); returns what was undone."""
        self._changeable()
        return self._edits.undo()

    def redo(self) -> str:
        """Apply again the step this session undid last; returns what was redone."""
        self._changeable()
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
        self._changeable()
        # A known secret in the object is hidden on its card.
        card = attached_input(obj, name or type(obj).__name__, self._parts.secrets.redact)
        return self._edits.insert(card, before, after)

    def secret_check(self) -> Callable[[str], bool]:
        """A test of text for the secrets the session knows now (those its redaction hides), made once
        for code that tests many texts: the notebook's `{expressions}` never compute with one."""
        return self._parts.secrets.redactor().found_in

    def export(self, path: str | Path) -> Path:
        """Write the timeline to `path` (relative to the workspace): a notebook for `.ipynb` — messages and
        replies as Markdown cells, `python` calls as code cells with their output, thinking and other tool
        calls collapsed, each card's kind and id in the cell's metadata — or Markdown for `.md`. Returns the
        full path written."""
        cards = list(self.stored_timeline.current().cards)
        return write_export(self.workspace.root, path, cards, self.title, self.id, self.settings.model)

    def compact(self, instructions: str | None = None) -> SummaryDivider:
        """Summarise the conversation in place (C6): one call to the session's model writes a summary, and
        the divider placed after the last card makes requests carry it instead of every card above (they
        stay on the timeline). `instructions` say what the summary must keep or leave (C7): the request
        carries them and the divider says they were given. Refused, changing nothing, with too little
        to compact (fewer than 4 messages or about 4k tokens), while a turn runs or an approval waits;
        undo takes it back. The summary is read and edited from the divider (`s.edit(id, summary=…)`)."""
        self._changeable()
        return compact_in_place(self._parts, instructions)

    def compact_now(self, instructions: str | None = None) -> Session:
        """Continue the conversation in a new session now, whatever the threshold and the auto-compaction
        toggle (C5): one call to the model writes handoff documents (with `instructions`, what they must
        keep, C7), the original stops at its handoff card, and the new session `<title>-handover-<n>` is
        returned opened, waiting for the next message. Refused, changing and sending nothing, while a turn
        runs, while an approval waits, when the model has not replied since the last compaction (or at
        all), while background work runs, and with instructions where the compaction is native."""
        self._changeable()
        return compact_now(self._parts, self, instructions)  # the handover session, opened

    def compact_now_unavailable(self) -> str | None:
        """Why `compact_now()` would be refused now, in the sentence it would raise; None when it would act
        (the ring's Compact now button shows this beside it, closed)."""
        refused = compact_now_refusal(self._parts)
        return str(refused) if refused is not None else None

    def branch(self, at: str | Card) -> Session:
        """A new session whose timeline is this one up to and including the card `at` (T11)."""
        return self._copy(self._edits.rows_until(at, inclusive=True), "branch")

    def fork(self, at: str | Card) -> Session:
        """A new session with everything above the card `at` (T11)."""
        return self._copy(self._edits.rows_until(at, inclusive=False), "fork")

    def _copy(self, rows: list[tuple[str, Card]], suffix: str) -> Session:
        made = create_copy(self.workspace, f"{self.title} ({suffix})", self.settings, self.id, rows)
        return type(self).open(made, workspace=self.workspace.root)

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
        self._changeable()
        self._config.settings()  # the turn uses the settings as stored, whoever changed them last
        self._config.tell_held()  # a tool file changed while the cache is warm: said before the request goes
        return self._turns.send(text, attachments, wait, template, list(interpolated))

    def approve(
        self,
        reason: str | None = None,
        *,
        always: bool | str = False,
        in_policy: bool = False,
        wait: bool | None = None,
    ) -> Run:
        """Approve the pending tool call (A1), else the one a subagent of it waits for, and go on. `always`
        approves more from now on: True or "tool" the tool; "command" this command or path, "like" those
        like it (the card's `rules_this`, `rules_like`, A5), or a rule written out ("bash(git status*)");
        for this session, or with `in_policy=True` in the safety level's file, through the editor's checks."""
        return self._decisions.decide("approved", reason, always, wait, in_policy)

    def reject(self, reason: str | None = None, *, wait: bool | None = None) -> Run:
        """Reject the pending tool call; the model reads a statement with `reason` and goes on (A2); with
        none of its own waiting, the call a subagent of it waits for."""
        return self._decisions.decide("rejected", reason, False, wait)

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
        self._changeable()
        return self._turns.execute(name, params or {}, before, after, wait)

    def reexecute(self, card_id: str | Card, *, wait: bool | None = None) -> Run:
        """Run an `ls`, `grep`, `find`, `read` or `lsp` call again with its edited parameters (T6)."""
        self._changeable()
        return self._turns.reexecute(card_id, wait)

    def revert(self, card_id: str | Card) -> str:
        """Put a notebook cell back as it was before a `notebook_edit` call changed it; refused with a
        sentence when the cell changed since (the card stays, marked reverted once it is)."""
        self._changeable()
        return self._parts.toolbox.revert(self.card(card_id))

    def workflow(self, name: str, text: str = "") -> Workflow:
        """Start the workflow `.mewrk/workflows/<name>.yaml` on `text` (X8): its steps run in turn in the
        background, each a subagent, followed by its card; its result reaches the model as a
        `<task-notification>`. Refused with a sentence for what cannot run; `stop()` stops it."""
        self._changeable()
        return person_workflow(self, name, text)

    def replay(
        self, model: str | None = None, *, agent: str | None = None, upto: Any = None, tools: str = "recorded"
    ) -> Replay:
        """Ask this session's messages again of `model` or `agent` on a branch, each turn compared with the
        recording's; tools "recorded" (nothing runs) or "live" (#38). `wait()`, `stop()`, `report()`."""
        return start_replay(self, model, agent, upto, tools, type(self).open)

    def stop(self) -> bool:
        """Stop the running turn, whichever window or process owns it (R3), and the session's background
        work (its subagents stop in turn); False if nothing ran."""
        return self._decisions.stop()

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
        return markdown_view(self)


register_session_opener(open_subagent)  # `card.session` of a subagent card opens it
