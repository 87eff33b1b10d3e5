"""A run is one turn: assemble → stream → tool calls → repeat until the model stops (DESIGN §4).

The run owns its thread, not a view: the turn is claimed in the store (one per session, with a
heartbeat), its events are written there coalesced, and a stop request written by any process
reaches it within a heartbeat.
"""

from __future__ import annotations

import os
import socket
import threading
import time
import uuid
from typing import Any

from ..cards.models import Card, HostMessage, ModelReply, Thinking, ToolCall, Usage, UserInput
from ..errors import MewrkError, ProviderError, SessionBusy
from ..providers.base import (
    Exchange,
    ModelInfo,
    ModelRequest,
    StopEvent,
    StreamEvent,
    TextDelta,
    TextPart,
    ThinkingDelta,
    ThinkingDone,
    ToolCallEvent,
    ToolUsePart,
    UsageEvent,
)
from ..providers.faults import describe_failure
from ..providers.registry import resolve
from ..store import history as history_rows
from ..store import runs as run_rows
from .approvals import settle
from .assemble import assemble, prefix_digest, thinking_part
from .events import Notice, SessionState, StateChanged
from .events import TextDelta as TextAppended
from .prefix import hidden_prefix

HEARTBEAT_EVERY = 2.0
FLUSH_EVERY = 0.25  # seconds between writes of streamed text to the store
MAX_STEPS = 64  # model calls in one turn before the engine stops a tool loop
MAX_CONTINUES = 4  # replies in a row cut at the output limit before the turn ends anyway (T13)
OUTPUT_LIMIT = (
    "Your previous reply was cut off at the output limit. Continue exactly where it stopped, "
    "without repeating what you already wrote."
)
CUT_CALL = "This call was cut off by the output limit before its input was complete, so it was not run."
OWNER = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:6]}"


class Stopped(Exception):
    """The person stopped the turn."""


class Run:
    """One turn of a session, running on its own thread."""

    def __init__(self, session, user: UserInput | None, resume: dict[str, Any] | None = None):
        self.id = "run_" + uuid.uuid4().hex[:12]
        self.session = session
        self._user = user
        # Where a turn paused for an approval goes on from (A3), or a tool call run by hand (T5).
        self._resume = resume
        self.paused = False  # the turn waits for an approval
        self.on_finish: list[Any] = []  # called with the run once it ended, on its thread
        self.state = "pending"
        self.error: MewrkError | None = None
        # The cell that decided an approval shows the calls it runs, from the start.
        self.card_ids: list[str] = list(resume["calls"]) if resume is not None else []
        self._cancel = threading.Event()
        self._done = threading.Event()
        self._exchange: Exchange | None = None
        self._thread: threading.Thread | None = None
        self._pending_events: list[tuple[str, dict[str, Any]]] = []

    # ---- control -------------------------------------------------------------------------------

    def start(self) -> None:
        """Claim the session's one turn in the store (or refuse, R1) and start the thread."""
        s = self.session
        s._recover_if_orphaned()
        with s._db.tx() as conn:
            refusing = run_rows.claim_turn(conn, s.id, self.id, OWNER)
        if refusing is not None:
            raise SessionBusy()
        self.state = "running"
        s._run = self
        s._emit(StateChanged(s.id, "running", run_id=self.id))
        if self._user is not None:  # on the timeline before send() returns, even in the background
            try:
                s._append(self._user)
            except BaseException:
                with s._db.tx() as conn:
                    run_rows.end_run(conn, self.id, "error", "the question could not be stored")
                self.state = "error"
                s._emit(StateChanged(s.id, "idle", run_id=self.id))
                self._done.set()
                raise
            self.card_ids.append(self._user.id)
        self._thread = threading.Thread(target=self._main, name=f"mewrk-{self.id}", daemon=True)
        self._thread.start()

    def cancel(self) -> None:
        """Stop the turn as soon as possible; the partial reply stays, marked interrupted."""
        self._cancel.set()
        exchange = self._exchange
        if exchange is not None:
            exchange.close()

    def wait(self, timeout: float | None = None) -> Run:
        """Block until the turn ends (Ctrl+C stops it); returns the run."""
        try:
            self._done.wait(timeout)
        except KeyboardInterrupt:
            self.session.stop()
            self._done.wait()
        return self

    @property
    def done(self) -> bool:
        """True once the turn has ended, however it ended."""
        return self._done.is_set()

    @property
    def cards(self) -> list[Card]:
        """The cards this turn added, as they stand now."""
        timeline = self.session._loaded()
        return [timeline.get(cid)[1] for cid in self.card_ids if timeline.get(cid)]

    def __repr__(self) -> str:
        return f"<Run {self.id} {self.state}{f' error={self.error}' if self.error else ''}>"

    # ---- the turn ------------------------------------------------------------------------------

    def _main(self) -> None:
        s = self.session
        beating = threading.Thread(target=self._heartbeat, name=f"mewrk-hb-{self.id}", daemon=True)
        beating.start()
        final, error_text = "done", None
        try:
            self._turn()
            if self._cancel.is_set():
                final = "stopped"
            elif self.paused:
                final = "awaiting_approval"
        except Stopped:
            final = "stopped"
        except MewrkError as exc:
            final, error_text, self.error = "error", str(exc), exc
        except Exception as exc:  # an unexpected fault still ends the turn cleanly
            final, error_text = "error", f"{type(exc).__name__}: {exc}"
            self.error = ProviderError(f"The turn failed: {error_text}")
        finally:
            try:
                s.finish_unfinished_cards(tool_calls=final != "awaiting_approval")
                self._flush_events()
                with s._db.tx() as conn:
                    run_rows.end_run(conn, self.id, final, error_text)
                for callback in self.on_finish:
                    callback(self)
            finally:
                self.state = final
                after: SessionState = "awaiting_approval" if final == "awaiting_approval" else "idle"
                s._emit(StateChanged(s.id, after, run_id=self.id, result=final))
                if error_text:
                    s._emit(Notice(s.id, error_text, level="error"))
                self._done.set()

    def _heartbeat(self) -> None:
        while not self._done.wait(HEARTBEAT_EVERY):
            try:
                with self.session._db.tx() as conn:
                    stop_asked = run_rows.beat(conn, self.id)
            except Exception:
                continue
            if stop_asked:
                self.cancel()

    def _turn(self) -> None:
        s = self.session
        steps, continues = 0, 0
        if self._resume is not None:  # an approval was decided, or a person runs a tool by hand
            steps = self._resume.get("steps", 0)
            if not self._settle(self._resume["calls"], steps) or not self._resume.get("continue_turn"):
                return
        while steps < MAX_STEPS:
            steps += 1
            if self._cancel.is_set():
                raise Stopped
            provider, info = resolve(s.settings.model, s.workspace.home)
            request = assemble(
                s._loaded().cards,
                info,
                hidden_prefix(s.workspace, s.settings.memory),
                tools=s._toolbox.specs(),
                reasoning=s.settings.reasoning,
            )
            exchange = provider.open(request)  # nothing is sent before events() is read
            self._exchange = exchange
            if self._cancel.is_set():
                exchange.close()
            with s._db.tx() as conn:
                entry = history_rows.record_request(
                    conn, s.id, self.id, info.name, info.protocol, exchange.body
                )
            stop, calls, response, failure = self._stream(exchange, info, request)
            if failure is not None:
                message = describe_failure(failure, info.name, mid_stream=bool(response["content"]))
                with s._db.tx() as conn:
                    history_rows.record_response(conn, entry, response, error=message)
                if isinstance(failure, MewrkError):
                    raise failure
                raise ProviderError(message) from failure
            with s._db.tx() as conn:
                history_rows.record_response(conn, entry, response)
            if self._cancel.is_set():
                raise Stopped
            if stop == "pause_turn":  # the server paused a long turn: send the content back to go on
                continue
            if stop == "max_tokens":  # T13: the engine asks the model to go on from where it was cut
                for call in calls:
                    call.status, call.result = "denied", CUT_CALL
                    s._save(call)
                continues += 1
                if continues > MAX_CONTINUES:
                    return
                s._append(HostMessage(topic="output_limit", text=OUTPUT_LIMIT))
                continue
            continues = 0
            if not calls:
                return
            if not self._settle([c.id for c in calls], steps):
                return
        s._append(
            ModelReply(origin="engine", text=f"(The engine stopped the turn after {MAX_STEPS} model calls.)")
        )

    def _stream(
        self, exchange: Exchange, info: ModelInfo, request: ModelRequest
    ) -> tuple[str, list[ToolCall], dict[str, Any], Exception | None]:
        """Turn the stream into cards as it arrives; returns the stop reason, tool calls, the record and
        the failure that cut the stream, if any (the partial reply is kept, marked interrupted)."""
        response = _Response(self, info, request)
        failure: Exception | None = None
        last_flush = time.monotonic()
        try:
            for event in exchange.events():
                if self._cancel.is_set():
                    break
                response.apply(event)
                if time.monotonic() - last_flush > FLUSH_EVERY:
                    self._persist(response.dirty)
                    last_flush = time.monotonic()
        except Exception as exc:
            if not self._cancel.is_set():  # closing the stream on Stop raises; that is no failure
                failure = exc
        if self._cancel.is_set():
            response.stop = "stopped"
        elif failure is not None:
            response.stop = "interrupted"
        record = response.finish(interrupted=self._cancel.is_set() or failure is not None)
        self._flush_events()
        return response.stop, response.calls, record, failure

    def _delta(self, card: Card, text: str, dirty: set[str]) -> None:
        dirty.add(card.id)
        self._pending_events.append(("text", {"card_id": card.id, "text": text}))
        self.session._emit(TextAppended(self.session.id, card.id, text))

    def _persist(self, dirty: set[str]) -> None:
        timeline = self.session._loaded()
        for cid in list(dirty):
            found = timeline.get(cid)
            if found:
                self.session._save(found[1], announce=False)
        dirty.clear()
        self._flush_events()

    def _flush_events(self) -> None:
        """Write the run's events to the store, merging consecutive text of one card into one row."""
        if not self._pending_events:
            return
        merged: list[tuple[str, dict[str, Any]]] = []
        for kind, data in self._pending_events:
            if (
                merged
                and kind == "text"
                and merged[-1][0] == "text"
                and merged[-1][1]["card_id"] == data["card_id"]
            ):
                merged[-1][1]["text"] += data["text"]
            else:
                merged.append((kind, dict(data)))
        self._pending_events = []
        with self.session._db.tx() as conn:
            run_rows.append_events(conn, self.id, merged)

    def _settle(self, call_ids: list[str], steps: int) -> bool:
        """Run the response's tool calls under the safety level; False when the turn paused (A1)."""
        resume = {"steps": steps, "continue_turn": (self._resume or {}).get("continue_turn", True)}
        if settle(self, call_ids, resume):
            return True
        self.paused = True
        return False


def _card_record(card: Card) -> dict[str, Any]:
    """What came back, block by block, for the history."""
    if isinstance(card, Thinking):
        return {"type": "thinking", "text": card.signed_text or card.text, "signature": card.signature}
    if isinstance(card, ToolCall):
        return {"type": "tool_use", "id": card.call_id, "name": card.name, "input": card.params}
    return {"type": "text", "text": getattr(card, "text", "")}


class _Response:
    """The cards of one model response, built from its stream events."""

    def __init__(self, run: Run, info: ModelInfo, request: ModelRequest):
        self.run = run
        self.info = info
        self.request = request
        self.response_id = "resp_" + uuid.uuid4().hex[:12]
        self.blocks: dict[int, Card] = {}
        self.calls: list[ToolCall] = []
        self.usage: Usage | None = None
        self.stop = "end_turn"
        self.dirty: set[str] = set()

    def _card(self, index: int, make) -> Card:
        card = self.blocks.get(index)
        if card is None:
            card = make()
            self.run.session._append(card)
            self.run.card_ids.append(card.id)
            self.blocks[index] = card
        return card

    def _thinking(self, index: int) -> Card:
        return self._card(
            index, lambda: Thinking(origin="model", protocol=self.info.protocol, response_id=self.response_id)
        )

    def apply(self, event: StreamEvent) -> None:
        """Fold one stream event into the cards."""
        if isinstance(event, TextDelta):
            card = self._card(
                event.index,
                lambda: ModelReply(
                    origin="model", complete=False, model=self.info.name, response_id=self.response_id
                ),
            )
            card.text += event.text
            self.run._delta(card, event.text, self.dirty)
        elif isinstance(event, ThinkingDelta):
            card = self._thinking(event.index)
            card.text += event.text
            self.run._delta(card, event.text, self.dirty)
        elif isinstance(event, ThinkingDone):
            card = self._thinking(event.index)
            if event.signature is not None:
                card.signature = event.signature
                card.signed_text = card.text
            if event.encrypted is not None:
                card.encrypted = event.encrypted
            if card.is_signed:
                card.bound_to = self._prefix_before(event.index)
            self.run.session._save(card)
            self.dirty.discard(card.id)
        elif isinstance(event, ToolCallEvent):
            call = ToolCall(
                origin="model",
                name=event.name,
                params=event.params,
                call_id=event.call_id,
                status="pending",
                response_id=self.response_id,
            )
            self._card(event.index, lambda: call)
            self.calls.append(call)
            self.run._pending_events.append(("tool_call", {"card_id": call.id, "name": call.name}))
        elif isinstance(event, UsageEvent):
            self.usage = event.usage
        elif isinstance(event, StopEvent):
            self.stop = event.reason

    def _prefix_before(self, index: int) -> str:
        """The digest of what the block at `index` follows: the request, then this response's earlier blocks."""
        earlier = []
        for i, card in sorted(self.blocks.items()):
            if i >= index:
                break
            if isinstance(card, Thinking):
                earlier.append(thinking_part(card))
            elif isinstance(card, ModelReply) and card.text:
                earlier.append(TextPart(text=card.text))
            elif isinstance(card, ToolCall):
                earlier.append(ToolUsePart(id=card.call_id, name=card.name, input=card.params))
        r = self.request
        return prefix_digest(r.system, r.tools, r.messages, earlier)

    def finish(self, interrupted: bool) -> dict[str, Any]:
        """Mark the replies complete, store every card, and return the history's record of the response."""
        replies = [c for c in self.blocks.values() if isinstance(c, ModelReply)]
        for card in replies:
            card.complete = True
            card.interrupted = interrupted
            card.stop_reason = self.stop
        if replies and self.usage is not None:
            replies[-1].usage = self.usage
        for card in self.blocks.values():
            self.run.session._save(card)
        self.dirty.clear()
        return {
            "stop_reason": self.stop,
            "content": [_card_record(c) for _, c in sorted(self.blocks.items())],
            "usage": self.usage.model_dump() if self.usage else None,
        }
