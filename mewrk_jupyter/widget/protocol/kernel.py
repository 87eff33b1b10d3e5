"""What the kernel sends a view: snapshots, patches, the dashboard and results, and their parts."""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import (
    AliasChoices,
    ConfigDict,
    Field,
    SkipValidation,
    TypeAdapter,
    WithJsonSchema,
    with_config,
)
from typing_extensions import TypedDict

from ...engine.history_summary import RequestSummary
from .base import SentModel
from .card import CardPayload, CardRow
from .economy import CachePreviewInfo, LastCacheInfo, PruneInfo, StaleInfo
from .settings import SettingsAnswer


def _for() -> Any:
    """`for` (the view that asked) is a Python keyword: the field is `for_`, spelled `for` on the wire."""
    return Field(serialization_alias="for", validation_alias=AliasChoices("for", "for_"))


# ---- parts of messages ------------------------------------------------------------------------------


class SessionLink(SentModel):
    """Another session the header links to: the original of a handover, or one of its handovers."""

    id: str
    title: str


class SessionInfo(SentModel):
    """The session a view shows, with the sessions it continues or that continue it after a compaction."""

    id: str
    title: str
    model: str
    handover_of: SessionLink | None = None
    handovers: list[SessionLink] = []
    # Why the person cannot change this timeline (a workflow step's own record), or null.
    read_only: str | None = None


class CameFrom(SentModel):
    """The session this widget showed before it opened this one in place: the header's way back."""

    id: str
    title: str


class CommandInfo(SentModel):
    """A slash command of the composer, as the kernel offers it."""

    name: str
    synopsis: str
    summary: str


# The part of a tool's JSON Schema the tool-call form reads; the kernel sends the tool's schema whole.
# Pydantic cannot point a field at a definition it did not make, so the field carries a marker that
# schema.py replaces with a reference to this definition.
SEE_JSON_SCHEMA_DEF = {"x-definition": "JsonSchema"}
JSON_SCHEMA_DEF: dict[str, Any] = {
    "title": "JsonSchema",
    "type": "object",
    "properties": {
        "type": {"anyOf": [{"type": "string"}, {"type": "array", "items": {"type": "string"}}]},
        "description": {"type": "string"},
        "properties": {"type": "object", "additionalProperties": {"$ref": "#/$defs/JsonSchema"}},
        "required": {"type": "array", "items": {"type": "string"}},
        "enum": {"type": "array", "items": {}},
        "default": {},
        "items": {"$ref": "#/$defs/JsonSchema"},
    },
}


class ToolInfo(SentModel):
    """An enabled tool, for the tool-call form."""

    name: str
    description: str
    input_schema: Annotated[dict[str, Any], WithJsonSchema(SEE_JSON_SCHEMA_DEF)]
    reexecute: bool  # a person may run a call of it again with edited parameters


class HistoryRow(SentModel):
    """One request of the session's history, without its JSON; `number` counts from 1 in the session."""

    id: int
    number: int
    summary: RequestSummary
    run_id: str | None
    model: str
    protocol: str
    started_at: float
    ended_at: float | None
    messages: int | None
    usage: dict[str, Any] | None
    error: str | None
    answered: bool


class HistoryEntryData(SentModel):
    """One request exactly as sent, with what came back."""

    id: int
    number: int
    request: dict[str, Any]
    response: dict[str, Any] | None
    error: str | None


# ---- kernel → view ----------------------------------------------------------------------------------


class ToolLockInfo(SentModel):
    """The tool lock while the prompt cache is warm: what stays as it was, and when the cache cools."""

    text: str
    until: float  # seconds since the epoch: the line goes then, the new tools being offered


class AgentFigureMsg(SentModel):
    """One agent of the conversation in the agent filter (D5): its session, its own figure and cost."""

    agent: str
    session_id: str
    title: str
    line: str
    cost_line: str
    current: bool


class ContextMsg(SentModel):
    """The dashboard: the line, the two sizes, the ring's breakdown by card kind, and the cost."""

    type: Literal["context"] = "context"
    line: str
    level: Literal["ok", "amber", "red"]
    percent: float | None
    used: int  # the figure: the last request's size, or before the first request the next one's estimate
    window: int | None
    estimated: bool
    by_kind: dict[str, int]
    used_text: str
    window_text: str | None
    # The last request's size: the vendor's count, or the engine's estimate when it was stopped before
    # the vendor counted it; null before the first.
    last_request: int | None
    last_text: str | None
    last_words: str = "last request"  # what the figure is: "last request (stopped, estimated)" then
    next_request: int  # the size the next request will have: an estimate from the timeline as it stands
    next_text: str
    sizes: list[str]  # each size in a sentence that says what it counts: the next request's, then the last's
    cost: float | None
    cost_line: str
    # Where auto-compaction acts, in percent of the window (the ring marks it); null when it is off.
    compact_at: int | None = None
    # While the prompt cache is warm and the tools changed: the line that offers to accept the cache loss.
    tool_lock: ToolLockInfo | None = None
    # With subagents, every agent of the conversation with its own figure (D5); empty with one agent.
    agents: list[AgentFigureMsg] = Field(default_factory=list)
    # The stale tool results the dashboard offers to prune; null when there are none.
    stale: StaleInfo | None = None
    # What the last request read from the prompt cache and wrote to it; null when it did neither.
    last_cache: LastCacheInfo | None = None


class SnapshotMsg(SentModel):
    """The whole timeline and what the view needs to offer, sent to the view that said hello."""

    type: Literal["snapshot"] = "snapshot"
    for_: str | None = _for()
    session: SessionInfo
    came_from: CameFrom | None
    # Neither checked nor copied one by one (see `wire`): a timeline may hold thousands of cards, each
    # made by card_payload from a checked card, and the tests hold every kind's payload to CardPayload.
    cards: SkipValidation[list[CardRow]]
    state: str
    context: ContextMsg
    kinds: list[str]  # kinds the insert menu offers as a text card
    editable: dict[str, list[str]]  # the fields a person may edit, by card kind
    read_only: dict[str, str]  # why a kind cannot be edited at all, in a sentence, by card kind
    confirm_delete: bool
    commands: list[CommandInfo]
    tools: list[ToolInfo]
    vision: bool  # the model takes images
    chunk: int  # bytes per upload message
    heartbeat: float  # seconds between two `alive` messages
    # What the workspace's configuration folder would use once trusted, shown with a Trust button;
    # null when nothing in it waits for trust.
    trust: str | None = None


class CardAddedMsg(SentModel):
    """A card was added."""

    type: Literal["card_added"] = "card_added"
    card: CardPayload
    order_key: str


class CardChangedMsg(SentModel):
    """A card changed (its whole new state)."""

    type: Literal["card_changed"] = "card_changed"
    card: CardPayload
    order_key: str


class CardRemovedMsg(SentModel):
    """A card was removed."""

    type: Literal["card_removed"] = "card_removed"
    card_id: str


class TextDeltaMsg(SentModel):
    """Streamed text: `text` replaces the card's text from `offset` on."""

    type: Literal["text_delta"] = "text_delta"
    card_id: str
    offset: int
    text: str


class StateMsg(SentModel):
    """The session's state changed (idle, running, …)."""

    type: Literal["state"] = "state"
    state: str


class NoticeMsg(SentModel):
    """Something the person should read, not tied to an action of this view."""

    type: Literal["notice"] = "notice"
    level: str
    text: str


class PreferencesMsg(SentModel):
    """The folder's preferences changed (mw.set_preferences, another kernel, an editor): what views act on."""

    type: Literal["preferences"] = "preferences"
    confirm_delete: bool


class StatusMsg(SentModel):
    """What the engine is doing beside the cards, for the composer's status line; null: done."""

    type: Literal["status"] = "status"
    text: str | None
    # The header's word for what the engine does meanwhile ("compacting"), where the session's state
    # alone would say idle; null when the line is about something else, or done.
    busy: str | None = None


@with_config(ConfigDict(extra="allow"))
class ResultData(TypedDict, total=False):
    """What an action made, as far as a view reads it; a command may add more."""

    card_id: str  # the card saved or inserted
    card_ids: list[str]  # the cards deleted
    run_id: str | None  # the turn or tool run started
    sent: bool  # a command sent something to the model
    session_id: str  # the session made (branch, fork) or now shown
    title: str
    offer_open: bool  # offer to show that session in this widget
    open: str  # the panel a command opens
    entries: list[HistoryRow]
    entry: HistoryEntryData
    image: str  # a tool call's image as a `data:` URL (PNG, JPEG, GIF or WebP only)
    trusted: bool  # the workspace's configuration folder was trusted: the Trust notice goes
    settings: SettingsAnswer  # what the settings panel shows: its sections, a file, a refused save
    prune: PruneInfo  # what a prune changed, or (a dry run) would change
    cache: CachePreviewInfo  # what changing a card spends of the prompt cache


class ResultMsg(SentModel):
    """The answer to one action: ok, a sentence for the card or the composer, and what it made."""

    type: Literal["result"] = "result"
    for_: str | None = _for()
    req: int | None
    ok: bool
    message: str
    card_id: str | None  # the card the action was about: a refusal shows on it
    data: ResultData = Field(default_factory=lambda: ResultData())
    while_state: str | None = None  # the message holds only while the session is in this state


KernelMsg = Annotated[
    SnapshotMsg
    | CardAddedMsg
    | CardChangedMsg
    | CardRemovedMsg
    | TextDeltaMsg
    | StateMsg
    | NoticeMsg
    | PreferencesMsg
    | StatusMsg
    | ContextMsg
    | ResultMsg,
    Field(discriminator="type"),
]
# The same members, for the schema and the tests.
KERNEL_MODELS: tuple[type[SentModel], ...] = get_args(get_args(KernelMsg)[0])
KERNEL: TypeAdapter[KernelMsg] = TypeAdapter(KernelMsg)


def wire(message: SentModel) -> dict[str, Any]:
    """A kernel message as the comm carries it (JSON-ready, `for` spelled as on the wire)."""
    if isinstance(message, SnapshotMsg):  # its card rows are JSON-ready already: carried, not copied
        return {**message.model_dump(mode="json", by_alias=True, exclude={"cards"}), "cards": message.cards}
    return message.model_dump(mode="json", by_alias=True)
