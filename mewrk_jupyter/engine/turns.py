"""Turns (T12, A1–A3, T5, T6): send, stop, decide an approval, run a tool by hand.

Mixed into `Session`. In a script each call waits for its run; in a kernel it returns at once and the
run goes on in the background, so that Stop and approvals keep working.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..cards.models import Card, UserInput
from ..errors import InvalidInput, SessionBusy
from ..providers.registry import resolve
from ..store import approvals as resume_rows
from ..store import runs as run_rows
from . import approvals, handtools
from .attachments import attachments_for_message, check_attachments


class TurnControl:
    """The calls that start, decide or stop a session's runs."""

    def send(self, text: str | None = None, *, attachments: Iterable[Any] = (), wait: bool | None = None):
        """Start a turn: with text, a new user input; with none (or only spaces), continue (T12).

        In a script this waits for the turn to end; in a kernel it returns at once and the turn runs
        in the background, so that Stop and approvals keep working (pass `wait=` to choose).
        """
        from .runs import Run

        if text is not None and not isinstance(text, str):
            raise InvalidInput(f"send() takes text (a string) or nothing; got {type(text).__name__}.")
        attachments = list(attachments)
        if text is not None and not text.strip() and not attachments:
            text = None
        files = attachments_for_message(attachments)
        user = UserInput(text=text or "", attachments=files) if text is not None or files else None
        _, info = resolve(self.settings.model, self.workspace.home)
        # Refused before anything is sent: images without vision, PDFs without text for a text-only model.
        check_attachments([*self._loaded().cards, *([user] if user else [])], info, new=user)
        self._check_no_approval()
        self._toolbox.check()
        approvals.abandon_lost(self)
        run = Run(self, user)
        run.start()
        return _drive(run, wait)

    def approve(self, reason: str | None = None, *, always: bool = False, wait: bool | None = None):
        """Approve the pending tool call (A1) — for this session from now on with `always=True` — and go on."""
        return self._decide("approved_always" if always else "approved", reason, wait)

    def reject(self, reason: str | None = None, *, wait: bool | None = None):
        """Reject the pending tool call; the model reads a statement with `reason` and goes on (A2)."""
        return self._decide("rejected", reason, wait)

    def _decide(self, decision: str, reason: str | None, wait: bool | None):
        from .runs import Run

        # A notebook run top to bottom decides in the next cell while this process's turn still
        # streams: wait for it to pause (or end) rather than refuse.
        if self._run is not None and not self._run.done and self._run.state == "running":
            self._run.wait()
        self._check_idle()
        approval, resume = approvals.decide(self, decision, reason)
        run = Run(self, None, resume=resume)
        try:
            run.start()
        except SessionBusy:  # another window took the session between the decision and the claim
            approval.decision, approval.reason = "pending", None
            self._save(approval)
            with self._db.tx() as conn:
                resume_rows.put_resume_point(conn, self.id, approval.id, resume)
            raise
        return _drive(run, wait)

    def execute(
        self,
        name: str,
        params: dict[str, Any] | None = None,
        *,
        before: str | Card | None = None,
        after: str | Card | None = None,
        wait: bool | None = None,
    ):
        """Insert a tool call and run it now under the safety level — Execute and add (T5)."""
        return _drive(handtools.execute(self, name, params or {}, before, after), wait)

    def reexecute(self, card_id: str | Card, *, wait: bool | None = None):
        """Run an `ls`, `grep`, `find`, `read` or `lsp` call again with its edited parameters (T6)."""
        return _drive(handtools.reexecute(self, card_id), wait)

    def stop(self) -> bool:
        """Stop the running turn, whichever window or process owns it (R3); False if none runs."""
        with self._db.tx() as conn:
            run_id = run_rows.request_stop(conn, self.id)
        run = self._run if self._run is not None and not self._run.done else None
        if run is not None:
            run.cancel()
        return run_id is not None or run is not None

    @property
    def last_run(self):
        """The run this process started most recently, if any."""
        return self._run


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _drive(run, wait: bool | None):
    """Wait for a run in a script, return at once in a kernel (unless `wait` says otherwise)."""
    if wait is None:
        wait = not _in_kernel()
    if wait:
        run.wait()
        if run.error is not None:
            raise run.error
    return run
