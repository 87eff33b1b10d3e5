"""A model's stream, folded into cards: `accumulate(state, event) -> state`, with no I/O.

Like the Anthropic SDK's `accumulate_event`, the fold only builds the response's snapshot — the cards
of its blocks, its tool calls, usage and stop reason — and its match is exhaustive. Placing cards on
the timeline, storing them, announcing text and logging happen around it, in the run.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from typing_extensions import assert_never

from ...cards.models import Card, ModelReply, Thinking, ToolCall, Usage
from ...providers.base import (
    ModelRequest,
    StopEvent,
    StreamEvent,
    TextDelta,
    TextPart,
    ThinkingDelta,
    ThinkingDone,
    ThinkingPart,
    ToolCallEvent,
    ToolUsePart,
    UsageEvent,
)
from ...providers.record import ModelResponse, ResponsePart, Stop
from ..assembly.assemble import prefix_digest, thinking_part


@dataclass
class ResponseState:
    """The cards of one model response as far as its stream has come."""

    request: ModelRequest  # what the response answers: a signed block is bound to it
    model: str
    protocol: str
    response_id: str = field(default_factory=lambda: "resp_" + uuid.uuid4().hex[:12])
    blocks: dict[int, Card] = field(default_factory=dict)  # content block index -> its card
    calls: list[ToolCall] = field(default_factory=list)
    usage: Usage | None = None
    cost: float | None = None  # what the vendor said the response cost (Claude Code's result)
    stop: str = Stop.END_TURN
    # The card the last event opened, already holding that event's content; None if it opened none.
    opened: Card | None = None


def accumulate(state: ResponseState, event: StreamEvent) -> ResponseState:
    """Fold one stream event into the response's cards."""
    state.opened = None
    match event:
        case TextDelta():  # once per token: attributes read directly, _grow written out
            card = state.blocks.get(event.index)
            if card is None:
                card = _open(state, event.index, _reply(state))
            if isinstance(card, (ModelReply, Thinking)):
                card.__dict__["text"] = card.text + event.text
        case ThinkingDelta(index=index, text=text):
            thinking = _thinking(state, index)
            if isinstance(thinking, (ModelReply, Thinking)):
                _grow(thinking, text)
        case ThinkingDone(index=index, signature=signature, encrypted=encrypted):
            thinking = _thinking(state, index)
            if isinstance(thinking, Thinking):
                if signature is not None:
                    thinking.signature = signature
                    thinking.signed_text = thinking.text
                if encrypted is not None:
                    thinking.encrypted = encrypted
                if thinking.is_signed:
                    thinking.bound_to = _prefix_before(state, index)
        case ToolCallEvent(index=index, call_id=call_id, name=name, params=params):
            call = ToolCall(
                origin="model",
                name=name,
                params=params,
                call_id=call_id,
                status="pending",
                response_id=state.response_id,
            )
            if index not in state.blocks:
                _open(state, index, call)
            state.calls.append(call)
        case UsageEvent(usage=usage, cost=cost):
            state.usage = usage
            state.cost = cost
        case StopEvent(reason=reason):
            state.stop = reason
        case _:
            assert_never(event)
    return state


def finish(state: ResponseState, interrupted: bool) -> ResponseState:
    """The end of the stream: every reply is complete (interrupted if it was cut), the last carries usage."""
    replies = [c for c in state.blocks.values() if isinstance(c, ModelReply)]
    for card in replies:
        card.complete = True
        card.interrupted = interrupted
        card.stop_reason = state.stop
    if replies and state.usage is not None:
        replies[-1].usage = state.usage
    return state


def record(state: ResponseState) -> ModelResponse:
    """What came back, part by part, for the history: the neutral record, in no vendor's words."""
    return ModelResponse(
        stop=state.stop,
        parts=[_part_record(card) for _, card in sorted(state.blocks.items())],
        usage=state.usage,
        cost=state.cost,
    )


def _grow(card: ModelReply | Thinking, text: str) -> None:
    """Append streamed text to a card. Cards validate every assignment, which on the per-token path
    costs more than the rest of the fold together; a str appended to a str needs no validation, and
    the field's value is stored straight in the instance's dict (half the cost of object.__setattr__)."""
    card.__dict__["text"] = card.text + text


def _open(state: ResponseState, index: int, card: Card) -> Card:
    state.blocks[index] = card
    state.opened = card
    return card


def _reply(state: ResponseState) -> ModelReply:
    return ModelReply(origin="model", complete=False, model=state.model, response_id=state.response_id)


def _thinking(state: ResponseState, index: int) -> Card:
    card = state.blocks.get(index)
    if card is None:
        card = _open(
            state, index, Thinking(origin="model", protocol=state.protocol, response_id=state.response_id)
        )
    return card


def _prefix_before(state: ResponseState, index: int) -> str:
    """The digest of what the block at `index` follows: the request, then this response's earlier blocks."""
    earlier: list[Any] = []
    for i, card in sorted(state.blocks.items()):
        if i >= index:
            break
        if isinstance(card, Thinking):
            earlier.append(thinking_part(card))
        elif isinstance(card, ModelReply) and card.text:
            earlier.append(TextPart(text=card.text))
        elif isinstance(card, ToolCall):
            earlier.append(ToolUsePart(id=card.call_id, name=card.name, input=card.params))
    r = state.request
    return prefix_digest(r.system, r.tools, r.messages, earlier)


def _part_record(card: Card) -> ResponsePart:
    if isinstance(card, Thinking):
        return ThinkingPart(text=card.signed_text or card.text, signature=card.signature)
    if isinstance(card, ToolCall):
        return ToolUsePart(id=card.call_id, name=card.name, input=card.params)
    return TextPart(text=getattr(card, "text", ""))
