"""Context figures (T16, D1–D6): the last request's size, the next request's, the window, a breakdown
by card kind, and, apart from them, what the session has spent.

The dashboard's figure is the most recent request's size (D2), the one the window and the percentage
belong to; the next request's size stands beside it, so that an edit or a reply shows before sending.

The last request's size is the vendor's own count (shown with ≈ all the same: each vendor counts its
own way). A request stopped before the vendor sent its count is still the last request: its size is
then the engine's estimate, and says so. The next request's size is an estimate: the timeline as it
stands (characters / 4 per card) plus what the last request carried beside the timeline (hidden
prefix, tool schemas, message framing), which is the vendor's count less the same estimate of the
timeline's words in the body that was sent. Before any request it is the timeline's estimate alone.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from typing import Literal

from pydantic import BaseModel, Field

from ...cards.inert import for_notebook
from ...cards.models import Card, NativeCompaction, SummaryDivider, ToolCall, UserInput
from ...cards.words import format_cost, format_tokens, label
from ...providers.offline import estimate_tokens
from ...providers.sent import prefix_estimate, timeline_words
from ...store.history import (
    USAGE_FIELDS,
    last_answered,
    last_measured,
    reported_costs,
    request_body,
    usage_by_model,
)
from .assemble import NOT_SENT
from .compacted import card_tokens
from .cut import read_cards, summary_message

# Which configured price (per million tokens) each usage figure is charged at.
PRICE_KEYS = {
    "input_tokens": "input",
    "output_tokens": "output",
    "cache_read_tokens": "cache_read",
    "cache_write_tokens": "cache_write",
}
PricesOf = Callable[[str], dict[str, float | None] | None]


def _tokens(n: int) -> str:
    return f"{format_tokens(n)} {'token' if n == 1 else 'tokens'}"


class ContextInfo(BaseModel):
    """How full the context window is: the last request's exact size, and the next one's estimate."""

    agent: str
    model: str
    reasoning: str
    # The figure: the most recent request's size by the vendor's count; the engine's estimate (then
    # `estimated` is True) before the first request (the next one's) or for a stopped request.
    used: int
    window: int | None
    estimated: bool
    by_kind: dict[str, int]
    # The most recent request's size: the vendor's count, or the engine's estimate when it was stopped
    # before the vendor counted it (`last_stopped`); None before the first.
    last_request: int | None = None
    last_stopped: bool = False
    # The size the next request will have, estimated from the timeline as it stands.
    next_request: int = 0
    # What the session has spent (D6), kept apart from how full the window is.
    spent: dict[str, int] = Field(default_factory=dict)
    cost: float | None = None
    unpriced: list[str] = Field(default_factory=list)

    @property
    def percent(self) -> float | None:
        """Share of the window in use, or None without a declared window."""
        return 100.0 * self.used / self.window if self.window else None

    @property
    def level(self) -> Literal["ok", "amber", "red"]:
        """ok, amber (from 80 %) or red (from 95 %), by the larger of the last and the next request."""
        if not self.window:
            return "ok"
        p = 100.0 * max(self.used, self.next_request) / self.window
        if p < 80:
            return "ok"
        return "amber" if p < 95 else "red"

    @property
    def used_text(self) -> str:
        """The figure as people read it: ≈, since even the vendor's count is the vendor's own estimate."""
        return "≈" + format_tokens(self.used)

    @property
    def next_text(self) -> str:
        """The next request's size as people read it: always an estimate."""
        return "≈" + format_tokens(self.next_request)

    def figure(self) -> str:
        """`≈1.5k / 32k (5 %)` before any request; then `last request ≈1.2k / 32k (4 %) · next ≈1.5k`
        (`last request (stopped, estimated) ≈1.2k …` when the vendor never counted it)."""
        if self.window:
            now = f"{self.used_text} / {format_tokens(self.window)} ({self.percent:.0f} %)"
        else:
            now = f"{self.used_text} {'token' if self.used == 1 else 'tokens'}"
        if self.last_request is None:
            return now
        return f"{self.last_words} {now} · next {self.next_text}"

    @property
    def last_words(self) -> str:
        """What the figure is, in front of it: the last request, and whether the engine estimated it."""
        return "last request (stopped, estimated)" if self.last_stopped else "last request"

    def line(self) -> str:
        """The dashboard line of D1."""
        return f"Agent: {self.agent} · {self.model} · Reasoning: {self.reasoning} · Context: {self.figure()}"

    def sizes(self) -> list[str]:
        """Each figure in a sentence that says what it counts: the next request, then the last."""

        def of(n: int) -> str:
            return (
                f" of {format_tokens(self.window)} ({100.0 * n / self.window:.0f} %)" if self.window else ""
            )

        beside = (
            ", plus the hidden prefix and tools as the last request counted them" if self.last_request else ""
        )
        counted = (
            "an estimate: it was stopped before the vendor counted it"
            if self.last_stopped
            else "the vendor's own count of what was sent"
        )
        last = (
            f"Last request: ≈{_tokens(self.last_request)}{of(self.last_request)} — {counted}."
            if self.last_request is not None
            else "Last request: none sent yet."
        )
        nxt = (
            f"Next request: {self.next_text}{of(self.next_request)} — an estimate: the timeline as it stands"
        )
        return [f"{nxt}{beside}.", last]

    def cost_line(self) -> str:
        """What the session has spent (D6): `Cost: $0.042 this session · 12k in, 1.5k out`."""
        sent = sum(self.spent.get(f, 0) for f in USAGE_FIELDS if f != "output_tokens")
        tokens = f"{format_tokens(sent)} in, {format_tokens(self.spent.get('output_tokens', 0))} out"
        if self.cost is None:
            return f"Cost: no prices configured · {tokens}"
        missing = f" (without {', '.join(self.unpriced)}: no prices configured)" if self.unpriced else ""
        return f"Cost: {format_cost(self.cost)} this session{missing} · {tokens}"

    def _repr_markdown_(self) -> str:
        rows = "\n".join(
            f"| {label(kind)} | ≈{format_tokens(n)} |"
            for kind, n in sorted(self.by_kind.items(), key=lambda item: -item[1])
        )
        table = f"\n\n| card kind | tokens (estimate) |\n|---|---|\n{rows}" if rows else ""
        sizes = "  \n".join(self.sizes())
        return for_notebook(f"`{self.line()}`  \n`{self.cost_line()}`\n\n{sizes}{table}")


def price_tokens(tokens: dict[str, int], prices: dict[str, float | None]) -> float:
    """What these tokens cost at per-million prices; cache tokens without a price of their own go at input's."""
    total = 0.0
    for field, key in PRICE_KEYS.items():
        price = prices.get(key)
        if price is None and key.startswith("cache"):
            price = prices.get("input")
        total += tokens.get(field, 0) * (price or 0.0) / 1_000_000
    return total


class Spending(BaseModel):
    """Tokens spent over the whole session and their cost; None when no model used has prices."""

    spent: dict[str, int]
    cost: float | None
    unpriced: list[str]


def session_spending(conn: sqlite3.Connection, session_id: str, prices_of: PricesOf) -> Spending:
    """Sum every response the history recorded, per model, and price it with `prices_of(model)` (D6)."""
    by_model = usage_by_model(conn, session_id)
    spent = {f: sum(tokens[f] for tokens in by_model.values()) for f in USAGE_FIELDS}
    cost: float | None = None
    unpriced = []
    reported: dict[str, float] | None = None
    for model, tokens in by_model.items():
        prices = prices_of(model)
        if not prices or all(v is None for v in prices.values()):
            if reported is None:  # asked once, and only where a model has no prices
                reported = reported_costs(conn, session_id)
            if model in reported:  # the vendor said what it cost (Claude Code's result)
                cost = (cost or 0.0) + reported[model]
                continue
            unpriced.append(model)
            continue
        cost = (cost or 0.0) + price_tokens(tokens, prices)
    return Spending(spent=spent, cost=cost, unpriced=unpriced if cost is not None else [])


def tokens_by_kind(cards: list[Card]) -> dict[str, int]:
    """An estimate of what each kind of card the model reads contributes (characters / 4, one at least);
    above a summary divider, its summary instead of the cards."""
    totals: dict[str, int] = {}
    for card in read_cards(cards):
        if card.kind not in NOT_SENT:
            totals[card.kind] = totals.get(card.kind, 0) + card_estimate(card)
    return totals


def card_estimate(card: Card) -> int:
    """An estimate of what one card the model reads adds to a request (characters / 4, one at least)."""
    if isinstance(card, NativeCompaction):  # its line is not sent: the kept messages and item are
        return max(1, card_tokens(card))
    if isinstance(card, ToolCall):  # its name, input and result, counted without joining them
        size = len(card.name) + len(str(card.params)) + len(card.result or "") + 2
        return max(1, (size + 3) // 4)
    text = summary_message(card) if isinstance(card, SummaryDivider) else getattr(card, "text", "") or ""
    attachments = card.attachments if isinstance(card, UserInput) else ()
    extracted = sum(estimate_tokens(a.text or "") for a in attachments)
    return max(1, estimate_tokens(text) + extracted)


def request_size(usage: dict[str, int]) -> int:
    """A request's size by the vendor's count: its input tokens, read from the cache or not."""
    return sum(usage.get(f, 0) or 0 for f in ("input_tokens", "cache_read_tokens", "cache_write_tokens"))


class Sizes(BaseModel):
    """The last request's size (None before the first; an estimate when it was stopped before the vendor
    counted it) and the next one's (an estimate)."""

    last_request: int | None
    next_request: int
    by_kind: dict[str, int]
    last_stopped: bool = False


def beside_timeline(size: int, body: dict) -> int:
    """What a request of `size` tokens (the vendor's count) carried beside the timeline's words: the hidden
    prefix, tool schemas and message framing."""
    return max(0, size - timeline_words(body))


# The size of a recorded request and what it carried beside the timeline, per (session, history entry):
# neither ever changes.
_MEASURED: dict[tuple[str, int], tuple[int, int]] = {}


def _measured(
    conn: sqlite3.Connection, session_id: str, entry_id: int, usage: dict | None
) -> tuple[int, int]:
    """A recorded request's size and what it carried beside the timeline. Answered: the vendor's count,
    less the timeline's words in its body. Stopped before the vendor counted it: beside, as the answered
    request before it carried (else estimated from its body), plus the timeline's words it carried."""
    known = _MEASURED.get((session_id, entry_id))
    if known is not None:
        return known
    body = request_body(conn, entry_id) or {}
    if usage is not None:
        size = request_size(usage)
        known = size, beside_timeline(size, body)
    else:
        earlier = last_answered(conn, session_id, before=entry_id)
        if earlier is not None:
            beside = _measured(conn, session_id, earlier[0], earlier[1])[1]
        else:
            beside = prefix_estimate(body)
        known = beside + timeline_words(body), beside
    if len(_MEASURED) > 1024:
        _MEASURED.clear()
    _MEASURED[(session_id, entry_id)] = known
    return known


def measure(conn: sqlite3.Connection, session_id: str, cards: list[Card]) -> Sizes:
    """The last request's size, and an estimate of the next one's (see above)."""
    by_kind = tokens_by_kind(cards)
    timeline = sum(by_kind.values())
    last = last_measured(conn, session_id)
    if last is None:
        return Sizes(last_request=None, next_request=timeline, by_kind=by_kind)
    entry_id, usage = last
    size, beside = _measured(conn, session_id, entry_id, usage)
    return Sizes(
        last_request=size, next_request=beside + timeline, by_kind=by_kind, last_stopped=usage is None
    )
