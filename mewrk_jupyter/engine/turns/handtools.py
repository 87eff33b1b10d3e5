"""Tool calls by a person's hand (T5, T6): Execute and add, and Re-execute for the read-only tools."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...cards.models import Approval, Card, ToolCall
from ...cards.undo import UNDO, CardChange, CardState, UndoStep
from ...cards.words import noun
from ...errors import InvalidInput, NotEditable, SessionBusy
from ...tools import REEXECUTABLE
from ..toolbox.policy import denial
from .parts import SessionParts
from .run import Run

# Starts a run from a resume point, calling the function once it ended (TurnControl.resume).
StartRun = Callable[[dict[str, Any], Callable[[Run], None] | None], Run]
OnDone = Callable[[Run], None]


class HandTools:
    """Runs a tool call a person placed or edited, as a turn of its own that does not call the model."""

    def __init__(self, parts: SessionParts, start: StartRun) -> None:
        self.parts = parts
        self.start = start
        # A call that asked first ends its first run waiting: its undo step is recorded by the run that
        # goes on after the decision, which takes the recorder from here (call id -> recorder).
        self._deciding: dict[str, OnDone] = {}

    def after_decision(self, resume: dict[str, Any]) -> OnDone | None:
        """What records the undo step of a call run by hand once the run going on after its approval
        ends; None when the decided call was the model's (or was run by hand in another process)."""
        for call_id in resume.get("calls", []):
            recorder = self._deciding.pop(call_id, None)
            if recorder is not None:
                return recorder
        return None

    def execute(
        self, name: str, params: dict[str, Any], before: str | Card | None, after: str | Card | None
    ) -> Run:
        """Insert a tool call and run it under the safety level (T5); its result lands on the card.

        An *ask* tool waits for an approval like a model's call. Undo removes the card only: what the
        tool changed stays changed (T9).
        """
        timeline = self.parts.timeline
        self.parts.status.check_idle()
        self.parts.status.check_no_approval()
        self._check_tool(name, params)
        call = ToolCall(origin="person", name=name, params=dict(params), status="pending")
        timeline.place(call, *timeline.anchor(before, after))

        try:
            return self._start(call.id, f"ran {name}", None, set())
        except SessionBusy:
            timeline.remove([call.id])
            raise

    def reexecute(self, card_id: str | Card) -> Run:
        """Run a read-only tool call again with its parameters as edited, recording the new result (T6)."""
        timeline = self.parts.timeline
        self.parts.status.check_idle()
        self.parts.status.check_no_approval()
        cid = timeline.resolve(card_id)
        key, old = timeline.current().get(cid) or ("", None)
        if not isinstance(old, ToolCall):
            kind = noun(old.kind) if old is not None else "card"
            raise NotEditable(f"Only a tool call can be re-executed; `{cid}` is a {kind}.")
        if old.name not in REEXECUTABLE:
            allowed = ", ".join(sorted(REEXECUTABLE))
            raise NotEditable(
                f"Re-execute exists only for {allowed}: running `{old.name}` again could change things twice."
            )
        self._check_tool(old.name, old.params)
        before = CardState(old.model_copy(deep=True), key)
        earlier = {
            c.id for c in timeline.current().cards if isinstance(c, Approval) and c.tool_card_id == cid
        }
        pending = old.model_copy(update={"status": "pending", "result": None, "is_error": False}, deep=True)
        timeline.save(pending)
        try:
            return self._start(cid, f"ran {old.name} again", before, earlier)
        except SessionBusy:
            timeline.save(old)
            raise

    def _check_tool(self, name: str, params: Any) -> None:
        if not isinstance(params, dict):
            raise InvalidInput(f"A tool call's parameters are a dict; got {type(params).__name__}.")
        toolbox = self.parts.toolbox
        if not toolbox.offers(name):
            enabled = ", ".join(toolbox.registry.names)
            raise InvalidInput(f"There is no tool `{name}` in this session; enabled tools: {enabled}.")
        if toolbox.tier(name, params) == "deny":
            raise InvalidInput(denial(name, self.parts.settings.value.safety_level))

    def _start(self, call_id: str, label: str, before: CardState | None, earlier: set[str]) -> Run:
        """Run the call; once it ran or was refused, the run is one undo step: the call as it was before
        (None: it was inserted) and after, and the approval it asked for, if it asked (its card goes and
        comes back with the call)."""
        timeline = self.parts.timeline

        def on_done(run: Run) -> None:
            current = timeline.current()
            found = current.get(call_id)
            if not found or not isinstance(found[1], ToolCall):
                return  # deleted while it ran: nothing to undo
            if found[1].status == "pending":
                if run.paused:  # it asks first: the run after the decision records the step
                    self._deciding[call_id] = on_done
                return
            changes = [CardChange(call_id, before, CardState(found[1].model_copy(deep=True), found[0]))]
            for key, card in zip(current.keys, current.cards, strict=True):
                if isinstance(card, Approval) and card.tool_card_id == call_id and card.id not in earlier:
                    changes.append(CardChange(card.id, None, CardState(card.model_copy(deep=True), key)))
            UNDO.push(UndoStep(timeline.session_id, label, changes))

        return self.start({"calls": [call_id], "continue_turn": False, "steps": 0}, on_done)
