"""Approvals (A1–A3): settle a response's tool calls, pause on an *ask*, and go on after the decision.

A paused turn ends its run; what it needs to go on — the calls of that response, how many model calls
the turn has made, whether the model runs again afterwards — is a resume point in the store. Approving
or rejecting starts a new run from it, in this process or any other, even after a kernel restart.
"""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from ..cards.models import Approval, ToolCall
from ..errors import RESUME_LOST, InvalidInput, MewrkError
from ..store import approvals as resume_rows
from .events import Notice
from .policy import denial, rejection

if TYPE_CHECKING:
    from .runs import Run
    from .session import Session

PARALLEL_TOOLS = 4  # calls of one response that run at once


class ApprovalLost(MewrkError):
    """The approval's resume point is gone (A3); nothing runs until the person sends a new message."""

    def __init__(self, message: str = RESUME_LOST):
        super().__init__(message)


def waiting_approval(session: Session) -> Approval | None:
    """The pending approval whose paused turn can resume — found through its resume point, not a scan."""
    approval_id = resume_rows.waiting_approval_id(session._db.conn(), session.id)
    found = session._loaded().get(approval_id) if approval_id else None
    if found and isinstance(found[1], Approval) and found[1].decision == "pending":
        return found[1]
    return None


def pending_approval(session: Session) -> Approval | None:
    """The approval card that waits for a decision, if any — also one whose resume point is lost."""
    waiting = waiting_approval(session)
    if waiting is not None:
        return waiting
    for card in reversed(session._loaded().cards):
        if isinstance(card, Approval) and card.decision == "pending":
            return card
    return None


def settle(run: Run, call_ids: list[str], resume: dict[str, Any]) -> bool:
    """Give every call of a response its result; False when the turn paused for an approval.

    Allowed and approved calls run side by side; denied and rejected ones get a statement the model
    can read; the first call that still needs a decision opens an approval and pauses the turn.
    """
    s = run.session
    toolbox = s._toolbox
    timeline = s._loaded()
    to_run: list[ToolCall] = []
    waiting: ToolCall | None = None
    # Each call's latest approval, found in one pass over the timeline rather than one per call.
    decisions = {
        c.tool_card_id: c for c in timeline.cards if isinstance(c, Approval) and c.tool_card_id in call_ids
    }
    for cid in call_ids:
        found = timeline.get(cid)
        if not found or not isinstance(found[1], ToolCall) or found[1].status != "pending":
            continue  # deleted by the person, or already settled
        call = found[1]
        tier = toolbox.tier(call.name)
        decided = decisions.get(call.id)
        if tier == "deny":
            _answer(s, call, denial(call.name, s.settings.safety_level), "denied")
        elif tier == "allow" or (decided is not None and decided.decision in ("approved", "approved_always")):
            to_run.append(call)
        elif decided is not None and decided.decision == "rejected":
            _answer(s, call, rejection(decided.reason), "rejected")
        elif waiting is None:
            waiting = call
    _run_all(run, to_run)
    if waiting is None:
        return True
    run.card_ids.append(_open_approval(s, waiting, {**resume, "calls": call_ids}))
    return False


def _answer(session: Session, call: ToolCall, text: str, status: str) -> None:
    call.result = text
    call.is_error = False  # a statement the model can act on, not a failure (A2)
    call.status = status
    session._save(call)


def _run_all(run: Run, calls: list[ToolCall]) -> None:
    toolbox = run.session._toolbox
    if len(calls) <= 1:
        for call in calls:
            toolbox.run(call, run.id, run._cancel)
        return
    with ThreadPoolExecutor(max_workers=PARALLEL_TOOLS, thread_name_prefix=f"mewrk-tool-{run.id}") as pool:
        for future in [pool.submit(toolbox.run, call, run.id, run._cancel) for call in calls]:
            future.result()


def _open_approval(session: Session, call: ToolCall, resume: dict[str, Any]) -> str:
    """Show the approval card, then store its resume point (a crash between leaves it unresumable)."""
    approval = Approval(tool_card_id=call.id, name=call.name, params=dict(call.params))
    session._append(approval)
    with session._db.tx() as conn:
        resume_rows.put_resume_point(conn, session.id, approval.id, resume)
    return approval.id  # the run's end tells every view that the session awaits approval


def follow_edits(session: Session, card_ids: list[str]) -> None:
    """Keep a pending approval showing the input that will run when its tool call was edited or undone."""
    approval = waiting_approval(session)  # edits must stay cheap on a long timeline: no scan here
    if approval is None or approval.tool_card_id not in card_ids:
        return
    found = session._loaded().get(approval.tool_card_id)
    if found and isinstance(found[1], ToolCall) and found[1].params != approval.params:
        approval.params = dict(found[1].params)
        session._save(approval)


def decide(session: Session, decision: str, reason: str | None) -> tuple[Approval, dict[str, Any]]:
    """Write the person's decision on the pending approval; returns it with the resume point to go on from."""
    if reason is not None and not isinstance(reason, str):
        raise InvalidInput(f"A reason is text; got {type(reason).__name__}.")
    approval = pending_approval(session)
    if approval is None:
        raise InvalidInput("No approval is waiting in this session.")
    with session._db.tx() as conn:
        resume = resume_rows.get_resume_point(conn, session.id, approval.id)
    if resume is None:
        abandon(session, approval)
        session._emit(Notice(session.id, RESUME_LOST, level="error"))
        raise ApprovalLost()
    approval.decision = decision
    approval.reason = reason.strip() if reason and reason.strip() else None
    if decision == "approved_always" and approval.name not in session.settings.approved_always:
        session._set_settings(approved_always=[*session.settings.approved_always, approval.name])
    session._save(approval)
    with session._db.tx() as conn:
        resume_rows.drop_resume_point(conn, session.id, approval.id)
    return approval, resume


def abandon(session: Session, approval: Approval) -> None:
    """Close an approval that can no longer be resumed, so the timeline can be sent as it stands."""
    approval.decision = "expired"
    session._save(approval)
    found = session._loaded().get(approval.tool_card_id)
    if found and isinstance(found[1], ToolCall) and found[1].result is None:
        _answer(
            session, found[1], "This call was not run: its approval could no longer be resumed.", "denied"
        )


def abandon_lost(session: Session) -> None:
    """Before a new message: close a pending approval whose resume point is gone (A3)."""
    approval = pending_approval(session)
    if approval is None:
        return
    with session._db.tx() as conn:
        resume = resume_rows.get_resume_point(conn, session.id, approval.id)
    if resume is None:
        abandon(session, approval)
