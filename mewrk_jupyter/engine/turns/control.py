"""Turns (T12, A1–A3, T5, T6): send, stop, decide an approval, run a tool by hand.

In a script each call waits for its run; in a kernel it returns at once and the run goes on in the
background, so that Stop and approvals keep working.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from ...cards.models import Card, HostMessage, Interpolation, UserInput
from ...cards.rules import check_text
from ...errors import InvalidInput, SessionBusy
from ...providers.base import ModelInfo
from ...providers.registry import check_trusted, one_reading, resolve
from ...store import runs as run_rows
from ..assembly.attachments import attachments_for_message, check_attachments
from . import run as turn_run
from .approvals import Always, Decision
from .handtools import HandTools
from .parts import SessionParts
from .run import Run, TakeCalls

# How long Stop waits for another process to end its turn itself before taking the session over: one
# heartbeat for the owner to read the request (run.HEARTBEAT_EVERY), and this much to close its cards.
STOP_GRACE = 1.5


class TurnControl:
    """The calls that start, decide or stop a session's runs; it knows the run this process drives."""

    def __init__(
        self,
        parts: SessionParts,
        session: Any = None,
        before_request: Callable[[Run, ModelInfo], None] | None = None,
        take_calls: TakeCalls | None = None,
    ) -> None:
        self.parts = parts
        self.session = session  # the object a surface shows as a run's session
        self.before_request = before_request  # what each run does before each request
        self.take_calls = take_calls  # what answers the engine's own tool calls
        self.last_run: Run | None = None  # the run this process started most recently
        self.hand_tools = HandTools(parts, self.resume)

    def start(
        self,
        user: UserInput | None,
        resume: dict[str, Any] | None = None,
        on_finish: Callable[[Run], None] | None = None,
        context: list[HostMessage] | None = None,
    ) -> Run:
        """Claim the session's turn (or raise SessionBusy) and start a run on its own thread; `context`,
        host messages placed right after the person's message (what before_send hooks added)."""
        run = Run(
            self.parts,
            user,
            resume=resume,
            session=self.session,
            before_request=self.before_request,
            take_calls=self.take_calls,
            context=context or [],
        )
        if on_finish is not None:
            run.on_finish.append(on_finish)
        run.start()
        self.last_run = run
        return run

    def resume(self, resume: dict[str, Any], on_finish: Callable[[Run], None] | None = None) -> Run:
        """Start a run from a resume point: a decided approval, or a tool call run by hand."""
        return self.start(None, resume, on_finish)

    def send(
        self,
        text: str | None,
        attachments: Iterable[Any],
        wait: bool | None,
        template: str | None = None,
        interpolated: list[Interpolation] | None = None,
    ) -> Run:
        """Start a turn: with text, a new user input; with none (or only spaces), continue (T12)."""
        if text is not None and not isinstance(text, str):
            raise InvalidInput(f"send() takes text (a string) or nothing; got {type(text).__name__}.")
        interpolated = interpolated or []
        if interpolated and text:
            # What the kernel's values became is the engine reading the kernel, like a tool's result: a
            # known secret among them is hidden on the card (and in an export), not only in the request.
            redact = self.parts.secrets.redact
            text = redact(text)
            interpolated = [i.model_copy(update={"text": redact(i.text)}) for i in interpolated]
        if text is not None:
            check_text(text, "The message")
        files_given = list(attachments)
        if text is not None and not text.strip() and not files_given:
            text = None
        files = attachments_for_message(files_given)
        user = (
            UserInput(text=text or "", attachments=files, template=template, interpolated=interpolated)
            if text is not None or files
            else None
        )
        with one_reading():  # the checks and the turn's start see one reading of the configuration
            model, home = self.parts.settings.value.model, self.parts.workspace.home
            # A folder not trusted yet sends nothing: refused before the input is added.
            check_trusted(model, home)
            _, info = resolve(model, home)
            # Refused before anything is sent: images without vision, PDFs without text for a text-only model.
            cards = self.parts.timeline.current().cards
            check_attachments([*cards, *([user] if user else [])], info, new=user)
            self.parts.status.check_no_approval()
            self.parts.toolbox.check()
            # The workspace's before_send hooks may refuse the message (nothing is stored) or add context.
            context = self.parts.toolbox.hooks.before_send(user.text) if user is not None else []
            self.parts.approvals.abandon_lost()
            run = self.start(user, context=context)
        return drive(run, wait)

    def decide(
        self,
        decision: Decision,
        reason: str | None,
        wait: bool | None,
        always: Always = True,
        in_policy: bool = False,
    ) -> Run:
        """Approve or reject the pending tool call and go on from where the turn paused (an
        `approved_always` grants what `always` says: approvals.Always)."""
        # A notebook run top to bottom decides in the next cell while this process's turn still
        # streams: wait for it to pause (or end) rather than refuse.
        run = self.last_run
        if run is not None and not run.done and run.state == "running":
            run.wait()
        self.parts.status.check_idle()
        # The turn goes on to the model: refused while its folder is not trusted, the approval still waiting.
        check_trusted(self.parts.settings.value.model, self.parts.workspace.home)
        approval, resume = self.parts.approvals.decide(decision, reason, always, in_policy)
        try:
            return drive(self.resume(resume, self.hand_tools.after_decision(resume)), wait)
        except SessionBusy:  # another window took the session between the decision and the claim
            self.parts.approvals.reopen(approval, resume)
            raise

    def execute(
        self,
        name: str,
        params: dict[str, Any],
        before: str | Card | None,
        after: str | Card | None,
        wait: bool | None,
    ) -> Run:
        """Insert a tool call and run it now under the safety level — Execute and add (T5)."""
        return drive(self.hand_tools.execute(name, params, before, after), wait)

    def reexecute(self, card_id: str | Card, wait: bool | None) -> Run:
        """Run an `ls`, `grep`, `find`, `read` or `lsp` call again with its edited parameters (T6)."""
        return drive(self.hand_tools.reexecute(card_id), wait)

    def stop(self) -> bool:
        """Stop the running turn, whichever window or process owns it (R3); False if none runs.

        This process's own turn stops at once. Another process's turn is asked to stop; it sees that
        within a heartbeat, and an owner that has not ended its turn by then (frozen, hung, dead) loses
        the session: the turn is ended from here and the next send works at once.
        """
        timeline = self.parts.timeline
        with timeline.db.tx() as conn:
            run_id = run_rows.request_stop(conn, timeline.session_id)
        run = self.last_run if self.last_run is not None and not self.last_run.done else None
        if run is not None:
            run.cancel()
        if run_id is not None and (run is None or run.id != run_id):
            self.parts.status.take_over(run_id, grace=turn_run.HEARTBEAT_EVERY + STOP_GRACE)
        return run_id is not None or run is not None


def _in_kernel() -> bool:
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def drive(run: Run, wait: bool | None) -> Run:
    """Wait for a run in a script, return at once in a kernel (unless `wait` says otherwise)."""
    if wait is None:
        wait = not _in_kernel()
    if wait:
        run.wait()
        if run.error is not None:
            raise run.error
    return run
