"""One turn of a replay beside the recording's: the same tool calls, the same text, a readable diff of the
reply, and each side's tokens, cost and time."""

from __future__ import annotations

import difflib
from dataclasses import dataclass

from ...cards.models import ComparedSide, Comparison
from ..assembly.context import PricesOf, price_tokens
from .recording import Side, ToolUse


@dataclass(frozen=True)
class SideFigures:
    """What one side of a turn said, called and spent."""

    model: str
    text: str
    tools: list[ToolUse]
    usage: dict[str, int]
    cost: float | None  # None: the model has no prices configured
    latency: float | None  # seconds from the message to the last reply; None when not recorded
    card_ids: list[str]

    @property
    def tokens(self) -> int:
        """Every token of its requests: input, output and the cache's."""
        return sum(self.usage.values())

    def kept(self) -> ComparedSide:
        """These figures as a comparison card keeps them."""
        return ComparedSide(
            model=self.model, tokens=self.tokens, cost=self.cost, latency=self.latency, card_ids=self.card_ids
        )


@dataclass(frozen=True)
class ReplayTurn:
    """A person's message, asked again: the recording's side and the replay's."""

    number: int
    message: str
    recorded: SideFigures
    replayed: SideFigures

    @property
    def same_text(self) -> bool:
        """Whether the replies say the same, letter for letter (spaces at the ends aside)."""
        return self.recorded.text.strip() == self.replayed.text.strip()

    @property
    def same_tools(self) -> bool:
        """Whether the model called the same tools with the same parameters, in the same order."""
        return self.recorded.tools == self.replayed.tools

    @property
    def diff(self) -> str:
        """The reply's text as a unified diff, recorded to replayed; empty when they are the same."""
        if self.same_text:
            return ""
        lines = difflib.unified_diff(
            self.recorded.text.splitlines(),
            self.replayed.text.splitlines(),
            fromfile=f"recorded ({self.recorded.model})",
            tofile=f"replayed ({self.replayed.model})",
            lineterm="",
        )
        return "\n".join(lines)

    @property
    def tools_diff(self) -> str:
        """The tool calls of each side, a line each, as a unified diff; empty when they are the same."""
        if self.same_tools:
            return ""
        lines = difflib.unified_diff(
            [t.line() for t in self.recorded.tools],
            [t.line() for t in self.replayed.tools],
            fromfile="recorded tool calls",
            tofile="replayed tool calls",
            lineterm="",
        )
        return "\n".join(lines)


def comparison_card(turn: ReplayTurn, source_id: str) -> Comparison:
    """The turn's comparison as the card the branch shows after the turn's new cards (the model never
    reads it), so that it is seen beside the new reply in any kernel, after a restart and in an export."""
    return Comparison(
        source_id=source_id,
        number=turn.number,
        same_text=turn.same_text,
        same_tools=turn.same_tools,
        diff=turn.diff,
        tools_diff=turn.tools_diff,
        recorded=turn.recorded.kept(),
        replayed=turn.replayed.kept(),
    )


def figures(side: Side, model: str, latency: float | None, prices_of: PricesOf) -> SideFigures:
    """A side's figures, its cost at the prices of the model that wrote it."""
    usage = side.usage
    prices = prices_of(model)
    priced = bool(prices) and any(v is not None for v in (prices or {}).values())
    cost = price_tokens(usage, prices) if priced and prices is not None else None
    return SideFigures(
        model=model,
        text=side.text,
        tools=side.tools,
        usage=usage,
        cost=cost,
        latency=latency,
        card_ids=[c.id for c in side.cards],
    )
