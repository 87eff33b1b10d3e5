"""A run is one turn: assemble → stream → tool calls → repeat until the model stops (DESIGN §4).

The run owns its thread, not a view: the turn is claimed in the store (one per session, with a
heartbeat), its events are written there coalesced, and a stop request written by any process
reaches it within a heartbeat. Each response is read by the run's `ResponseReader` (reader.py): the
stream is folded into cards by `fold.accumulate`, and the reader places, stores and announces what the
fold built.
"""

from __future__ import annotations

import os
import socket
import sqlite3
import threading
import uuid
from collections.abc import Callable
from typing import Any

from ...cards.models import Card, HostMessage, ModelReply, ToolCall, UserInput
from ...errors import MewrkError, ProviderError, SessionBusy
from ...providers.base import Exchange, ModelInfo
from ...providers.faults import describe_failure
from ...providers.record import Stop
from ...providers.registry import current_reading, one_reading, resolve
from ...store import fence
from ...store import history as history_rows
from ...store import runs as run_rows
from ..assembly.attachments import check_vision
from ..background.heartbeat import Heartbeat
from ..background.results import deliver_results
from ..background.tasks import stop_background_work
from ..events import CardAdded, Notice, SessionState, StateChanged
from ..toolbox.policy import plan_message
from .parts import SessionParts
from .reader import ResponseReader
from .runlog import RunLog
from .sent import SentRequest
from .window import check_window
from .workers import Workers

HEARTBEAT_EVERY = 2.0
MAX_STEPS = 64  # model calls in one turn before the engine stops a tool loop
MAX_CONTINUES = 4  # replies in a row cut at the output limit before the turn ends anyway (T13)
OUTPUT_LIMIT = (
    "Your previous reply was cut off at the output limit. Continue exactly where it stopped, "
    "without repeating what you already wrote."
)
CUT_CALL = "This call was cut off by the output limit before its input was complete, so it was not run."
OWNER = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"
# Read at each beat, so that a test can shorten it.
HEARTBEAT = Heartbeat(lambda: HEARTBEAT_EVERY)
TURN_THREADS = Workers()


# Takes the engine's own calls out of a response: returns the calls left, and whether the turn ends there.
TakeCalls = Callable[["Run", list[ToolCall]], tuple[list[ToolCall], bool]]


class Stopped(Exception):
    """The person stopped the turn."""


class Run:
    """One turn of a session, running on a thread of its own (one kept from an earlier turn, if free)."""

    def __init__(
        self,
        parts: SessionParts,
        user: UserInput | None,
        resume: dict[str, Any] | None = None,
        *,
        session: Any = None,
        before_request: Callable[[Run, ModelInfo], None] | None = None,
        take_calls: TakeCalls | None = None,
        context: list[HostMessage] | None = None,
    ):
        self.id = "run_" + uuid.uuid4().hex[:12]
        self.parts = parts
        self.timeline = parts.timeline
        self.session = session  # the session object a surface shows this run with
        # Called before each request with the model (the agent's automatic summary, C6).
        self.before_request = before_request
        # Answers the engine's own tool calls of a response (`handoff`) before the registry runs the rest.
        self.take_calls = take_calls
        self._user = user
        self._context = context or []  # placed after the person's message as the turn starts
        # Where a turn paused for an approval goes on from (A3), or a tool call run by hand (T5).
        self._resume = resume
        self.paused = False  # the turn waits for an approval
        self.on_finish: list[Callable[[Run], None]] = []  # called with the run once it ended, on its thread
        self.state = "pending"
        self.error: MewrkError | None = None
        # The cell that decided an approval shows the calls it runs, from the start.
        self.card_ids: list[str] = list(resume["calls"]) if resume is not None else []
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._exchange: Exchange | None = None
        self._sent: SentRequest | None = None  # the request out whose history row is not written yet
        # The configuration `send` checked, if it started this run: its first request is built from it.
        self._checked = current_reading()
        # What the run did, for any client (R5), with known secrets hidden.
        self.log = RunLog(self.timeline.db, self.id, parts.secrets.redact_data)
        # Reads each response as it streams: places, stores, tells and logs its cards.
        self._reader = ResponseReader(self.timeline, self.log, self.card_ids)
        # The run's hold on the session's turn: every write it makes checks it (store/fence.py).
        self.claim: fence.Claim | None = None
        self.lost = False  # another process took the session over: the run writes nothing more
        # Plan mode as the model was last told of it in this turn (read with the claim): a subagent's parent
        # may turn it on or off while the turn runs (subagents/plan_mode.py), and the turn follows.
        self._plan_mode: bool | None = None

    # ---- control -------------------------------------------------------------------------------

    def start(self) -> None:
        """Claim the session's one turn in the store (or refuse, R1) and start the thread."""
        timeline = self.timeline
        sid = timeline.session_id
        self.parts.status.recover_if_orphaned()
        numbers: list[int] = []

        def claim(conn: sqlite3.Connection) -> None:
            if run_rows.claim_turn(conn, sid, self.id, OWNER) is not None:
                raise SessionBusy()
            numbers.append(fence.fence_of(conn, self.id))
            self._plan_mode = self.parts.settings.plan_mode_now()  # in the claim's transaction

        user = self._user
        if user is None:
            with timeline.db.tx() as conn:
                claim(conn)
        else:  # the question is on the timeline before send() returns, stored with the claim
            key = timeline.place(user, along=claim, announce=False)
        self.claim = fence.Claim(timeline.db.path, sid, self.id, numbers[0])
        self.state = "running"
        timeline.emit(StateChanged(sid, "running", run_id=self.id))
        if user is not None:
            timeline.emit(CardAdded(sid, user, key))
            self.card_ids.append(user.id)
        TURN_THREADS.run(self._main)
        HEARTBEAT.add(self)

    def cancel(self) -> None:
        """Stop the turn as soon as possible; the partial reply stays, marked interrupted."""
        self._reader.stopping = True
        self._cancel.set()
        exchange = self._exchange
        if exchange is not None:
            exchange.close()

    def wait(self, timeout: float | None = None) -> Run:
        """Block until the turn ends (Ctrl+C stops it); returns the run."""
        try:
            self._done.wait(timeout)
        except KeyboardInterrupt:
            self.stop()
            self._done.wait()
        return self

    def stop(self) -> None:
        """Ask the store to stop this turn (any process sees it) and stop it here at once."""
        with self.timeline.db.tx() as conn:
            run_rows.request_stop(conn, self.timeline.session_id)
        self.cancel()

    def watch(self, exchange: Exchange) -> None:
        """Follow an exchange the turn opened beside its own requests (a summary), so that Stop closes it."""
        self._exchange = exchange
        if self._cancel.is_set():
            exchange.close()

    @property
    def cancelled(self) -> bool:
        """Whether the turn was asked to stop."""
        return self._cancel.is_set()

    @property
    def done(self) -> bool:
        """True once the turn has ended, however it ended."""
        return self._done.is_set()

    @property
    def cards(self) -> list[Card]:
        """The cards this turn added, as they stand now."""
        found = (self.timeline.find(cid) for cid in self.card_ids)
        return [card for card in found if card is not None]

    def __repr__(self) -> str:
        return f"<Run {self.id} {self.state}{f' error={self.error}' if self.error else ''}>"

    # ---- the turn ------------------------------------------------------------------------------

    def _main(self) -> None:
        with fence.acting_for(self.claim):  # every write of this thread checks the run's claim
            self._main_claimed()

    def _main_claimed(self) -> None:
        timeline = self.timeline
        sid = timeline.session_id
        final, error_text = "done", None
        try:
            self._turn()
            if self._cancel.is_set():
                final = "stopped"
            elif self.paused:
                final = "awaiting_approval"
        except fence.SessionTakenOver:
            self.lost = True
        except Stopped:
            final = "stopped"
        except MewrkError as exc:
            final, error_text, self.error = "error", self.parts.secrets.redact(str(exc)), exc
        except Exception as exc:  # an unexpected fault still ends the turn cleanly
            final, error_text = "error", self.parts.secrets.redact(f"{type(exc).__name__}: {exc}")
            self.error = ProviderError(f"The turn failed: {error_text}")
        finally:
            try:
                if not self.lost:
                    try:
                        self.parts.status.finish_unfinished_cards(tool_calls=final != "awaiting_approval")
                        self.log.flush()
                        self._end_run(final, error_text)
                    except fence.SessionTakenOver:
                        self.lost = True
                if self.lost:  # the process that took the session over ended this run and its cards
                    self.error = fence.SessionTakenOver()
                    final, error_text = "lost", str(self.error)
                for callback in self.on_finish:
                    callback(self)
            finally:
                self.state = final
                after: SessionState = "awaiting_approval"
                if final != "awaiting_approval":
                    after = self._state_after()
                timeline.emit(StateChanged(sid, after, run_id=self.id, result=final))
                if error_text:
                    timeline.emit(Notice(sid, error_text, level="error"))
                HEARTBEAT.discard(self)
                self._done.set()

    def _state_after(self) -> SessionState:
        """idle, or subagent_awaiting_approval while a subagent's approval waits on the timeline."""
        try:
            return self.parts.status.state_after_turn()
        except Exception:  # the turn ends and says so whatever the store answers now
            return "idle"

    def beat(self) -> bool:
        """Renew the turn's heartbeat and read a stop request (the process's heartbeat thread calls it);
        False once another process took the session over."""
        with fence.acting_for(self.claim):
            try:
                with self.timeline.db.tx() as conn:
                    stop_asked = run_rows.beat(conn, self.id)
                sent = self._sent
                if sent is not None and not sent.stored:  # a reply slow to begin: its request is kept now
                    sent.entry()
            except fence.SessionTakenOver:  # woken after a takeover: end at once, write nothing
                self.lost = True
                self.cancel()
                return False
            except Exception:
                return True  # a busy store: the next beat tries again
        if stop_asked:  # stopped from another process: the session's background work stops too
            self.cancel()
            stop_background_work(self.timeline.session_id)
        return True

    def _turn(self) -> None:
        parts, timeline = self.parts, self.timeline
        sid = timeline.session_id
        steps, continues = 0, 0
        for said in self._context:  # what the before_send hooks added to the person's message
            timeline.append(said)
        if self._resume is not None:  # an approval was decided, or a person runs a tool by hand
            steps = self._resume.get("steps", 0)
            if not self._settle(self._resume["calls"], steps) or not self._resume.get("continue_turn"):
                return
        while steps < MAX_STEPS:
            steps += 1
            if self._cancel.is_set():
                raise Stopped
            checked, self._checked = self._checked, None
            with one_reading(checked):  # the request is built from one reading of the configuration
                self._follow_plan_mode()  # turned on or off by a subagent's parent since the last look
                deliver_results(timeline)  # background work that ended and that the model has not got
                parts.toolbox.mcp.before_request(self._cancel)  # MCP servers started; one that failed is told
                parts.toolbox.files.check()  # a file the model saw changed since: it is told, with the diff
                parts.toolbox.hooks.run("before_request", cancel=self._cancel)  # what they print is sent too
                settings = parts.settings.value
                provider, info = resolve(settings.model, parts.workspace.home)
                if self.before_request is not None:  # the automatic summary, when the context is due one
                    self.before_request(self, info)
                    if self._cancel.is_set():
                        raise Stopped
                cards = timeline.current().cards
                check_window(timeline.db.conn(), sid, cards, info)  # past the window nothing is sent
                # A tool's image since the turn began counts as an attached one: not sent without vision.
                check_vision(cards, info.name, info.vision)
                parts.tell_left_out()  # an AGENTS.md linking outside the workspace is not sent: said once
                # A known secret on the timeline (typed, pasted, from an old result) is not sent.
                request = parts.secrets.redact_request(parts.assemble(cards, info).request)
                exchange = provider.open(request)  # nothing is sent before events() is read
            self._exchange = exchange
            if self._cancel.is_set():
                exchange.close()
            # Its history row is written once the reply begins (turns/sent.py), the heartbeat's at the latest.
            sent = self._sent = SentRequest(timeline.db, sid, self.id, info, exchange.body, request)
            stop, calls, response, failure = self._reader.read(exchange, info, request, sent, self._cancel)
            entry = sent.entry()
            self._sent = None
            if failure is not None:
                # A server may echo the key back in its error: hidden before it is stored or shown.
                failed = describe_failure(failure, info.name, mid_stream=bool(response.parts))
                message = parts.secrets.redact(failed)
                with timeline.db.tx() as conn:
                    history_rows.record_response(
                        conn, entry, parts.secrets.redact_data(response.stored()), error=message
                    )
                if isinstance(failure, MewrkError):
                    raise failure
                # The SDK's own error quotes the server's body: it is not chained when that held a secret.
                raise ProviderError(message) from (failure if message == failed else None)
            with timeline.db.tx() as conn:
                history_rows.record_response(conn, entry, parts.secrets.redact_data(response.stored()))
            if self._cancel.is_set():
                raise Stopped
            self._follow_plan_mode()  # a call that arrives after plan mode began is answered under it
            if stop == Stop.PAUSE_TURN:  # the server paused a long turn: send the content back to go on
                continue
            if stop == Stop.MAX_TOKENS:  # T13: the engine asks the model to go on from where it was cut
                for call in calls:
                    call.status, call.result = "denied", CUT_CALL
                    timeline.save(call)
                continues += 1
                if continues > MAX_CONTINUES:
                    return
                timeline.append(HostMessage(topic="output_limit", text=OUTPUT_LIMIT))
                continue
            continues = 0
            if not calls:
                return
            if self.take_calls is not None:
                left, ended = self.take_calls(self, calls)
                if ended:  # handed over: the conversation goes on in another session
                    return
                if not left:  # the engine answered every call (a refusal): the model reads it
                    continue
                calls = left
            if not self._settle([c.id for c in calls], steps):
                return
        timeline.append(
            ModelReply(origin="engine", text=f"(The engine stopped the turn after {MAX_STEPS} model calls.)")
        )

    def _follow_plan_mode(self) -> None:
        """Read plan mode from the store again; when it turned on or off since the model was last told (by a
        subagent's parent, while this turn ran), tell it now: the host message, where it happened."""
        now = self.parts.settings.plan_mode_now()
        if self._plan_mode is not None and now != self._plan_mode:
            self.timeline.append(plan_message(now))
        self._plan_mode = now

    def _end_run(self, final: str, error_text: str | None) -> None:
        """End the run in the store. When plan mode turned on or off after the turn last looked (while its
        last reply streamed), its host message is placed in the same transaction: nothing else places it,
        since the turn ran when the change was stored."""
        told = self._plan_mode

        def end(conn: sqlite3.Connection) -> HostMessage | None:
            run_rows.end_run(conn, self.id, final, error_text)
            now = self.parts.settings.plan_mode_now()
            return plan_message(now) if told is not None and now != told else None

        self.timeline.append_after(end)

    def _settle(self, call_ids: list[str], steps: int) -> bool:
        """Run the response's tool calls under the safety level; False when the turn paused (A1)."""
        resume = {"steps": steps, "continue_turn": (self._resume or {}).get("continue_turn", True)}
        approval_id = self.parts.approvals.settle(call_ids, resume, self.id, self._cancel)
        if approval_id is None:
            return True
        self.card_ids.append(approval_id)
        self.paused = True
        return False
