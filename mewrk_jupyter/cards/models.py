"""The card kinds of the timeline (T3) as pydantic models: pure data, no I/O."""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from .inert import for_notebook, inert_markdown
from .words import divider_text, label, replay_line


def new_card_id() -> str:
    """A fresh stable card id: 12 hex digits, short enough to type in a magic."""
    return uuid.uuid4().hex[:12]


class Usage(BaseModel):
    """Token figures of one model response, as the vendor (or the offline model) counted them."""

    model_config = ConfigDict(extra="forbid")

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0
    estimated: bool = False

    @property
    def request_size(self) -> int:
        """Size of the request that produced this response (input + cache tokens)."""
        return self.input_tokens + self.cache_read_tokens + self.cache_write_tokens


class Attachment(BaseModel):
    """A file attached to a user input (T18); the bytes are kept base64-encoded."""

    model_config = ConfigDict(extra="forbid")

    name: str
    media_type: str
    data: str = ""
    size: int = 0
    sent_as: Literal["original", "extracted_text"] | None = None
    text: str | None = None
    pages: int | None = None  # of a PDF, when it could be read


class Interpolation(BaseModel):
    """One `{expression}` of a message typed in a notebook, and the text it became when it was sent."""

    model_config = ConfigDict(extra="forbid")

    source: str  # the expression between the braces, as typed
    text: str


class Card(BaseModel):
    """Fields every card has: a stable id, its kind, who made it and whether a person edited it."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str = Field(default_factory=new_card_id)
    kind: str
    origin: Literal["person", "model", "engine"] = "person"
    edited: bool = False
    created_at: float = Field(default_factory=time.time)
    # Cards of one model response share it, so assembly can rebuild the assistant message exactly.
    response_id: str | None = None

    def title_line(self) -> str:
        """The first line of what the card shows, for reprs and tables."""
        text = getattr(self, "text", "") or ""
        first = text.strip().splitlines()[0] if text.strip() else ""
        return first[:80] + ("…" if len(first) > 80 else "")

    def __repr__(self) -> str:
        return f"<{self.kind} {self.id}: {self.title_line()!r}>"

    def _repr_markdown_(self) -> str:
        return for_notebook(
            f"**{label(self.kind)}** `{self.id}`\n\n{inert_markdown(getattr(self, 'text', '') or '')}"
        )


class SystemPrompt(Card):
    """A system prompt the person placed on the timeline."""

    kind: Literal["system_prompt"] = "system_prompt"
    text: str = ""


class UserInput(Card):
    """What the person said, with any attachments."""

    kind: Literal["user_input"] = "user_input"
    text: str = ""
    attachments: list[Attachment] = Field(default_factory=list)
    # A message with `{expressions}` typed in a notebook: `text` is what the model reads (the values in
    # place); the message as typed and each expression with its text are kept, so an edit shows both.
    template: str | None = None
    interpolated: list[Interpolation] = Field(default_factory=list)
    # An object attached from the notebook (s.attach, %mewrk attach): the name it was read from. Its text
    # is Markdown the engine wrote (a DataFrame's table), shown rendered; what a person types is shown as typed.
    attached: str | None = None


class Thinking(Card):
    """The model's thinking; a signed block keeps its original text and signature apart from `text` (T7)."""

    kind: Literal["thinking"] = "thinking"
    text: str = ""
    signature: str | None = None
    signed_text: str | None = None
    # Redacted or encrypted thinking: opaque data sent back verbatim; such a card can only be deleted.
    encrypted: str | None = None
    protocol: str | None = None
    # Digest of everything the block was signed after (tools, system, earlier messages); a change
    # above it invalidates the signature, and the block is then no longer sent as thinking (T7).
    bound_to: str | None = None

    @property
    def is_signed(self) -> bool:
        """True when the provider signed this block, so editing changes only what the person sees."""
        return self.signature is not None or self.encrypted is not None


class ToolPreview(BaseModel):
    """What a call would change, read when it waits for approval: the change as a unified diff (shown on
    the approval), and a digest of the text it expects to find when it runs, so that a person's edit
    meanwhile is not overwritten (the call answers that the text changed)."""

    model_config = ConfigDict(extra="forbid")

    diff: str
    expected: str | None = None  # sha256 of the text as read (the text itself may hold a secret)


class CellChange(BaseModel):
    """What a `notebook_edit` call changed, kept on its card so that Revert can put the cell back: the
    notebook, the cell (its id and place), and its source before and after (None: it did not exist)."""

    model_config = ConfigDict(extra="forbid")

    path: str
    mode: Literal["replace", "insert", "delete"]
    cell_id: str
    index: int
    cell_type: str = "code"
    before: str | None = None
    after: str | None = None
    # False when a known secret in the cell's text had to be hidden here: the text kept is not the cell's.
    exact: bool = True
    reverted: bool = False


class ToolCall(Card):
    """A tool call and its result in one card."""

    kind: Literal["tool_call"] = "tool_call"
    name: str
    params: dict[str, Any] = Field(default_factory=dict)
    result: str | None = None
    is_error: bool = False
    call_id: str = Field(default_factory=lambda: "call_" + uuid.uuid4().hex[:16])
    status: Literal["saved", "pending", "running", "done", "rejected", "denied"] = "saved"
    # Images the call made (a `python` call's figures, an MCP tool's images): the person sees them, and a
    # model with vision input receives them with the result (a model without reads the result's notes).
    images: list[Attachment] = Field(default_factory=list)
    # What it would change, read when it waited for approval (notebook_edit, write, edit); None otherwise.
    preview: ToolPreview | None = None
    # What it changed in a notebook, for Revert (notebook_edit).
    change: CellChange | None = None
    # The workspace's `before_tool` hooks had their say (once: not again when its approval resumes the
    # turn): what they decided, why, and the input the model gave when a hook rewrote it (A5).
    hooked: bool = False
    hook_decision: Literal["allow", "ask", "deny"] | None = None
    hook_reason: str | None = None
    original_params: dict[str, Any] | None = None

    def title_line(self) -> str:
        """Tool name and parameters on one line."""
        params = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        line = f"{self.name}({params})"
        return line[:80] + ("…" if len(line) > 80 else "")


class ModelReply(Card):
    """What the model wrote; editable once complete."""

    kind: Literal["model_reply"] = "model_reply"
    text: str = ""
    model: str | None = None
    usage: Usage | None = None
    complete: bool = True
    interrupted: bool = False
    stop_reason: str | None = None


class HostMessage(Card):
    """What the engine hands the model about its surroundings (T13); one editable line."""

    kind: Literal["host_message"] = "host_message"
    origin: Literal["person", "model", "engine"] = "engine"
    text: str = ""
    topic: str = "notice"


class SummaryDivider(Card):
    """Marks where the model reads a summary instead of the cards above (C6).

    The summary is the model's working material, not part of the conversation a person reads: views show
    the divider's line, and requests carry the summary in place of the cards above it.
    """

    kind: Literal["summary_divider"] = "summary_divider"
    origin: Literal["person", "model", "engine"] = "engine"
    summary: str = ""
    covered: int = 0  # the messages above the divider that the summary stands for
    tokens_saved: int | None = None  # an estimate; None when it could not be measured
    # The instructions the summary was written with: the person's, then a before_compact hook's (C7).
    instructions: str | None = None

    def title_line(self) -> str:
        """The divider's line: how many messages it covers, about how many tokens it saves, and whether
        the summary was written with instructions."""
        line = divider_text(self.covered, self.tokens_saved)
        return f"{line} · with instructions" if self.instructions else line

    def _repr_markdown_(self) -> str:
        return for_notebook(f"──── {self.title_line()} ────")


class Handoff(Card):
    """Handoff documents that start a new conversation (C3)."""

    kind: Literal["handoff"] = "handoff"
    origin: Literal["person", "model", "engine"] = "engine"
    text: str = ""


class NativeCompaction(Card):
    """A provider's encrypted compaction item with the person's kept messages (C4)."""

    kind: Literal["native_compaction"] = "native_compaction"
    origin: Literal["person", "model", "engine"] = "engine"
    text: str = ""
    encrypted: str = ""
    kept: list[str] = Field(default_factory=list)


class Approval(Card):
    """A tool call waiting for the person's decision (A1)."""

    kind: Literal["approval"] = "approval"
    origin: Literal["person", "model", "engine"] = "engine"
    tool_card_id: str
    name: str
    params: dict[str, Any] = Field(default_factory=dict)
    decision: Literal["pending", "approved", "approved_always", "rejected", "expired"] = "pending"
    reason: str | None = None
    # The subagent session whose tool call waits, when the approval is shown on its parent's timeline.
    session_id: str | None = None
    # Who asked for the call: the model, or the person who ran it by hand (its card says "You asked").
    asked_by: Literal["model", "person"] = "model"
    # The change the call would make, as a unified diff, when its tool can tell (notebook_edit, write, edit).
    diff: str | None = None
    # What "approve always" can add besides the whole tool (A5): the rule for this very command or path,
    # and the rules for commands like it (`bash(git status*)`); shown before either is added.
    rules_this: list[str] = Field(default_factory=list)
    rules_like: list[str] = Field(default_factory=list)
    # What an "approve always" added, and where: the session, or the safety level's policy file.
    granted: list[str] = Field(default_factory=list)
    granted_in: str | None = None
    # Why a `before_tool` hook asked the person about this call, when one did (A5).
    hook_reason: str | None = None

    def title_line(self) -> str:
        """Who asks to run which tool: the model, a subagent, or the person who ran it by hand."""
        if self.session_id is not None:
            return f"A subagent asks to run {self.name}"
        who = "You asked" if self.asked_by == "person" else "The model asks"
        return f"{who} to run {self.name}"


# Opens a session by id; the engine registers it (cards sit below the engine and cannot import it).
SessionOpener = Callable[[str], Any]
SESSION_OPENERS: list[SessionOpener] = []


def register_session_opener(opener: SessionOpener) -> None:
    """Make `opener(session_id)` what `Subagent.session` calls."""
    SESSION_OPENERS[:] = [opener]


# How a piece of background work stands: a subagent's or a workflow's.
WorkState = Literal["running", "awaiting_approval", "completed", "failed", "stopped"]


class Subagent(Card):
    """A subagent's run, shown read-only (T15): its agent, its task, its state and, once ended, its result."""

    kind: Literal["subagent"] = "subagent"
    origin: Literal["person", "model", "engine"] = "engine"
    text: str = ""  # the task
    agent: str = ""
    session_id: str = ""  # the subagent's own session
    task_id: str = ""
    state: WorkState = "running"
    result: str | None = None

    @property
    def session(self) -> Any:
        """The subagent's own session, opened (its timeline, history and runs)."""
        if not SESSION_OPENERS:
            raise RuntimeError("No session opener is registered: import mewrk_jupyter first.")
        return SESSION_OPENERS[0](self.session_id)

    def title_line(self) -> str:
        """The agent, its state and the task's first line."""
        line = f"{self.agent} ({self.state.replace('_', ' ')}): {super().title_line()}"
        return line[:80] + ("…" if len(line) > 80 else "")


class WorkflowStep(BaseModel):
    """One step of a workflow's run: its agent, its own session once it started, how it stands."""

    model_config = ConfigDict(extra="forbid")

    name: str
    agent: str
    session_id: str = ""  # empty until the step starts
    state: Literal["waiting", "running", "awaiting_approval", "completed", "failed", "stopped"] = "waiting"
    result: str | None = None


class Workflow(Card):
    """A workflow's run, shown read-only (X8): its name, what it was started with, each step's state and
    own session, and once it ended its result (the last step's)."""

    kind: Literal["workflow"] = "workflow"
    origin: Literal["person", "model", "engine"] = "engine"
    text: str = ""  # what the workflow was started with: its {input}
    name: str = ""
    task_id: str = ""
    state: WorkState = "running"
    steps: list[WorkflowStep] = Field(default_factory=list)
    result: str | None = None

    def title_line(self) -> str:
        """The workflow, its state and the step it is at."""
        at = next((s for s in self.steps if s.state in ("running", "awaiting_approval")), None)
        where = f", step `{at.name}`" if at is not None else ""
        line = f"workflow {self.name} ({self.state.replace('_', ' ')}{where}): {super().title_line()}"
        return line[:80] + ("…" if len(line) > 80 else "")

    def step_session(self, step: str | int) -> Any:
        """A step's own session, opened, by the step's name or its place (0 first)."""
        found = (
            self.steps[step]
            if isinstance(step, int)
            else next((s for s in self.steps if s.name == step), None)
        )
        if found is None:
            names = ", ".join(f"`{s.name}`" for s in self.steps)
            raise KeyError(f"The workflow {self.name} has no step `{step}`; its steps: {names}.")
        if not found.session_id:
            raise LookupError(f"The step `{found.name}` has not started yet.")
        if not SESSION_OPENERS:
            raise RuntimeError("No session opener is registered: import mewrk_jupyter first.")
        return SESSION_OPENERS[0](found.session_id)


class Preview(Card):
    """A read-only preview of something the engine shows the person."""

    kind: Literal["preview"] = "preview"
    origin: Literal["person", "model", "engine"] = "engine"
    text: str = ""


class ComparedSide(BaseModel):
    """One side of a replayed turn as its comparison card keeps it: the model, what it spent, its cards."""

    model_config = ConfigDict(extra="forbid")

    model: str = ""
    tokens: int = 0
    cost: float | None = None  # None: the model has no prices configured
    latency: float | None = None  # the model's seconds; None when not recorded
    card_ids: list[str] = Field(default_factory=list)


class Comparison(Card):
    """A replayed turn beside the recording's (#38), after the turn's new cards on the branch; never sent."""

    kind: Literal["comparison"] = "comparison"
    origin: Literal["person", "model", "engine"] = "engine"
    source_id: str = ""  # the recording: the session replayed
    number: int = 1  # the person's message it compares, the first being 1
    same_text: bool = True
    same_tools: bool = True
    diff: str = ""  # the reply's text, recorded to replayed, as a unified diff; empty when the same
    tools_diff: str = ""  # the tool calls, a line each, likewise
    recorded: ComparedSide = Field(default_factory=ComparedSide)
    replayed: ComparedSide = Field(default_factory=ComparedSide)

    def title_line(self) -> str:
        """The turn, the verdict, each side's tokens and cost: "turn 2 · same · 516 → 777 tokens · $0.01 → —"."""
        return replay_line(self.number, self.same_tools, self.same_text, (self.recorded, self.replayed))


AnyCard = Annotated[
    SystemPrompt
    | UserInput
    | Thinking
    | ToolCall
    | ModelReply
    | HostMessage
    | SummaryDivider
    | Handoff
    | NativeCompaction
    | Approval
    | Subagent
    | Workflow
    | Preview
    | Comparison,
    Field(discriminator="kind"),
]

CARD_ADAPTER: TypeAdapter[Card] = TypeAdapter(AnyCard)

CARD_CLASSES: dict[str, type[Card]] = {
    c.model_fields["kind"].default: c for c in get_args(get_args(AnyCard)[0])
}


def card_from_json(data: str | bytes) -> Card:
    """Parse a stored card."""
    return CARD_ADAPTER.validate_json(data)


def card_from_dict(data: dict[str, Any]) -> Card:
    """Build a card of the right kind from a plain dict (e.g. from the widget)."""
    return CARD_ADAPTER.validate_python(data)
