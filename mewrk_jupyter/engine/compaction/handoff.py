"""Handoff (C3): at the threshold the engine asks the model, once, to write handoff documents and call
`handoff`; the call opens the session `<title>-handover-<n>`, which starts at once from the documents.

The wording is the prompt profile's (`prompts/default.yaml`: `handoff.armed_notice`,
`handoff.start_message`), or the engine's own below. The original stays, stopped at its `handoff` card.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...cards.models import Handoff, HostMessage, ToolCall
from ...providers.registry import config_for
from ..background.tasks import running_background_work, still_running
from ..events import Notice
from ..toolbox.handoff_tool import ARMED_TOPIC, HANDOFF, handoff_armed
from ..turns.parts import SessionParts
from .handover import Handed, open_handover

ARMED_NOTICE = (
    "The context window is nearly full, so this conversation will continue in a new session. Finish the "
    "step you are on, then write handoff documents for the agent that takes over: the goal and the "
    "person's own words where they matter, what was decided and found, the files and code touched, errors "
    "and how they were fixed, what is still pending and the next step. Then call the `handoff` tool with "
    "those documents. The new session starts from them alone, with the same system prompt and tools."
)
START_MESSAGE = "Continue the work from the handoff documents above."

ALONE = (
    "The handoff was not made: `handoff` must be called on its own, not beside other tool calls. Call it "
    "again by itself once their results are in."
)
NO_DOCUMENTS = (
    "The handoff was not made: the documents are empty. Call `handoff` again with the documents the new "
    "session starts from."
)


def wording(home: Path | None, key: str, default: str) -> str:
    """The prompt profile's text for `key` (`prompts/default.yaml`), or the engine's own."""
    config = config_for(home)
    found = config.prompt(key) if config is not None else None
    return found if found and found.strip() else default


def arm(parts: SessionParts) -> bool:
    """Ask the model to hand off: the armed notice as a host message, and from now on the `handoff` tool.
    Only once per conversation; False when it was armed already."""
    if handoff_armed(parts.timeline.current().cards):
        return False
    text = wording(parts.workspace.home, "handoff.armed_notice", ARMED_NOTICE)
    parts.timeline.append(HostMessage(topic=ARMED_TOPIC, text=text))
    return True


class HandoffTool:
    """Answers the model's `handoff` calls inside a turn (the run asks it before the other calls run)."""

    def __init__(self, parts: SessionParts, session: Handed):
        self.parts = parts
        self.session = session

    def __call__(self, run: Any, calls: list[ToolCall]) -> tuple[list[ToolCall], bool]:
        """Take the `handoff` calls out of a response: returns the calls left for the registry, and True
        when the conversation was handed over (the turn ends there)."""
        ours = [call for call in calls if call.name == HANDOFF]
        if not ours or not handoff_armed(self.parts.timeline.current().cards):
            return calls, False  # never offered: the registry answers that no such tool exists
        rest = [call for call in calls if call.name != HANDOFF]
        documents = ours[0].params.get("documents")
        work = running_background_work(self.parts.session_id, self.parts.timeline.db.conn())
        refusal = None
        if rest or len(ours) > 1:
            refusal = ALONE
        elif work:
            refusal = still_running(work, "then call `handoff` again") + " The handoff was not made."
        elif not isinstance(documents, str) or not documents.strip():
            refusal = NO_DOCUMENTS
        if refusal is not None:
            for call in ours:
                self.answer(call, refusal, is_error=True)
            return rest, False
        assert isinstance(documents, str)  # checked above
        return [], self.hand_over(ours[0], documents)

    def hand_over(self, call: ToolCall, documents: str) -> bool:
        """The original stops at its handoff card; the handover session starts at once from it."""
        timeline = self.parts.timeline
        card = Handoff(origin="model", text=self.parts.secrets.redact(documents.strip()))
        timeline.append(card)
        start = wording(self.parts.workspace.home, "handoff.start_message", START_MESSAGE)
        handover = open_handover(self.session, [card], run=True, start_message=start)
        self.answer(call, f"Handed over: the conversation continues in the session `{handover.title}`.")
        said = f"Handed over to the new session “{handover.title}” ({handover.id}); this one stops here."
        timeline.emit(Notice(self.parts.session_id, said))
        return True

    def answer(self, call: ToolCall, text: str, is_error: bool = False) -> None:
        """Give the call its result, as a tool's run would."""
        call.result, call.is_error, call.status = text, is_error, "done"
        self.parts.timeline.save(call)
