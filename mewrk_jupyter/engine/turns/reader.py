"""One model response read as it streams (DESIGN §4): the fold builds its cards, the reader places them
on the timeline, stores their text, tells the views and writes the run's log.

A run reads each of its responses with its one `ResponseReader`. Stop sets `stopping`, which the loop
reads as a plain attribute once per streamed token.
"""

from __future__ import annotations

import threading
import time

from typing_extensions import assert_never

from ...cards.models import Card, ModelReply, Thinking, ToolCall
from ...providers.base import (
    Exchange,
    ModelInfo,
    ModelRequest,
    StopEvent,
    StreamEvent,
    TextDelta,
    ThinkingDelta,
    ThinkingDone,
    ToolCallEvent,
    UsageEvent,
)
from ...providers.record import ModelResponse, Stop
from ...store import fence
from ..events import TextDelta as TextAppended
from ..timeline.stored import StoredTimeline
from .fold import ResponseState, accumulate, finish, record
from .runlog import RunLog
from .sent import SentRequest

FLUSH_EVERY = 0.25  # seconds between writes of streamed text to the store


class ResponseReader:
    """Reads a run's responses into cards: places, stores, tells and logs what each stream brings."""

    def __init__(self, timeline: StoredTimeline, log: RunLog, card_ids: list[str]) -> None:
        self.timeline = timeline
        self.log = log
        self.card_ids = card_ids  # the run's cards: the reader adds the ones its responses open
        self.stopping = False  # set by the run's Stop
        self._tell = timeline.events.emit  # looked up once: streamed text is told once per token

    def read(
        self,
        exchange: Exchange,
        info: ModelInfo,
        request: ModelRequest,
        sent: SentRequest,
        cancel: threading.Event,
    ) -> tuple[str, list[ToolCall], ModelResponse, Exception | None]:
        """Turn the stream into cards as it arrives; returns the stop reason, tool calls, the record and
        the failure that cut the stream, if any (the partial reply is kept, marked interrupted). The
        request's history row is written right after the reply's first card is shown."""
        state = ResponseState(request=request, model=info.name, protocol=info.protocol)
        stored: dict[str, int] = {}  # card id -> the length of its text as the store holds it
        failure: Exception | None = None
        # Looked up once: the loop runs once per streamed token.
        announce, clock, log, tell = self._announce, time.monotonic, self.log, self._tell
        sid = self.timeline.session_id
        flush_at = clock() + FLUSH_EVERY
        try:
            for event in exchange.events():
                if self.stopping:
                    break
                state = accumulate(state, event)
                if type(event) is TextDelta and state.opened is None:
                    # More text of an open card, nearly every event: _announce's first case, written out.
                    # The log reads the card's text when it writes (RunLog.follow), the store at the next
                    # persist: a token costs them nothing.
                    card = state.blocks[event.index]
                    if card is not log.following and isinstance(card, (ModelReply, Thinking)):
                        log.follow(card, event.text)
                    tell(TextAppended(sid, card.id, event.text))
                else:
                    announce(event, state, stored)
                    if state.blocks and not sent.stored:  # the reply began: its request is stored now
                        sent.entry()
                if clock() > flush_at:
                    self._persist(state, stored)
                    flush_at = clock() + FLUSH_EVERY
        except fence.SessionTakenOver:
            raise
        except Exception as exc:
            if not cancel.is_set():  # closing the stream on Stop raises; that is no failure
                failure = exc
                exchange.close()  # a failure of ours (the store's) leaves the stream open otherwise
        if cancel.is_set():
            state.stop = Stop.STOPPED
        elif failure is not None:
            state.stop = Stop.INTERRUPTED
        state = finish(state, interrupted=cancel.is_set() or failure is not None)
        for card in state.blocks.values():
            self.timeline.save(card)
        self.log.end_stream()
        self.log.flush()
        return state.stop, state.calls, record(state), failure

    def _announce(self, event: StreamEvent, state: ResponseState, stored: dict[str, int]) -> None:
        """Place the card the event opened, and tell views and the run's log what it added."""
        opened = state.opened
        if opened is not None:  # it holds the event's content already: no delta follows for it
            self.timeline.append(opened)
            self.card_ids.append(opened.id)
            stored[opened.id] = _text_size(opened)
        match event:
            case TextDelta(index=index, text=text) | ThinkingDelta(index=index, text=text):
                card = state.blocks[index]
                if card is not self.log.following and isinstance(card, (ModelReply, Thinking)):
                    self.log.follow(card, text)
                if opened is None:
                    self._tell(TextAppended(self.timeline.session_id, card.id, text))
            case ThinkingDone(index=index):
                card = state.blocks[index]
                self.timeline.save(card)
                stored[card.id] = _text_size(card)
            case ToolCallEvent():
                call = state.calls[-1]
                self.log.add("tool_call", {"card_id": call.id, "name": call.name})
            case UsageEvent() | StopEvent():
                pass
            case _:
                assert_never(event)

    def _persist(self, state: ResponseState, stored: dict[str, int]) -> None:
        """Store the streamed text the store does not hold yet, and the log's events."""
        for card in state.blocks.values():
            size = _text_size(card)
            if size != stored.get(card.id, size):
                self.timeline.save(card, announce=False)
                stored[card.id] = size
        self.log.flush()


def _text_size(card: Card) -> int:
    """How long a card's streamed text is (0 for a card without one)."""
    return len(card.text) if isinstance(card, (ModelReply, Thinking)) else 0
