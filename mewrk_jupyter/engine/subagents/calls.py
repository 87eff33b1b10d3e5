"""Answers the model's `agent_spawn`, `workflow` and `task_wait` calls inside a turn, before the registry runs the rest
(the run asks the engine's own tools first, as it asks `handoff`)."""

from __future__ import annotations

from typing import Any

from ...cards.models import ToolCall
from ..background.results import wait_for_tasks
from ..toolbox.agent_tools import AGENT_SPAWN, TASK_WAIT, WORKFLOW, background_tools
from ..toolbox.policy import denial
from ..turns.parts import SessionParts
from ..turns.run import TakeCalls
from .spawn import Parent, spawn
from .workflow import call_workflow


class SubagentCalls:
    """Takes a response's `agent_spawn`, `workflow` and `task_wait` calls, when the session's agent offers them."""

    def __init__(self, parts: SessionParts, session: Parent) -> None:
        self.parts = parts
        self.session = session

    def __call__(self, run: Any, calls: list[ToolCall]) -> tuple[list[ToolCall], bool]:
        """Answer the background-work calls; returns the calls left for the registry (never ends the turn)."""
        offered = {spec.name for spec in background_tools(self.parts.toolbox.agent_tools())}
        ours = [call for call in calls if call.name in offered]
        if not ours:
            return calls, False
        # Spawns and workflows first, so that a `task_wait` of the same response can wait for them.
        for call in sorted(ours, key=lambda c: c.name == TASK_WAIT):
            call.status = "running"
            self.parts.timeline.save(call)
            if (
                self.parts.toolbox.tier(call.name, dict(call.params)) == "deny"
            ):  # the safety level may refuse them by name
                text, is_error = denial(call.name, self.parts.settings.value.safety_level), False
            elif call.name == AGENT_SPAWN:
                text, is_error = spawn(self.session, call)
            elif call.name == WORKFLOW:
                text, is_error = call_workflow(self.session, call)
            else:
                assert call.name == TASK_WAIT
                text, is_error = wait_for_tasks(self.parts.session_id, call.params, lambda: run.cancelled)
            call.result, call.is_error, call.status = text, is_error, "done"
            self.parts.timeline.save(call)
        return [call for call in calls if call not in ours], False


def chain(*takers: TakeCalls) -> TakeCalls:
    """One answerer of the engine's own calls from several: each takes its calls from what the one
    before left; the turn ends when one says so."""

    def take(run: Any, calls: list[ToolCall]) -> tuple[list[ToolCall], bool]:
        for taker in takers:
            calls, ended = taker(run, calls)
            if ended:
                return calls, True
        return calls, False

    return take
