"""A recorded session read as turns: each person's message with what followed it up to the next one, and
the answers of its tool calls for a replay that runs nothing (tools="recorded")."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...cards.models import Card, Comparison, ModelReply, ToolCall, UserInput
from ...errors import InvalidInput
from ..assembly.assemble import NO_RESULT

# A recorded call's outcome that a replayed call of the same name and parameters gets again.
SETTLED = ("done", "denied", "rejected")
USAGE_FIELDS = ("input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens")


def not_recorded(call: ToolCall) -> str:
    """What a replayed call gets when the recording has no call like it at that turn."""
    return (
        f"`{call.name}` with these parameters is not in the recording of this turn, so it was not run "
        '(this replay answers tool calls from the recording: tools="recorded").'
    )


@dataclass(frozen=True)
class ToolUse:
    """A tool call as the comparison reads it: its name and parameters."""

    name: str
    params: dict[str, Any]

    def line(self) -> str:
        """`name(params)` in one line, as the report shows it."""
        shown = ", ".join(f"{k}={v!r}" for k, v in self.params.items())
        return f"{self.name}({shown if len(shown) <= 80 else shown[:79] + '…'})"


@dataclass
class Side:
    """What one side said and did for a person's message: the cards after it up to the next message."""

    cards: list[Card] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The model's reply text, its replies joined by a blank line."""
        return "\n\n".join(c.text for c in self.cards if isinstance(c, ModelReply) and c.text)

    @property
    def tools(self) -> list[ToolUse]:
        """The model's tool calls, in order."""
        return [
            ToolUse(c.name, dict(c.params))
            for c in self.cards
            if isinstance(c, ToolCall) and c.origin == "model"
        ]

    @property
    def usage(self) -> dict[str, int]:
        """The tokens of its replies' requests, summed by kind."""
        totals = dict.fromkeys(USAGE_FIELDS, 0)
        for card in self.cards:
            if isinstance(card, ModelReply) and card.usage is not None:
                for name in USAGE_FIELDS:
                    totals[name] += getattr(card.usage, name)
        return totals

    @property
    def models(self) -> list[str]:
        """The models that wrote its replies, in order, each once."""
        found: list[str] = []
        for card in self.cards:
            if isinstance(card, ModelReply) and card.model and card.model not in found:
                found.append(card.model)
        return found


@dataclass
class RecordedTurn:
    """A person's message of the recording and what followed it."""

    number: int
    message: UserInput
    side: Side
    ends_at: float | None  # when the next message was written (None for the last): its requests end before

    def find(self, name: str, params: dict[str, Any]) -> ToolCall | None:
        """The settled call of this turn with that name and parameters, if the recording made one."""
        for card in self.side.cards:
            if isinstance(card, ToolCall) and card.name == name and card.params == params:
                if card.status in SETTLED:
                    return card
        return None


def recorded_turns(cards: list[Card], upto: str | Card | int | None) -> tuple[Card, list[RecordedTurn]]:
    """The recording's first person's message (the branch is made above it) and its turns, those up to
    `upto`: a card (its id, or the card) — the messages up to and including it — or a number of messages."""
    indices = [i for i, card in enumerate(cards) if isinstance(card, UserInput)]
    if not indices:
        raise InvalidInput("This session has no message of the person to replay.")
    last = len(indices)
    if isinstance(upto, bool):
        raise InvalidInput("upto is a card (or its id) or a number of messages, not true or false.")
    if isinstance(upto, int):
        if upto < 1:
            raise InvalidInput(
                f"upto must be 1 or more messages (this session has {len(indices)}), not {upto}."
            )
        last = min(upto, len(indices))
    elif upto is not None:
        wanted = upto.id if isinstance(upto, Card) else upto
        at = next((i for i, card in enumerate(cards) if card.id == wanted), None)
        if at is None:
            raise InvalidInput(f"upto names no card of this session: {wanted!r}.")
        last = sum(1 for i in indices if i <= at)
        if last == 0:
            raise InvalidInput(
                f"upto names a card above the first message ({wanted}): there is nothing to replay."
            )
    turns = []
    for n, start in enumerate(indices[:last]):
        end = indices[n + 1] if n + 1 < len(indices) else len(cards)
        message = cards[start]
        assert isinstance(message, UserInput)
        following = cards[end].created_at if end < len(cards) else None
        # A replay's own comparisons, when the recording is a replay's branch, are no part of its turns.
        side = Side([card for card in cards[start + 1 : end] if not isinstance(card, Comparison)])
        turns.append(RecordedTurn(n + 1, message, side, following))
    return cards[indices[0]], turns


class FromRecording:
    """The answers of a replay with tools="recorded": the turn being asked gives its recorded results."""

    def __init__(self) -> None:
        self.turn: RecordedTurn | None = None

    def answer(self, call: ToolCall) -> None:
        found = self.turn.find(call.name, dict(call.params)) if self.turn is not None else None
        if found is None:
            call.result, call.is_error, call.status = not_recorded(call), True, "done"
            return
        call.result = found.result if found.result is not None else NO_RESULT
        call.is_error = found.is_error
        call.images = [image.model_copy() for image in found.images]
        call.status = found.status
