"""A turn in the output of the cell that started it: its cards, updated a few times a second."""

from __future__ import annotations

import contextvars
import json
import threading
from typing import Any

from IPython.display import DisplayHandle, display

from ..cards.inert import code_block, code_span, for_notebook, inert_markdown
from ..engine.events import SessionEvent, StateChanged
from ..engine.render import cards_markdown

UPDATE_EVERY = 0.25  # seconds between updates of a streaming turn: a few per second, not one per token
TURN_ENDED = ("idle", "awaiting_approval", "subagent_awaiting_approval")


def markdown_bundle(markdown: str) -> dict[str, str]:
    """A display bundle that shows Markdown in a notebook and its text in a terminal."""
    return {"text/markdown": for_notebook(markdown), "text/plain": markdown}


def turn_markdown(run: Any) -> str:
    """The cards a turn added so far, and how it stands."""
    cards = run.cards
    body = cards_markdown(cards) if cards else "_Starting the turn…_"
    if run.error is not None:
        return f"{body}\n\n**mewrk:** {inert_markdown(str(run.error))}"
    if run.state == "stopped":
        return f"{body}\n\n_Stopped._"
    if run.state == "awaiting_approval":
        return f"{body}\n\n{approval_prompt(run.session)}"
    if not run.done:
        return f"{body}\n\n_Running… `%mewrk stop` stops it._"
    return body


def approval_prompt(session: Any) -> str:
    """What waits for the person's decision, and the commands that decide it (A1)."""
    approval = session.pending_approval
    if approval is None:
        return ""
    params = json.dumps(approval.params, indent=2, ensure_ascii=False)
    return (
        f"**Approval needed:** {_asker(approval)} {code_span(approval.name)} with\n\n"
        f"{code_block(params, 'json')}\n\n"
        "`%mewrk approve` · `%mewrk approve always` (for this session) · `%mewrk reject [reason]`"
    )


def _asker(approval: Any) -> str:
    if approval.session_id is not None:
        return "a subagent wants to run"
    return "you asked to run" if approval.asked_by == "person" else "the model wants to run"


class TurnView:
    """The output of the cell that started a turn, updated from session events a few times a second."""

    def __init__(self, run: Any):
        self.run = run
        self._dirty, self._ended = threading.Event(), threading.Event()
        self._unsubscribe = run.session.subscribe(self._on_event)
        # The engine puts the question on the timeline before send() returns: it shows at once.
        self._handle: DisplayHandle = display(markdown_bundle(turn_markdown(run)), raw=True, display_id=True)
        # The copied context carries the cell's parent header, so updates go to this cell's output.
        context = contextvars.copy_context()
        self._thread = threading.Thread(
            target=context.run, args=(self._follow,), name=f"mewrk-view-{run.id}", daemon=True
        )
        self._thread.start()

    def _on_event(self, event: SessionEvent) -> None:
        match event:
            case StateChanged(state=state, run_id=run_id):
                if state in TURN_ENDED and run_id == self.run.id:
                    self._ended.set()
            case _:
                self._dirty.set()

    def _follow(self) -> None:
        try:
            while not (self._ended.wait(UPDATE_EVERY) or self.run.done):
                if self._dirty.is_set():
                    self._dirty.clear()
                    self._handle.update(markdown_bundle(turn_markdown(self.run)), raw=True)
            self._handle.update(markdown_bundle(turn_markdown(self.run)), raw=True)
        finally:
            self._unsubscribe()

    def join(self, timeout: float | None = None) -> bool:
        """Wait until the turn ended and its final update was shown; False on timeout."""
        self._thread.join(timeout)
        return not self._thread.is_alive()
