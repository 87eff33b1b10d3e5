"""What a view sends the kernel: hello, alive, bye, file chunks, and the actions it asks of the session.

An action is flat on the wire: `{type: "action", view, req, action, …its fields}`. Reading one that
does not fit its model gives a one-sentence refusal (InvalidInput), never a traceback.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, Field, TypeAdapter, ValidationError

from ...errors import InvalidInput
from .base import ActionBase, Id
from .base import FromView as _FromView
from .settings import (
    ConfigCreateAction,
    ConfigDeleteAction,
    ConfigReadAction,
    ConfigSaveAction,
    ConfigureAction,
    SetPreferencesAction,
    SettingsAction,
)

Place = Literal["before", "after"]


class HelloMsg(_FromView):
    """A view opened (or missed a patch): send it a snapshot."""

    type: Literal["hello"]
    view: str


class AliveMsg(_FromView):
    """A view is still shown; it says so every `heartbeat` seconds."""

    type: Literal["alive"]
    view: str


class ByeMsg(_FromView):
    """A view was removed."""

    type: Literal["bye"]
    view: str


class UploadMsg(_FromView):
    """One chunk of a file the view attaches; the bytes travel as the message's one binary buffer."""

    type: Literal["upload"]
    view: str
    upload_id: Id
    name: str
    media_type: str  # empty when the browser does not know it
    size: int
    offset: int


class EditAction(ActionBase):
    """Change fields of a card."""

    action: Literal["edit"]
    card_id: Id
    fields: dict[str, Any]
    attachments: list[str] = Field(default_factory=list)  # upload ids of files dropped on a message


class InsertAction(ActionBase):
    """Insert a text card before or after another (at the end without an anchor)."""

    action: Literal["insert"]
    kind: str
    fields: dict[str, Any] = Field(default_factory=dict)
    anchor: str | None = None
    where: Place = "after"


class DeleteAction(ActionBase):
    """Delete cards (one undo restores them all)."""

    action: Literal["delete"]
    card_ids: list[str]


class UndoAction(ActionBase):
    """Undo the session's last change."""

    action: Literal["undo"]


class RedoAction(ActionBase):
    """Redo the change last undone."""

    action: Literal["redo"]


class SendAction(ActionBase):
    """Send a message (empty: the model continues from the timeline) with the uploads it names."""

    action: Literal["send"]
    text: str = ""
    attachments: list[str] = Field(default_factory=list)  # upload ids


class CommandAction(ActionBase):
    """A `/command` typed in the composer."""

    action: Literal["command"]
    text: Id


class HistoryAction(ActionBase):
    """The session's requests, in a few lines each."""

    action: Literal["history"]


class HistoryEntryAction(ActionBase):
    """One request exactly as sent."""

    action: Literal["history_entry"]
    entry_id: int


class ToolCallAction(ActionBase):
    """The tool-call form: save the call with its typed result, or execute it and add the result."""

    action: Literal["tool_call"]
    name: Id
    params: dict[str, Any] = Field(default_factory=dict)
    result: str | None = None
    execute: bool = False
    anchor: str | None = None
    where: Place = "after"


class ReexecuteAction(ActionBase):
    """Run a tool call again with its (edited) parameters."""

    action: Literal["reexecute"]
    card_id: Id


class RevertAction(ActionBase):
    """Put a notebook cell back as it was before a notebook_edit call changed it."""

    action: Literal["revert"]
    card_id: Id


class ToolImageAction(ActionBase):
    """The bytes of an image a tool call made (a figure), to show on its card: asked when the card shows,
    so that a snapshot of thousands of cards carries none."""

    action: Literal["tool_image"]
    card_id: Id
    index: int = Field(ge=0)


class ApproveAction(ActionBase):
    """Approve the waiting tool call; `always` approves more from now on: true (or "tool") the whole
    tool, "command" this very command, "like" commands like it, or a rule written out (A5); `in_policy`
    keeps it in the safety level's policy file instead of the session."""

    action: Literal["approve"]
    card_id: str | None = None
    reason: str | None = None
    always: bool | str = False
    in_policy: bool = False


class RejectAction(ActionBase):
    """Reject the waiting tool call, with a reason for the model."""

    action: Literal["reject"]
    card_id: str | None = None
    reason: str | None = None


class StopAction(ActionBase):
    """Stop the running turn."""

    action: Literal["stop"]


class BranchAction(ActionBase):
    """Copy the session up to and including a card into a new session."""

    action: Literal["branch"]
    card_id: Id


class ForkAction(ActionBase):
    """Copy the session above a card into a new session."""

    action: Literal["fork"]
    card_id: Id


class OpenSessionAction(ActionBase):
    """Show another session (a branch or fork just made) in this widget, in place."""

    action: Literal["open_session"]
    session_id: Id


class CompactNowAction(ActionBase):
    """Compact the conversation into a new session now (Session.compact_now), whatever the threshold."""

    action: Literal["compact_now"]


class ReplayAction(ActionBase):
    """Ask this session's messages again of `model` (None: the recording's) on a branch, each turn compared
    with the recording's (#38), and show the branch here; tools "recorded" (nothing runs) or "live"."""

    action: Literal["replay"]
    model: str | None = None
    tools: Literal["recorded", "live"] = "recorded"


class PruneAction(ActionBase):
    """Prune the stale tool results, or the cards named (a card, a box selection), as one undo step;
    `dry_run` changes nothing and answers what the prune would save and spend of the prompt cache."""

    action: Literal["prune"]
    cards: Literal["stale"] | list[str] = "stale"
    dry_run: bool = False


class CachePreviewAction(ActionBase):
    """What the next request spends of the prompt cache if a card (or anything after it) changes."""

    action: Literal["cache_preview"]
    card_id: Id


class BackAction(ActionBase):
    """Show again the session this widget showed before the last `open_session`."""

    action: Literal["back"]


class TrustAction(ActionBase):
    """Trust the session's workspace configuration folder as its files stand now."""

    action: Literal["trust"]


class AcceptToolChangeAction(ActionBase):
    """Offer the changed tools from the next request on, although the prompt cache is warm."""

    action: Literal["accept_tool_change"]


Action = Annotated[
    EditAction
    | InsertAction
    | DeleteAction
    | UndoAction
    | RedoAction
    | SendAction
    | CommandAction
    | HistoryAction
    | HistoryEntryAction
    | ToolCallAction
    | ReexecuteAction
    | RevertAction
    | ToolImageAction
    | ApproveAction
    | RejectAction
    | StopAction
    | BranchAction
    | ForkAction
    | CompactNowAction
    | ReplayAction
    | PruneAction
    | CachePreviewAction
    | OpenSessionAction
    | BackAction
    | TrustAction
    | AcceptToolChangeAction
    | SettingsAction
    | ConfigureAction
    | SetPreferencesAction
    | ConfigReadAction
    | ConfigSaveAction
    | ConfigCreateAction
    | ConfigDeleteAction,
    Field(discriminator="action"),
]
ViewMsg = Annotated[HelloMsg | AliveMsg | ByeMsg | UploadMsg | Action, Field(discriminator="type")]

# The same members, for the schema and the tests.
ACTION_MODELS: tuple[type[ActionBase], ...] = get_args(get_args(Action)[0])
VIEW_MODELS: tuple[type[BaseModel], ...] = (HelloMsg, AliveMsg, ByeMsg, UploadMsg)
ACTIONS: TypeAdapter[Action] = TypeAdapter(Action)
Said = Annotated[HelloMsg | AliveMsg | ByeMsg | UploadMsg, Field(discriminator="type")]
_SAID: TypeAdapter[Said] = TypeAdapter(Said)


def _words(loc: tuple[Any, ...]) -> str:
    """A field's path as a person reads it: `card_ids.0` becomes "card ids item 1"."""
    parts = [f"item {part + 1}" if isinstance(part, int) else str(part).replace("_", " ") for part in loc]
    return " ".join(parts)


def refusal(error: ValidationError) -> str:
    """The first thing wrong with a message from a view, in one sentence for the person."""
    first = error.errors()[0]
    kind, loc, given = first["type"], tuple(first["loc"]), first["input"]
    if kind == "union_tag_invalid":
        if isinstance(given, dict) and given.get("type") == "action":
            return f"The widget asked for an unknown action {given.get('action')!r}."
        return f"The widget sent a message of an unknown type {given.get('type')!r}."
    if kind == "union_tag_not_found":
        return "The widget sent a message without saying what it asks for."
    if not loc:
        return "The widget sent something that is not a message."
    what, field = _words(loc[:1]), _words(loc[1:])  # loc[0] is the action (or message type) read
    if kind == "missing" or (kind == "string_too_short" and not given):
        return f"The widget sent no {field}."
    if kind == "extra_forbidden":
        return f"The widget's {what} request does not take {field}."
    reason = first["msg"][:1].lower() + first["msg"][1:]
    return f"In the widget's {what} request, {field} is not valid: {reason}."


def read_action(content: Any) -> Action:
    """An action from a view, checked against its model; InvalidInput (one sentence) when it does not fit."""
    try:
        return ACTIONS.validate_python(content)
    except ValidationError as exc:
        raise InvalidInput(refusal(exc)) from None


def read_view_message(content: Any) -> Said:
    """A hello, alive, bye or upload from a view (actions: `read_action`); InvalidInput when it does not fit."""
    try:
        return _SAID.validate_python(content)
    except ValidationError as exc:
        raise InvalidInput(refusal(exc)) from None
