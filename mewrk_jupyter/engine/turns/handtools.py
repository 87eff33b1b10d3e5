"""Tool calls by a person's hand (T5, T6): Execute and add, and Re-execute for the read-only tools."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...cards.models import Card, ToolCall
from ...cards.undo import UNDO, CardChange, CardState, UndoStep
from ...cards.words import noun
from ...errors import InvalidInput, NotEditable, SessionBusy
from ...tools import REEXECUTABLE
from .parts import SessionParts
from .policy import denial
from .run import Run

# Starts a run from a resume point, calling the function once it ended (TurnControl.resume).
StartRun = Callable[[dict[str, Any], Callable[[Run], None] | None], Run]


class HandTools:
    """Runs a tool call a person placed or edited, as a turn of its own that does not call the model."""

    def __init__(self, parts: SessionParts, start: StartRun) -> None:
        self.parts = parts
        self.start = start

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

        def on_done(run: Run) -> None:
            found = timeline.current().get(call.id)
            if found and isinstance(found[1], ToolCall) and found[1].status != "pending":
                # It ran, or was refused: the insert is one undo step.
                state = CardState(found[1].model_copy(deep=True), found[0])
                UNDO.push(UndoStep(timeline.session_id, f"ran {name}", [CardChange(call.id, None, state)]))

        try:
            return self._start(call.id, on_done)
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
        pending = old.model_copy(update={"status": "pending", "result": None, "is_error": False}, deep=True)
        timeline.save(pending)

        def on_done(run: Run) -> None:
            found = timeline.current().get(cid)
            if found:
                after = CardState(found[1].model_copy(deep=True), found[0])
                step = UndoStep(
                    timeline.session_id, f"ran {old.name} again", [CardChange(cid, before, after)]
                )
                UNDO.push(step)

        try:
            return self._start(cid, on_done)
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
        if toolbox.tier(name) == "deny":
            raise InvalidInput(denial(name, self.parts.settings.value.safety_level))

    def _start(self, call_id: str, on_done: Callable[[Run], None]) -> Run:
        return self.start({"calls": [call_id], "continue_turn": False, "steps": 0}, on_done)
