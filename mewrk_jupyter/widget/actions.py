"""What a view asks of the session (edit, insert, send, approve, …), each carried out by the session's methods.

Each action is read through its model (widget/protocol/view.py) before it is carried out, and handled by
a `match` over the action union that the type checker holds complete. A refusal (`MewrkError`, or an
action that does not fit its model) comes back as a plain sentence for the card or the composer, never
a traceback; every action is answered by one `result` message to the view that asked.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from typing_extensions import assert_never

from ..cards.models import Approval, ToolCall, card_from_dict
from ..cards.rules import INSERTABLE
from ..cards.words import cards_of, noun
from ..commands import Result, approved, sentence, stopped
from ..engine.assembly.attachments import attachments_for_message
from ..engine.navigation import copy_session, switched_sentence
from ..engine.replay.report import started_sentence
from ..errors import InvalidInput, MewrkError, SessionBusy
from . import commands
from .answers import Answer, WidgetHost
from .economy import cache_answer, prune_answer
from .payloads import history_entry, history_rows, tool_image_url
from .protocol import (
    AcceptToolChangeAction,
    Action,
    ApproveAction,
    BackAction,
    BranchAction,
    CachePreviewAction,
    CommandAction,
    CompactNowAction,
    ConfigCreateAction,
    ConfigDeleteAction,
    ConfigReadAction,
    ConfigSaveAction,
    ConfigureAction,
    DeleteAction,
    EditAction,
    ForkAction,
    HistoryAction,
    HistoryEntryAction,
    InsertAction,
    OpenSessionAction,
    PruneAction,
    RedoAction,
    ReexecuteAction,
    RejectAction,
    ReplayAction,
    ResultMsg,
    RevertAction,
    SendAction,
    SetPreferencesAction,
    SettingsAction,
    StopAction,
    ToolCallAction,
    ToolImageAction,
    TrustAction,
    UndoAction,
    read_action,
)
from .settings import SettingsHandler, refusal_data

if TYPE_CHECKING:
    from ..engine.session import Session

log = logging.getLogger("mewrk_jupyter")

# Actions after which the dashboard's figures may have moved.
CHANGES_TIMELINE = (
    "edit",
    "insert",
    "delete",
    "undo",
    "redo",
    "command",
    "tool_call",
    "compact_now",
    "revert",
    "prune",
)
# Actions after which the views get the dashboard again: the ring marks the auto-compaction threshold.
# (The tool lock's line is part of the dashboard: a change of a configuration file may move it.)
CHANGES_FIGURE = (
    *CHANGES_TIMELINE,
    "set_preferences",
    "accept_tool_change",
    "config_save",
    "config_create",
    "config_delete",
)


def _place(request: InsertAction | ToolCallAction) -> dict[str, Any]:
    return {request.where: request.anchor} if request.anchor else {}


def _copied(session: Session, how: str, card_id: str) -> Answer:
    """A branch or fork at a card: its sentence, with the offer to open the new session here."""
    new, said = copy_session(session, how, card_id)
    return commands.answer(Result(said, opened=new))


class ActionHandler:
    """Carries out the actions of the timeline widget's views; the settings panel's go to its
    SettingsHandler. A collaborator of the widget: it reads the session the widget shows now."""

    def __init__(self, host: WidgetHost) -> None:
        self.host = host
        self.settings = SettingsHandler(host)

    def answer(self, content: Any, view: str | None = None) -> ResultMsg:
        """Carry out one action from a view; the `result` message that answers it (the widget sends it)."""
        raw = content if isinstance(content, dict) else {}
        name = raw.get("action")
        req = raw.get("req") if isinstance(raw.get("req"), int) else None
        about = raw.get("card_id") or raw.get("anchor")  # a refusal shows on that card, even a misread one
        card_id = about if isinstance(about, str) else None
        refused = ResultMsg(for_=view, req=req, ok=False, message="", card_id=card_id)
        try:
            done = self.handle(read_action(content))
            return ResultMsg(
                for_=view,
                req=req,
                ok=True,
                message=done.message,
                card_id=card_id,
                data=done.data,
                while_state=done.while_state,  # a notice true only while the session stays so
            )
        except SessionBusy as exc:
            # The refusal describes the turn (or the waiting approval): the views drop it when that ends.
            state = self.host.session.state
            return refused.model_copy(
                update={"message": str(exc), "while_state": state if state != "idle" else "running"}
            )
        except MewrkError as exc:  # a refused save also says where (its lines) or why (a conflict)
            return refused.model_copy(update={"message": str(exc), "data": refusal_data(exc)})
        except Exception as exc:  # a fault must reach the person as a sentence, not kill the comm
            log.exception("widget action %s failed", name)
            return refused.model_copy(update={"message": f"That did not work: {type(exc).__name__}: {exc}"})

    def handle(self, request: Action) -> Answer:
        """Carry out one action read from a view."""
        session = self.host.session
        match request:
            case EditAction():
                return self._edit(request)
            case InsertAction():
                return self._insert(request)
            case DeleteAction():
                return self._delete(request)
            case UndoAction():
                return Answer(sentence(session.undo()))
            case RedoAction():
                return Answer(sentence(session.redo()))
            case BranchAction():
                return _copied(session, "branch", request.card_id)
            case ForkAction():
                return _copied(session, "fork", request.card_id)
            case CompactNowAction():  # into a new session now; the answer offers to open it here
                new = session.compact_now()
                return commands.answer(Result(f"Compacted into a new session, {new.title}.", opened=new))
            case PruneAction():  # the stale results, a card or a box selection; a dry run changes nothing
                return prune_answer(session, request.cards, request.dry_run)
            case CachePreviewAction():  # an open editor's line, a delete confirm's
                return cache_answer(session, request.card_id)
            case OpenSessionAction():  # another session of this workspace, in place; the header offers back
                opened = self.host.switch_to(request.session_id)
                return Answer(switched_sentence(opened), {"session_id": opened.id})
            case BackAction():  # the session this widget showed before the last `open_session`
                opened = self.host.go_back()
                return Answer(switched_sentence(opened), {"session_id": opened.id})
            case SendAction():
                return self._send(request)
            case ReplayAction():
                return self._replay(request)
            case StopAction():  # on a replay's branch, or its recording, the replay ends too
                return commands.answer(stopped(session))
            case CommandAction():
                return commands.run_command(session, request.text)
            case HistoryAction():
                return Answer(data={"entries": history_rows(session)})
            case HistoryEntryAction():
                entry = history_entry(session, request.entry_id)
                if entry is None:
                    raise InvalidInput("That request is no longer in the history.")
                return Answer(data={"entry": entry})
            case ToolCallAction():
                return self._tool_call(request)
            case RevertAction():
                return Answer(session.revert(request.card_id), {"card_id": request.card_id})
            case ReexecuteAction():
                return Answer(data={"run_id": session.reexecute(request.card_id, wait=False).id})
            case ToolImageAction():
                return Answer(data={"image": tool_image_url(session.card(request.card_id), request.index)})
            case ApproveAction():
                always, reason = request.always, (request.reason or "").strip() or None
                session.approve(reason=reason, always=always, in_policy=request.in_policy, wait=False)
                decided = _found(session, request.card_id)
                granted = decided.granted if isinstance(decided, Approval) else None
                where = decided.granted_in if isinstance(decided, Approval) else None
                return Answer(approved(always, granted if always is not True else None, where))
            case RejectAction():
                session.reject(reason=(request.reason or "").strip() or None, wait=False)
                return Answer("Rejected.")
            case TrustAction():  # the Trust button: the same as typing /trust, so both say and do the same
                return commands.run_command(session, "/trust")
            case AcceptToolChangeAction():  # the next request offers the changed tools, the cache anew
                return Answer(session.accept_tool_change())
            case (
                SettingsAction()
                | ConfigureAction()
                | SetPreferencesAction()
                | ConfigReadAction()
                | ConfigSaveAction()
                | ConfigCreateAction()
                | ConfigDeleteAction()
            ):
                return self.settings.handle(request)
            case _:
                assert_never(request)

    # ---- the timeline -------------------------------------------------------------------------------

    def _edit(self, request: EditAction) -> Answer:
        session, uploads = self.host.session, self.host.uploads
        fields, upload_ids = dict(request.fields), request.attachments
        try:
            if upload_ids:  # files dropped on the message: they join the ones it has
                held = getattr(session.card(request.card_id), "attachments", None)
                if held is None:
                    raise InvalidInput("Only a message of yours takes files.")
                fields["attachments"] = attachments_for_message([*held, *uploads.take(upload_ids)])
            card = session.edit(request.card_id, **fields)
        finally:
            uploads.discard(upload_ids)
        return Answer("Saved.", {"card_id": card.id})

    def _insert(self, request: InsertAction) -> Answer:
        kind = request.kind
        if kind not in INSERTABLE:
            raise InvalidInput(f"A {noun(kind)} cannot be inserted from the widget.")
        try:
            card = card_from_dict({**request.fields, "kind": kind})
        except ValueError as exc:
            raise InvalidInput(f"Invalid {noun(kind)}: {exc}") from None
        placed = self.host.session.insert(card, **_place(request))
        return Answer("Inserted.", {"card_id": placed.id})

    def _delete(self, request: DeleteAction) -> Answer:
        ids = request.card_ids
        if not ids:
            raise InvalidInput("Choose the cards to delete.")
        gone = self.host.session.delete(*ids)
        said = f"Deleted {cards_of([c.kind for c in gone])}." if len(gone) > 1 else "Deleted."
        return Answer(said, {"card_ids": [c.id for c in gone]})

    def _replay(self, request: ReplayAction) -> Answer:
        """Start a replay of the session shown (#38) and show its branch here, in place: the comparisons
        appear on it as each turn ends, and "back" returns to the recording."""
        replay = self.host.session.replay(request.model or None, tools=request.tools)
        opened = self.host.switch_to(replay.branch.id)
        return Answer(started_sentence(replay), {"session_id": opened.id})

    # ---- the composer and the tool-call form (T5, T6) ----------------------------------------------

    def _send(self, request: SendAction) -> Answer:
        uploads, upload_ids = self.host.uploads, request.attachments
        try:
            files = uploads.take(upload_ids) if upload_ids else []
            run = self.host.session.send(request.text or None, attachments=files, wait=False)
        finally:
            uploads.discard(upload_ids)
        return Answer(data={"run_id": run.id})

    def _tool_call(self, request: ToolCallAction) -> Answer:
        """The tool-call form: Save records the call and its typed result; Execute and add runs it."""
        session = self.host.session
        if request.execute:
            run = session.execute(request.name, request.params, **_place(request), wait=False)
            return Answer(data={"run_id": run.id})
        card = ToolCall(name=request.name, params=request.params, result=request.result)
        placed = session.insert(card, **_place(request))
        return Answer("Saved — nothing was executed.", {"card_id": placed.id})


def _found(session: Session, card_id: str | None) -> Any:
    """The card `card_id` as it stands now, or None (no id, or the card is gone)."""
    if card_id is None:
        return None
    try:
        return session.card(card_id)
    except InvalidInput:
        return None
