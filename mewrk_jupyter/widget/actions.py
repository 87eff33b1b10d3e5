"""What a view asks of the session (edit, insert, send, approve, …), each carried out by the session's methods.

A refusal (`MewrkError`) comes back as a plain sentence for the card or the composer, never a
traceback; every action is answered by one `result` message to the view that asked.
"""

from __future__ import annotations

import logging
from typing import Any

from ..cards.models import ToolCall, card_from_dict
from ..cards.rules import INSERTABLE
from ..cards.words import cards_of, noun
from ..commands import Result, sentence, stopped
from ..engine.navigation import copy_session, switched_sentence
from ..errors import InvalidInput, MewrkError, SessionBusy
from . import commands
from .payloads import context_payload, history_entry, history_rows

log = logging.getLogger("mewrk_jupyter")

# Tools whose call a person may run again with edited parameters (T6).
REEXECUTABLE = ("ls", "grep", "find", "read", "lsp")

# Actions after which the dashboard's figures may have moved.
CHANGES_TIMELINE = ("edit", "insert", "delete", "undo", "redo", "command", "tool_call")


def _text_arg(request: dict[str, Any], name: str) -> str:
    value = request.get(name)
    if not isinstance(value, str) or not value:
        raise InvalidInput(f"The widget sent no {name.replace('_', ' ')}.")
    return value


def _params_arg(request: dict[str, Any]) -> dict[str, Any]:
    params = request.get("params") or {}
    if not isinstance(params, dict):
        raise InvalidInput("A tool call's parameters are a JSON object.")
    return params


def _place(request: dict[str, Any]) -> dict[str, Any]:
    anchor = request.get("anchor")
    where = request.get("where", "after")
    if where not in ("before", "after"):
        raise InvalidInput("A card is inserted before or after another.")
    return {where: anchor} if anchor else {}


class Actions:
    """The `_do_<action>` handlers of the timeline widget; `act` dispatches to them."""

    session: Any

    def act(self, request: dict[str, Any], view: str | None = None) -> dict[str, Any]:
        """Carry out one action from a view and answer it with a `result` message (also returned)."""
        name = request.get("action")
        handler = getattr(self, f"_do_{name}", None) if isinstance(name, str) else None
        answer: dict[str, Any] = {"type": "result", "for": view, "req": request.get("req"), "ok": True}
        answer["card_id"] = request.get("card_id") or request.get("anchor")
        try:
            if handler is None:
                raise InvalidInput(f"The widget asked for an unknown action {name!r}.")
            message, data = handler(request)
            if "while_state" in data:  # a notice true only while the session stays in that state
                answer["while_state"] = data.pop("while_state")
            answer.update(message=message, data=data)
        except SessionBusy as exc:
            # The refusal describes the turn (or the waiting approval): the views drop it when that ends.
            state = self.session.state
            answer.update(ok=False, message=str(exc), while_state=state if state != "idle" else "running")
        except MewrkError as exc:
            answer.update(ok=False, message=str(exc))
        except Exception as exc:  # a fault must reach the person as a sentence, not kill the comm
            log.exception("widget action %s failed", name)
            answer.update(ok=False, message=f"That did not work: {type(exc).__name__}: {exc}")
        with self._lock:  # type: ignore[attr-defined]
            self._flush_locked()  # type: ignore[attr-defined]
            self._post(answer)  # type: ignore[attr-defined]
            if name in CHANGES_TIMELINE:
                self._post(context_payload(self.session))  # type: ignore[attr-defined]
        return answer

    # ---- what the snapshot tells about the session ------------------------------------------------

    def tool_forms(self) -> list[dict[str, Any]]:
        """The enabled tools for the tool-call form (T5): name, description, schema, re-executable."""
        specs = getattr(self.session, "tool_specs", None)
        if not callable(specs):
            return []
        try:
            found = specs()
        except MewrkError:
            return []
        return [
            {
                "name": spec.name,
                "description": spec.description,
                "input_schema": spec.input_schema,
                "reexecute": spec.name in REEXECUTABLE,
            }
            for spec in found
        ]

    def model_has_vision(self) -> bool:
        """Whether the session's model takes images (T19); the composer warns before a send is refused."""
        try:
            return self.session.model_info.vision
        except MewrkError:
            return False

    # ---- the timeline -------------------------------------------------------------------------------

    def _do_edit(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        fields = request.get("fields")
        if not isinstance(fields, dict):
            raise InvalidInput("An edit needs the fields to change.")
        card = self.session.edit(_text_arg(request, "card_id"), **fields)
        return "Saved.", {"card_id": card.id}

    def _do_insert(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        kind = request.get("kind")
        if kind not in INSERTABLE:
            raise InvalidInput(f"A {noun(str(kind))} cannot be inserted from the widget.")
        data = {"kind": kind, **(request.get("fields") or {})}
        try:
            card = card_from_dict(data)
        except ValueError as exc:
            raise InvalidInput(f"Invalid {noun(kind)}: {exc}") from None
        placed = self.session.insert(card, **_place(request))
        return "Inserted.", {"card_id": placed.id}

    def _do_delete(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        ids = request.get("card_ids")
        if not isinstance(ids, list) or not ids:
            raise InvalidInput("Choose the cards to delete.")
        gone = self.session.delete(*ids)
        return (f"Deleted {cards_of([c.kind for c in gone])}." if len(gone) > 1 else "Deleted."), {
            "card_ids": [c.id for c in gone]
        }

    def _do_undo(self, _request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return sentence(self.session.undo()), {}

    def _do_redo(self, _request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return sentence(self.session.redo()), {}

    def _do_branch(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        new, said = copy_session(self.session, "branch", _text_arg(request, "card_id"))
        return commands.answer(Result(said, opened=new))  # with the offer to open it here

    def _do_fork(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        new, said = copy_session(self.session, "fork", _text_arg(request, "card_id"))
        return commands.answer(Result(said, opened=new))

    def _do_open_session(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Show another session of this workspace in this widget, in place; the header offers the way back."""
        opened = self.switch_to(_text_arg(request, "session_id"))  # type: ignore[attr-defined]
        return switched_sentence(opened), {"session_id": opened.id}

    def _do_back(self, _request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """Show again the session this widget showed before the last `open_session`."""
        opened = self.go_back()  # type: ignore[attr-defined]
        return switched_sentence(opened), {"session_id": opened.id}

    # ---- the composer -------------------------------------------------------------------------------

    def _do_send(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        text = request.get("text") or None
        upload_ids = list(request.get("attachments") or [])
        try:
            files = self._uploads.take(upload_ids) if upload_ids else []  # type: ignore[attr-defined]
            run = self.session.send(text, attachments=files, wait=False)
        finally:
            self._uploads.discard(upload_ids)  # type: ignore[attr-defined]
        return "", {"run_id": run.id}

    def _do_stop(self, _request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return commands.answer(stopped(self.session.stop()))

    def _do_command(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return commands.run_command(self.session, _text_arg(request, "text"))

    def _do_history(self, _request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return "", {"entries": history_rows(self.session)}

    def _do_history_entry(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        entry = history_entry(self.session, int(request.get("entry_id") or 0))
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

    def _do_tool_call(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """The tool-call form: Save records the call and its typed result; Execute and add runs it."""
        name = _text_arg(request, "name")
        params = _params_arg(request)
        if request.get("execute"):
            run = self._session_method("execute")(name, params, **_place(request), wait=False)
            return "", {"run_id": getattr(run, "id", None)}
        result = request.get("result")
        card = ToolCall(name=name, params=params, result=result if isinstance(result, str) else None)
        placed = self.session.insert(card, **_place(request))
        return "Saved — nothing was executed.", {"card_id": placed.id}

    def _do_reexecute(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        run = self._session_method("reexecute")(_text_arg(request, "card_id"), wait=False)
        return "", {"run_id": getattr(run, "id", None)}

    def _do_approve(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        reason = (request.get("reason") or "").strip() or None
        always = bool(request.get("always"))
        self._session_method("approve")(reason=reason, always=always, wait=False)
        return ("Approved for this session." if always else "Approved."), {}

    def _do_reject(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        reason = (request.get("reason") or "").strip() or None
        self._session_method("reject")(reason=reason, wait=False)
        return "Rejected.", {}
