"""A replay in the output of the cell that started it: its report so far, a line more as each turn is
compared, and the whole report once it ended."""

from __future__ import annotations

import contextvars
import threading
from typing import Any

from IPython.display import DisplayHandle, display

from .turn_view import UPDATE_EVERY, approval_prompt, markdown_bundle


def replay_markdown(replay: Any) -> str:
    """The report so far, and how the replay stands: at work (an approval it waits for), or ended with
    the way to its branch."""
    branch = replay.branch.id
    report = replay.report()
    if replay.done:
        return f"{report}\n\nThe branch `{branch}` keeps the replay's cards: `%mewrk use {branch}` opens it."
    at = f"_Replaying… {len(replay.turns)} of {replay.messages} messages asked; `%mewrk stop` stops it._"
    # With live tools a call may wait for its approval, on the branch: the person decides it there.
    if replay.tools == "live" and replay.branch.state == "awaiting_approval":
        waiting = approval_prompt(replay.branch)
        at = f"In the branch `{branch}` (`%mewrk use {branch}` first, then decide):\n\n{waiting}"
    return f"{report}\n\n{at}"


class ReplayView:
    """The output of the cell that started a replay, updated as it goes, a few times a second at most."""

    def __init__(self, replay: Any):
        self.replay = replay
        self._ended = threading.Event()
        self._handle: DisplayHandle = display(
            markdown_bundle(replay_markdown(replay)), raw=True, display_id=True
        )
        # The copied context carries the cell's parent header, so updates go to this cell's output.
        context = contextvars.copy_context()
        self._thread = threading.Thread(
            target=context.run,
            args=(self._follow,),
            name=f"mewrk-replay-view-{replay.branch.id}",
            daemon=True,
        )
        self._thread.start()
        replay.follow(self._heard)

    def _heard(self, turn: Any) -> None:
        if turn is None:
            self._ended.set()

    def _follow(self) -> None:
        shown = ""
        while True:
            ended = self._ended.wait(UPDATE_EVERY)
            text = replay_markdown(self.replay)
            if text != shown:
                self._handle.update(markdown_bundle(text), raw=True)
                shown = text
            if ended:
                return

    def join(self, timeout: float | None = None) -> bool:
        """Wait until the replay ended and its report was shown; False on timeout."""
        self._thread.join(timeout)
        return not self._thread.is_alive()
