"""Tool calls by a person's hand (T5, T6): Execute and add, and Re-execute for the read-only tools."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..cards.models import ToolCall
from ..cards.undo import UNDO, CardChange, CardState, UndoStep
from ..cards.words import noun
from ..errors import InvalidInput, NotEditable, SessionBusy
from ..store import cards as card_rows
from .events import CardRemoved
from .policy import denial

if TYPE_CHECKING:
    from .runs import Run
    from .session import Session


def _check_tool(session: Session, name: str, params: Any) -> None:
    if not isinstance(params, dict):
        raise InvalidInput(f"A tool call's parameters are a dict; got {type(params).__name__}.")
    if session._toolbox.registry.get(name) is None:
        enabled = ", ".join(session._toolbox.registry.names)
        raise InvalidInput(f"There is no tool `{name}` in this session; enabled tools: {enabled}.")
    if session._toolbox.tier(name) == "deny":
        raise InvalidInput(denial(name, session.settings.safety_level))


def _start(session: Session, call_id: str, on_done) -> Run:
    from .runs import Run

    run = Run(session, None, resume={"calls": [call_id], "continue_turn": False, "steps": 0})
    run.on_finish.append(on_done)
    run.start()
    return run


def execute(session: Session, name: str, params: dict[str, Any], before: Any, after: Any) -> Run:
    """Insert a tool call and run it under the safety level (T5); its result lands on the card.

    An *ask* tool waits for an approval like a model's call. Undo removes the card only: what the
    tool changed stays changed (T9).
    """
    session._check_idle()
    session._check_no_approval()
    _check_tool(session, name, params)
    call = ToolCall(origin="person", name=name, params=dict(params), status="pending")
    session._place(call, *session._anchor(before, after))

    def on_done(run: Run) -> None:
        found = session._loaded().get(call.id)
        if found and found[1].status != "pending":  # ran, or was refused: the insert is one undo step
            state = CardState(found[1].model_copy(deep=True), found[0])
            UNDO.push(UndoStep(session.id, f"ran {name}", [CardChange(call.id, None, state)]))

    try:
        return _start(session, call.id, on_done)
    except SessionBusy:
        session._commit(
            lambda conn: card_rows.delete_card(conn, session.id, call.id), lambda t, _: t.remove(call.id)
        )
        session._emit(CardRemoved(session.id, call.id))
        raise


def reexecute(session: Session, card_id: Any) -> Run:
    """Run a read-only tool call again with its parameters as edited, recording the new result (T6)."""
    session._check_idle()
    session._check_no_approval()
    cid = session._resolve_id(card_id)
    key, old = session._loaded().get(cid)
    if not isinstance(old, ToolCall):
        raise NotEditable(f"Only a tool call can be re-executed; `{cid}` is a {noun(old.kind)}.")
    from ..tools import REEXECUTABLE

    if old.name not in REEXECUTABLE:
        allowed = ", ".join(sorted(REEXECUTABLE))
        raise NotEditable(
            f"Re-execute exists only for {allowed}: running `{old.name}` again could change things twice."
        )
    _check_tool(session, old.name, old.params)
    before = CardState(old.model_copy(deep=True), key)
    pending = old.model_copy(update={"status": "pending", "result": None, "is_error": False}, deep=True)
    session._save(pending)

    def on_done(run: Run) -> None:
        found = session._loaded().get(cid)
        if found:
            after = CardState(found[1].model_copy(deep=True), found[0])
            UNDO.push(UndoStep(session.id, f"ran {old.name} again", [CardChange(cid, before, after)]))

    try:
        return _start(session, cid, on_done)
    except SessionBusy:
        session._save(old)
        raise
