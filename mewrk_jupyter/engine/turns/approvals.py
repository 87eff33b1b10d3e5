"""Approvals (A1–A3): settle a response's tool calls, pause on an *ask*, and go on after the decision.

A paused turn ends its run; what it needs to go on — the calls of that response, how many model calls
the turn has made, whether the model runs again afterwards — is a resume point in the store. Approving
or rejecting starts a new run from it, in this process or any other, even after a kernel restart.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Literal

from ...cards.models import Approval, ToolCall
from ...config.rules import parse_rule, rule_problem
from ...errors import RESUME_LOST, InvalidInput, MewrkError
from ...store import approvals as resume_rows
from ...store import fence
from ..assembly.assemble import BOX_TOOL
from ..events import Notice
from ..settings.model import StoredSettings
from ..timeline.stored import StoredTimeline
from ..toolbox.box import ToolBox
from ..toolbox.grants import grant_place
from ..toolbox.policy import (
    PLAN_TURN_ENDED,
    allows,
    denial,
    plan_denial,
    plan_withdrawal,
    rejection,
    suggested_rules,
)
from ..toolbox.policy_file import allow_in_policy
from .recorded import recorded_answers

PARALLEL_TOOLS = 4  # calls of one response that run at once
BOX_ANSWER = "`box` only carries the host application's messages to you; calling it does nothing."
NOT_RESUMABLE = "This call was not run: its approval could no longer be resumed."

Decision = Literal["approved", "approved_always", "rejected"]
# What an "approve always" grants: True or "tool", the whole tool; "command", the rule for this very
# command (or path); "like", the rules for commands like it; or a rule written out (`bash(git *)`).
Always = bool | str
ALWAYS_CHOICES = ("tool", "command", "like")


class ApprovalLost(MewrkError):
    """The approval's resume point is gone (A3); nothing runs until the person sends a new message."""

    def __init__(self, message: str = RESUME_LOST):
        super().__init__(message)


class Approvals:
    """A session's approvals: which calls may run, the one waiting, and the person's decision on it."""

    def __init__(self, timeline: StoredTimeline, settings: StoredSettings, toolbox: ToolBox) -> None:
        self.timeline = timeline
        self.settings = settings
        self.toolbox = toolbox

    @property
    def session_id(self) -> str:
        """The session these approvals belong to."""
        return self.timeline.session_id

    def waiting_approval(self) -> Approval | None:
        """The pending approval whose paused turn can resume — found through its resume point, not a scan."""
        approval_id = resume_rows.waiting_approval_id(self.timeline.db.conn(), self.session_id)
        card = self.timeline.find(approval_id) if approval_id else None
        if isinstance(card, Approval) and card.decision == "pending":
            return card
        return None

    def pending_approval(self) -> Approval | None:
        """The approval card that waits for a decision, if any — also one whose resume point is lost."""
        waiting = self.waiting_approval()
        if waiting is not None:
            return waiting
        for card in reversed(self.timeline.current().cards):
            # A subagent's approval shown here is the subagent's to resume, not this session's.
            if isinstance(card, Approval) and card.decision == "pending" and card.session_id is None:
                return card
        return None

    def settle(
        self, call_ids: list[str], resume: dict[str, Any], run_id: str, cancel: threading.Event
    ) -> str | None:
        """Give every call of a response its result; returns the approval that paused the turn, if one did.

        Allowed and approved calls run side by side; denied and rejected ones get a statement the model
        can read; the first call that still needs a decision opens an approval and pauses the turn.
        """
        timeline = self.timeline.current()
        to_run: list[ToolCall] = []
        waiting: ToolCall | None = None
        # Each call's latest approval, found in one pass over the timeline rather than one per call.
        decisions = {
            c.tool_card_id: c
            for c in timeline.cards
            if isinstance(c, Approval) and c.tool_card_id in call_ids
        }
        recorded = recorded_answers(self.session_id)
        for cid in call_ids:
            found = timeline.get(cid)
            if not found or not isinstance(found[1], ToolCall) or found[1].status != "pending":
                continue  # deleted by the person, or already settled
            call = found[1]
            if recorded is not None:  # a replay of recorded tools: answered from the recording, none runs
                recorded.answer(call)
                self.timeline.save(call)
                continue
            if (
                call.name == BOX_TOOL
            ):  # the host's messages travel in `box`: a call of the model's is harmless
                call.result, call.is_error, call.status = BOX_ANSWER, False, "done"
                self.timeline.save(call)
                continue
            if not self.toolbox.offers(call.name):
                # Nothing to approve: the registry answers at once that no such tool exists.
                to_run.append(call)
                continue
            tier = self.toolbox.tier(call.name, dict(call.params))
            decided = decisions.get(call.id)
            if not self.toolbox.withheld(call.name) and tier != "deny":
                # The workspace's before_tool hooks may block, rewrite, ask or allow (A5), once a call.
                verdict = self.toolbox.hooks.before_tool(call, cancel)
                if verdict.blocked is not None:
                    self._answer(call, verdict.blocked, "denied")
                    continue
                tier = self.toolbox.tier(call.name, dict(call.params))  # its input may be another now
                if tier != "deny" and verdict.decision is not None:
                    tier = verdict.decision
            if self.toolbox.withheld(call.name):  # a call from before plan mode, or one it made up
                self._answer(call, plan_denial(call.name), "denied")
            elif tier == "deny":
                self._answer(call, denial(call.name, self.settings.value.safety_level), "denied")
            elif tier == "allow" or (
                decided is not None and decided.decision in ("approved", "approved_always")
            ):
                to_run.append(call)
            elif decided is not None and decided.decision == "rejected":
                self._answer(call, rejection(decided.reason), "rejected")
            elif waiting is None:
                waiting = call
        self._run_all(to_run, run_id, cancel)
        if waiting is None:
            return None
        return self._open(waiting, {**resume, "calls": call_ids})

    def _answer(self, call: ToolCall, text: str, status: Literal["denied", "rejected"]) -> None:
        call.result = text
        call.is_error = False  # a statement the model can act on, not a failure (A2)
        call.status = status
        self.timeline.save(call)

    def _run_all(self, calls: list[ToolCall], run_id: str, cancel: threading.Event) -> None:
        if len(calls) <= 1:
            for call in calls:
                self.toolbox.run(call, run_id, cancel)
            return
        with ThreadPoolExecutor(
            max_workers=PARALLEL_TOOLS, thread_name_prefix=f"mewrk-tool-{run_id}"
        ) as pool:
            run = fence.carried(self.toolbox.run)  # each tool's writes check the run's claim too
            for future in [pool.submit(run, call, run_id, cancel) for call in calls]:
                future.result()

    def _open(self, call: ToolCall, resume: dict[str, Any]) -> str:
        """Show the approval card, then store its resume point (a crash between leaves it unresumable)."""
        asked_by: Literal["model", "person"] = "person" if call.origin == "person" else "model"
        call.preview = self.toolbox.preview(call)  # what it would change, read as it starts to wait
        if call.preview is not None:
            self.timeline.save(call)
        diff = call.preview.diff if call.preview is not None else None
        this, like = suggested_rules(call.name, self.toolbox.subject(call))
        approval = Approval(
            tool_card_id=call.id,
            name=call.name,
            params=dict(call.params),
            asked_by=asked_by,
            diff=diff,
            rules_this=this,
            rules_like=like,
            hook_reason=call.hook_reason if call.hook_decision == "ask" else None,
        )
        self.timeline.append(approval)
        with self.timeline.db.tx() as conn:
            resume_rows.put_resume_point(conn, self.session_id, approval.id, resume)
        return approval.id  # the run's end tells every view that the session awaits approval

    def follow_edits(self, card_ids: list[str]) -> None:
        """Keep a pending approval showing the input that will run when its tool call was edited or undone."""
        timeline = self.timeline.current()
        if not any(
            isinstance(found[1], ToolCall) and found[1].status == "pending"
            for cid in card_ids
            if (found := timeline.get(cid)) is not None
        ):
            return  # only a call that waits can have an approval waiting for it: no query for the others
        approval = self.waiting_approval()  # edits must stay cheap on a long timeline: no scan here
        if approval is None or approval.tool_card_id not in card_ids:
            return
        call = self.timeline.find(approval.tool_card_id)
        if isinstance(call, ToolCall) and call.params != approval.params:
            approval.params = dict(call.params)
            call.preview = self.toolbox.preview(call)  # the edited call's change, read afresh
            self.timeline.save(call)
            approval.diff = call.preview.diff if call.preview is not None else None
            approval.rules_this, approval.rules_like = suggested_rules(call.name, self.toolbox.subject(call))
            self.timeline.save(approval)

    def decide(
        self, decision: Decision, reason: str | None, always: Always = True, in_policy: bool = False
    ) -> tuple[Approval, dict[str, Any]]:
        """Write the person's decision on the pending approval; returns it with the resume point to go on
        from. An `approved_always` grants what `always` says, for the session — or, with `in_policy`, in
        the safety level's policy file, through the settings editor's checks."""
        if reason is not None and not isinstance(reason, str):
            raise InvalidInput(f"A reason is text; got {type(reason).__name__}.")
        approval = self.pending_approval()
        if approval is None:
            raise InvalidInput("No approval is waiting in this session.")
        grants = self._grants(approval, always) if decision == "approved_always" else []
        with self.timeline.db.tx() as conn:
            resume = resume_rows.get_resume_point(conn, self.session_id, approval.id)
        if resume is None:
            self.abandon(approval)
            self.timeline.emit(Notice(self.session_id, RESUME_LOST, level="error"))
            raise ApprovalLost()
        # Into the policy file first: a change its checks refuse leaves the approval waiting as it was.
        granted_in = self._into_policy(grants) if grants and in_policy else None
        if grants and not in_policy:
            self._into_session(grants)
            granted_in = "session"
        approval.decision = decision
        approval.reason = reason.strip() if reason and reason.strip() else None
        approval.granted, approval.granted_in = grants, granted_in
        self.timeline.save(approval)
        with self.timeline.db.tx() as conn:
            resume_rows.drop_resume_point(conn, self.session_id, approval.id)
        return approval, resume

    def _grants(self, approval: Approval, always: Always) -> list[str]:
        """The entries an "approve always" of `approval` adds; InvalidInput with a sentence when `always`
        names none, or a rule that does not allow this call."""
        if always is True or always == "tool":
            return [approval.name]
        if always == "command" or always == "like":
            found = approval.rules_this if always == "command" else approval.rules_like
            if not found:
                what = "command or path" if always == "command" else "rule for commands like this one"
                raise InvalidInput(
                    f"This call of `{approval.name}` has no {what} to approve by: approve always the "
                    "tool (always=True), or approve it once."
                )
            return list(found)
        if not isinstance(always, str):
            raise InvalidInput(
                f"always is True, {', '.join(ALWAYS_CHOICES)} or a rule such as `bash(git status*)`; "
                f"got {always!r}."
            )
        rule = parse_rule(always.strip())
        if rule is None:
            raise InvalidInput(f"always: {rule_problem(always.strip())}.")
        call = self.timeline.find(approval.tool_card_id)
        subject = self.toolbox.subject(call) if isinstance(call, ToolCall) else None
        covers = rule.tool == approval.name and (
            rule.pattern is None or (subject is not None and allows([rule], subject))
        )
        if not covers:
            raise InvalidInput(
                f"The rule `{rule}` does not allow this call of `{approval.name}`, so approving always by it "
                "would still ask next time: write one that matches it, or approve it once."
            )
        return [str(rule)]

    def _into_session(self, grants: list[str]) -> None:
        """Approved for the rest of the session, bound to this folder and its configuration as they are
        now: elsewhere the grants are not used."""
        always, where = self.settings.value.approved_always, self.settings.value.approved_where
        new = [entry for entry in grants if entry not in always]
        if new:
            place = grant_place(self.toolbox.workspace)
            self.settings.update(
                approved_always=[*always, *new], approved_where={**where, **dict.fromkeys(new, place)}
            )

    def _into_policy(self, grants: list[str]) -> str:
        """Add the grants to the safety level's allow list through the settings editor (its checks
        refuse a rule that another tier lists); returns the file written."""
        return allow_in_policy(self.toolbox.workspace, self.settings.value.safety_level, grants)

    def reopen(self, approval: Approval, resume: dict[str, Any]) -> None:
        """Undo a decision whose turn could not start (another window took the session): it waits again."""
        approval.decision, approval.reason = "pending", None
        self.timeline.save(approval)
        with self.timeline.db.tx() as conn:
            resume_rows.put_resume_point(conn, self.session_id, approval.id, resume)

    def abandon(self, approval: Approval, text: str = NOT_RESUMABLE) -> None:
        """Close an approval that can no longer be resumed, so the timeline can be sent as it stands."""
        approval.decision = "expired"
        self.timeline.save(approval)
        call = self.timeline.find(approval.tool_card_id)
        if isinstance(call, ToolCall) and call.result is None:
            self._answer(call, text, "denied")

    def withdraw(self, text: str) -> bool:
        """Close the waiting approval so that it can never be decided (its turn's follower is gone): no
        resume point, the card expired, its call answered with `text`; False when none waited."""
        approval = self.waiting_approval()
        if approval is None:
            return False
        self._close(approval, text)
        return True

    def _close(self, approval: Approval, text: str) -> dict[str, Any] | None:
        """Take the approval's resume point out of the store, expire the approval and answer its call with
        `text`; returns the resume point (None if it was gone)."""
        with self.timeline.db.tx() as conn:
            resume = resume_rows.get_resume_point(conn, self.session_id, approval.id)
            resume_rows.drop_resume_point(conn, self.session_id, approval.id)
        self.abandon(approval, text)
        return resume

    def withdraw_withheld(self) -> dict[str, Any] | None:
        """Plan mode is on and the waiting approval is for a call it withholds: close that approval so it
        can never be decided (expired, its call answered that plan mode withdrew it) and return the turn's
        resume point, taken out of the store, to go on from or to end the turn with; None when no approval
        waits or plan mode lets its call be offered."""
        approval = self.waiting_approval()
        self.settings.plan_mode_now()  # turned on by a subagent's parent: the settings in memory follow
        if approval is None or not self.toolbox.withheld(approval.name):
            return None
        return self._close(approval, plan_withdrawal(approval.name))

    def end_paused_turn(self, call_ids: list[str]) -> None:
        """The paused turn whose approval plan mode withdrew ends there: the calls of its response still
        waiting for a decision are answered that they were not run (one plan mode withholds, as withdrawn)."""
        for cid in call_ids:
            call = self.timeline.find(cid)
            if isinstance(call, ToolCall) and call.status == "pending" and call.result is None:
                text = plan_withdrawal(call.name) if self.toolbox.withheld(call.name) else PLAN_TURN_ENDED
                self._answer(call, text, "denied")

    def abandon_lost(self) -> None:
        """Before a new message: close a pending approval whose resume point is gone (A3)."""
        approval = self.pending_approval()
        if approval is None:
            return
        with self.timeline.db.tx() as conn:
            resume = resume_rows.get_resume_point(conn, self.session_id, approval.id)
        if resume is None:
            self.abandon(approval)
