"""What a view asks of the session (edit, insert, send, approve, …), each carried out by the session's methods.

Each action is read through its model (widget/protocol/view.py) before it is carried out. A refusal
(`MewrkError`, or an action that does not fit its model) comes back as a plain sentence for the card
or the composer, never a traceback; every action is answered by one `result` message to the view
that asked.
"""

from __future__ import annotations

import logging
from typing import Any

from ..cards.models import ToolCall, card_from_dict
from ..cards.rules import INSERTABLE
from ..cards.words import cards_of, noun
from ..commands import Result, sentence, stopped
from ..engine.assembly.attachments import attachments_for_message
from ..engine.navigation import copy_session, switched_sentence
from ..errors import InvalidInput, MewrkError, SessionBusy
from . import commands
from .payloads import context_payload, history_entry, history_rows, tool_image_url
from .protocol import (
    AcceptToolChangeAction,
    ApproveAction,
    BackAction,
    BranchAction,
    CommandAction,
    CompactNowAction,
    DeleteAction,
    EditAction,
    ForkAction,
    HistoryAction,
    HistoryEntryAction,
    InsertAction,
    OpenSessionAction,
    RedoAction,
    ReexecuteAction,
    RejectAction,
    ResultMsg,
    SendAction,
    StopAction,
    ToolCallAction,
    ToolImageAction,
    ToolInfo,
    TrustAction,
    UndoAction,
    read_action,
)
from .settings import SettingsActions, refusal_data

log = logging.getLogger("mewrk_jupyter")

# Tools whose call a person may run again with edited parameters (T6).
REEXECUTABLE = ("ls", "grep", "find", "read", "lsp")

# Actions after which the dashboard's figures may have moved.
CHANGES_TIMELINE = ("edit", "insert", "delete", "undo", "redo", "command", "tool_call", "compact_now")
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


class Actions(SettingsActions):
    """The `_do_<action>` handlers of the timeline widget (the settings panel's in SettingsActions);
    `act` dispatches to them."""

    session: Any

    def act(self, content: Any, view: str | None = None) -> ResultMsg:
        """Carry out one action from a view and answer it with a `result` message (also returned)."""
        raw = content if isinstance(content, dict) else {}
        name = raw.get("action")
        req = raw.get("req") if isinstance(raw.get("req"), int) else None
        about = raw.get("card_id") or raw.get("anchor")  # a refusal shows on that card, even a misread one
        card_id = about if isinstance(about, str) else None
        refused = ResultMsg(for_=view, req=req, ok=False, message="", card_id=card_id)
        try:
            request = read_action(content)
            message, data = getattr(self, f"_do_{request.action}")(request)
            while_state = data.pop("while_state", None)  # a notice true only while the session stays so
            answer = ResultMsg(
                for_=view,
                req=req,
                ok=True,
                message=message,
                card_id=card_id,
                data=data,
                while_state=while_state,
            )
        except SessionBusy as exc:
            # The refusal describes the turn (or the waiting approval): the views drop it when that ends.
            state = self.session.state
            answer = refused.model_copy(
                update={"message": str(exc), "while_state": state if state != "idle" else "running"}
            )
        except MewrkError as exc:  # a refused save also says where (its lines) or why (a conflict)
            answer = refused.model_copy(update={"message": str(exc), "data": refusal_data(exc)})
        except Exception as exc:  # a fault must reach the person as a sentence, not kill the comm
            log.exception("widget action %s failed", name)
            answer = refused.model_copy(update={"message": f"That did not work: {type(exc).__name__}: {exc}"})
        figure = [context_payload(self.session)] if name in CHANGES_FIGURE else []
        self.tell_views(answer, *figure)  # type: ignore[attr-defined]
        return answer

    # ---- what the snapshot tells about the session ------------------------------------------------

    def tool_forms(self) -> list[ToolInfo]:
        """The enabled tools for the tool-call form (T5): name, description, schema, re-executable."""
        specs = getattr(self.session, "tool_specs", None)
        if not callable(specs):
            return []
        try:
            found = specs()
        except MewrkError:
            return []
        return [
            ToolInfo(
                name=spec.name,
                description=spec.description,
                input_schema=spec.input_schema,
                reexecute=spec.name in REEXECUTABLE,
            )
            for spec in found
        ]

    def model_has_vision(self) -> bool:
        """Whether the session's model takes images (T19); the composer warns before a send is refused."""
        try:
            return self.session.model_info.vision
        except MewrkError:
            return False

    # ---- the timeline -------------------------------------------------------------------------------

    def _do_edit(self, request: EditAction) -> tuple[str, dict[str, Any]]:
        fields, upload_ids = dict(request.fields), request.attachments
        try:
            if upload_ids:  # files dropped on the message: they join the ones it has
                held = getattr(self.session.card(request.card_id), "attachments", None)
                if held is None:
                    raise InvalidInput("Only a message of yours takes files.")
                dropped = self.uploads.take(upload_ids)  # type: ignore[attr-defined]
                fields["attachments"] = attachments_for_message([*held, *dropped])
            card = self.session.edit(request.card_id, **fields)
        finally:
            self.uploads.discard(upload_ids)  # type: ignore[attr-defined]
        return "Saved.", {"card_id": card.id}

    def _do_insert(self, request: InsertAction) -> tuple[str, dict[str, Any]]:
        kind = request.kind
        if kind not in INSERTABLE:
            raise InvalidInput(f"A {noun(kind)} cannot be inserted from the widget.")
        data = {**request.fields, "kind": kind}
        try:
            card = card_from_dict(data)
        except ValueError as exc:
            raise InvalidInput(f"Invalid {noun(kind)}: {exc}") from None
        placed = self.session.insert(card, **_place(request))
        return "Inserted.", {"card_id": placed.id}

    def _do_delete(self, request: DeleteAction) -> tuple[str, dict[str, Any]]:
        ids = request.card_ids
        if not ids:
            raise InvalidInput("Choose the cards to delete.")
        gone = self.session.delete(*ids)
        return (f"Deleted {cards_of([c.kind for c in gone])}." if len(gone) > 1 else "Deleted."), {
            "card_ids": [c.id for c in gone]
        }

    def _do_undo(self, _request: UndoAction) -> tuple[str, dict[str, Any]]:
        return sentence(self.session.undo()), {}

    def _do_redo(self, _request: RedoAction) -> tuple[str, dict[str, Any]]:
        return sentence(self.session.redo()), {}

    def _do_branch(self, request: BranchAction) -> tuple[str, dict[str, Any]]:
        new, said = copy_session(self.session, "branch", request.card_id)
        return commands.answer(Result(said, opened=new))  # with the offer to open it here

    def _do_fork(self, request: ForkAction) -> tuple[str, dict[str, Any]]:
        new, said = copy_session(self.session, "fork", request.card_id)
        return commands.answer(Result(said, opened=new))

    def _do_compact_now(self, _request: CompactNowAction) -> tuple[str, dict[str, Any]]:
        """Compact into a new session now; the answer offers to open it here."""
        new = self.session.compact_now()
        said = f"Compacted into a new session, {new.title}."
        return commands.answer(Result(said, opened=new))

    def _do_open_session(self, request: OpenSessionAction) -> tuple[str, dict[str, Any]]:
        """Show another session of this workspace in this widget, in place; the header offers the way back."""
        opened = self.switch_to(request.session_id)  # type: ignore[attr-defined]
        return switched_sentence(opened), {"session_id": opened.id}

    def _do_back(self, _request: BackAction) -> tuple[str, dict[str, Any]]:
        """Show again the session this widget showed before the last `open_session`."""
        opened = self.go_back()  # type: ignore[attr-defined]
        return switched_sentence(opened), {"session_id": opened.id}

    # ---- the composer -------------------------------------------------------------------------------

    def _do_send(self, request: SendAction) -> tuple[str, dict[str, Any]]:
        text = request.text or None
        upload_ids = request.attachments
        try:
            files = self.uploads.take(upload_ids) if upload_ids else []  # type: ignore[attr-defined]
            run = self.session.send(text, attachments=files, wait=False)
        finally:
            self.uploads.discard(upload_ids)  # type: ignore[attr-defined]
        return "", {"run_id": run.id}

    def _do_stop(self, _request: StopAction) -> tuple[str, dict[str, Any]]:
        return commands.answer(stopped(self.session))

    def _do_command(self, request: CommandAction) -> tuple[str, dict[str, Any]]:
        return commands.run_command(self.session, request.text)

    def _do_history(self, _request: HistoryAction) -> tuple[str, dict[str, Any]]:
        return "", {"entries": history_rows(self.session)}

    def _do_history_entry(self, request: HistoryEntryAction) -> tuple[str, dict[str, Any]]:
        entry = history_entry(self.session, request.entry_id)
        if entry is None:
            raise InvalidInput("That request is no longer in the history.")
        return "", {"entry": entry}

    # ---- tool calls and approvals (T5, T6, A1–A3) ------------------------------------------------

    def _session_method(self, name: str) -> Any:
        method = getattr(self.session, name, None)
        if not callable(method):
            raise InvalidInput(
                f"This version of mewrk_jupyter cannot {name.replace('_', ' ')} from the widget."
            )
        return method

    def _do_tool_call(self, request: ToolCallAction) -> tuple[str, dict[str, Any]]:
        """The tool-call form: Save records the call and its typed result; Execute and add runs it."""
        name, params = request.name, request.params
        if request.execute:
            run = self._session_method("execute")(name, params, **_place(request), wait=False)
            return "", {"run_id": getattr(run, "id", None)}
        card = ToolCall(name=name, params=params, result=request.result)
        placed = self.session.insert(card, **_place(request))
        return "Saved — nothing was executed.", {"card_id": placed.id}

    def _do_reexecute(self, request: ReexecuteAction) -> tuple[str, dict[str, Any]]:
        run = self._session_method("reexecute")(request.card_id, wait=False)
        return "", {"run_id": getattr(run, "id", None)}

    def _do_tool_image(self, request: ToolImageAction) -> tuple[str, dict[str, Any]]:
        return "", {"image": tool_image_url(self.session.card(request.card_id), request.index)}

    def _do_approve(self, request: ApproveAction) -> tuple[str, dict[str, Any]]:
        reason = (request.reason or "").strip() or None
        always = request.always
        self._session_method("approve")(reason=reason, always=always, wait=False)
        return ("Approved for this session." if always else "Approved."), {}

    def _do_trust(self, _request: TrustAction) -> tuple[str, dict[str, Any]]:
        """The Trust button: the same as typing /trust, so both say and do the same."""
        return commands.run_command(self.session, "/trust")

    def _do_accept_tool_change(self, _request: AcceptToolChangeAction) -> tuple[str, dict[str, Any]]:
        """The tool lock's button: the next request offers the changed tools, the prompt cache starting over."""
        return self._session_method("accept_tool_change")(), {}

    def _do_reject(self, request: RejectAction) -> tuple[str, dict[str, Any]]:
        reason = (request.reason or "").strip() or None
        self._session_method("reject")(reason=reason, wait=False)
        return "Rejected.", {}
