"""A card as the views see it: the fields of every card kind, minus opaque blobs (widget/payloads.py)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, with_config
from typing_extensions import NotRequired, TypedDict

from ...cards.models import Usage


@with_config(ConfigDict(extra="forbid"))
class AttachmentInfo(TypedDict):
    """A file of a user input, without its bytes or extracted text."""

    name: str
    media_type: str
    size: int
    sent_as: Literal["original", "extracted_text"] | None
    pages: int | None


@with_config(ConfigDict(extra="forbid"))
class InterpolationInfo(TypedDict):
    """One `{expression}` of a message typed in a notebook, and the text it became."""

    source: str
    text: str


@with_config(ConfigDict(extra="forbid"))
class ToolPreviewInfo(TypedDict):
    """What a tool call would change, read when it waited for approval: its unified diff."""

    diff: str
    expected: str | None  # a digest of the text it expects to find


@with_config(ConfigDict(extra="forbid"))
class CellChangeInfo(TypedDict):
    """What a notebook_edit call changed in a cell, for its card's Revert."""

    path: str
    mode: Literal["replace", "insert", "delete"]
    cell_id: str
    index: int
    cell_type: str
    before: str | None
    after: str | None
    exact: bool
    reverted: bool


@with_config(ConfigDict(extra="forbid"))
class WorkflowStepInfo(TypedDict):
    """One step of a workflow card: its agent, its own session once it started, how it stands."""

    name: str
    agent: str
    session_id: str
    state: Literal["waiting", "running", "awaiting_approval", "completed", "failed", "stopped"]
    result: str | None


@with_config(ConfigDict(extra="forbid"))
class ComparedSideInfo(TypedDict):
    """One side of a replay's comparison card: the model, its tokens, cost and seconds, and its cards."""

    model: str
    tokens: int
    cost: float | None
    latency: float | None
    card_ids: list[str]


@with_config(ConfigDict(extra="forbid"))
class CardPayload(TypedDict):
    """A card as the views see it: the card's fields (one model per kind), minus opaque blobs."""

    id: str
    kind: str
    origin: Literal["person", "model", "engine"]
    edited: bool
    created_at: float
    response_id: str | None
    text: NotRequired[str]
    attachments: NotRequired[list[AttachmentInfo]]
    template: NotRequired[str | None]  # a user input typed with `{expressions}`: the message as typed
    interpolated: NotRequired[list[InterpolationInfo]]
    attached: NotRequired[
        str | None
    ]  # a user input carrying an object from the notebook: its Markdown renders
    signed: NotRequired[bool]  # thinking: it carries a vendor signature (or is encrypted)
    encrypted: NotRequired[bool]  # thinking, native compaction: the content is opaque
    protocol: NotRequired[str | None]
    bound_to: NotRequired[str | None]
    # Why the next request leaves this card out although it is on the timeline (a signed thinking block
    # whose prefix changed); absent when the card is sent.
    not_sent: NotRequired[str]
    name: NotRequired[str]
    params: NotRequired[dict[str, Any]]
    result: NotRequired[str | None]
    is_error: NotRequired[bool]
    images: NotRequired[list[AttachmentInfo]]  # a tool call's images (a kernel `python` call's figures)
    call_id: NotRequired[str]
    preview: NotRequired[ToolPreviewInfo | None]  # a tool call: what it would change (notebook_edit)
    change: NotRequired[CellChangeInfo | None]  # a tool call: the cell it changed, for Revert
    status: NotRequired[Literal["saved", "pending", "running", "done", "rejected", "denied"]]
    model: NotRequired[str | None]
    usage: NotRequired[Usage | None]
    complete: NotRequired[bool]
    interrupted: NotRequired[bool]
    stop_reason: NotRequired[str | None]
    topic: NotRequired[str]
    summary: NotRequired[str]
    instructions: NotRequired[str | None]  # summary_divider: what the summary was written with (C7)
    covered: NotRequired[int]
    tokens_saved: NotRequired[int | None]
    kept: NotRequired[list[str]]
    tool_card_id: NotRequired[str]
    decision: NotRequired[Literal["pending", "approved", "approved_always", "rejected", "expired"]]
    reason: NotRequired[str | None]
    agent: NotRequired[str]
    # subagent: its own session, task id and state; approval: the subagent session whose call waits
    session_id: NotRequired[str | None]
    # approval: who asked for the call — the model, or the person who ran it by hand
    asked_by: NotRequired[Literal["model", "person"]]
    # approval: the change the call would make, as a unified diff; comparison: the reply's text, recorded
    # to replayed (empty when the same)
    diff: NotRequired[str | None]
    # approval: the rules "approve always" can add (this command, commands like it), and what it added
    rules_this: NotRequired[list[str]]
    rules_like: NotRequired[list[str]]
    granted: NotRequired[list[str]]
    granted_in: NotRequired[str | None]
    # a tool call: what the before_tool hooks decided, why, and the model's input when one rewrote it;
    # an approval: why a hook asked (A5)
    hooked: NotRequired[bool]
    hook_decision: NotRequired[Literal["allow", "ask", "deny"] | None]
    hook_reason: NotRequired[str | None]
    original_params: NotRequired[dict[str, Any] | None]
    task_id: NotRequired[str]
    state: NotRequired[Literal["running", "awaiting_approval", "completed", "failed", "stopped"]]
    steps: NotRequired[list[WorkflowStepInfo]]  # a workflow: its steps (X8)
    # a replay's comparison (#38): the recording, the turn, the verdict, the tool calls' diff, each side
    source_id: NotRequired[str]
    number: NotRequired[int]
    same_text: NotRequired[bool]
    same_tools: NotRequired[bool]
    tools_diff: NotRequired[str]
    recorded: NotRequired[ComparedSideInfo]
    replayed: NotRequired[ComparedSideInfo]


@with_config(ConfigDict(extra="forbid"))
class CardRow(TypedDict):
    """A card and its place on the timeline (order keys sort as strings)."""

    card: CardPayload
    order_key: str
