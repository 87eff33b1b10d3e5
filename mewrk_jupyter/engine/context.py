"""Context figures (T16, D1–D6): the last request's size against the model's window, a breakdown,
and, apart from them, what the session has spent."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

from pydantic import BaseModel, Field

from ..cards.models import Card
from ..providers.offline import estimate_tokens
from ..store.history import USAGE_FIELDS, usage_by_model

# Which configured price (per million tokens) each usage figure is charged at.
PRICE_KEYS = {
    "input_tokens": "input",
    "output_tokens": "output",
    "cache_read_tokens": "cache_read",
    "cache_write_tokens": "cache_write",
}
PricesOf = Callable[[str], dict[str, float | None] | None]


def format_tokens(n: int) -> str:
    """Tokens as people read them: 950, 1.2k, 18k, 131k."""
    if n < 1000:
        return str(n)
    if n < 10_000:
        return f"{n / 1000:.1f}".rstrip("0").rstrip(".") + "k"
    return f"{round(n / 1000)}k"


class ContextInfo(BaseModel):
    """How full the context window is, by the vendor's own count of the most recent request."""

    agent: str
    model: str
    reasoning: str
    used: int
    window: int | None
    estimated: bool
    by_kind: dict[str, int]
    # What the session has spent (D6), kept apart from how full the window is.
    spent: dict[str, int] = Field(default_factory=dict)
    cost: float | None = None
    unpriced: list[str] = Field(default_factory=list)

    @property
    def percent(self) -> float | None:
        """Share of the window in use, or None without a declared window."""
        return 100.0 * self.used / self.window if self.window else None

    @property
    def level(self) -> str:
        """ok, amber (from 80 %) or red (from 95 %)."""
        p = self.percent
        if p is None or p < 80:
            return "ok"
        return "amber" if p < 95 else "red"

    def line(self) -> str:
        """The dashboard line of D1."""
        mark = "≈" if self.estimated else ""
        if self.window:
            figure = f"{mark}{format_tokens(self.used)} / {format_tokens(self.window)} ({self.percent:.0f} %)"
        else:
            figure = f"{mark}{format_tokens(self.used)} tokens"
        return f"Agent: {self.agent} · {self.model} · Reasoning: {self.reasoning} · Context: {figure}"

    def cost_line(self) -> str:
        """What the session has spent (D6): `Cost: $0.042 this session · 12k in, 1.5k out`."""
        sent = sum(self.spent.get(f, 0) for f in USAGE_FIELDS if f != "output_tokens")
        tokens = f"{format_tokens(sent)} in, {format_tokens(self.spent.get('output_tokens', 0))} out"
        if self.cost is None:
            return f"Cost: no prices configured · {tokens}"
        missing = f" (without {', '.join(self.unpriced)}: no prices configured)" if self.unpriced else ""
        return f"Cost: {format_cost(self.cost)} this session{missing} · {tokens}"

    def _repr_markdown_(self) -> str:
        rows = "\n".join(f"| {kind} | ~{format_tokens(n)} |" for kind, n in sorted(self.by_kind.items()))
        table = f"\n\n| card kind | tokens |\n|---|---|\n{rows}" if rows else ""
        return f"`{self.line()}`  \n`{self.cost_line()}`{table}"


def format_cost(amount: float) -> str:
    """An amount as people read it: $0.0042, $0.042, $1.25."""
    if amount == 0:
        return "$0.00"
    return f"${amount:.4f}" if amount < 0.01 else f"${amount:.3f}" if amount < 1 else f"${amount:.2f}"


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
    for model, tokens in by_model.items():
        prices = prices_of(model)
        if not prices or all(v is None for v in prices.values()):
            unpriced.append(model)
            continue
        cost = (cost or 0.0) + price_tokens(tokens, prices)
    return Spending(spent=spent, cost=cost, unpriced=unpriced if cost is not None else [])


def tokens_by_kind(cards: list[Card]) -> dict[str, int]:
    """An estimate of what each card kind contributes (characters / 4)."""
    totals: dict[str, int] = {}
    for card in cards:
        text = getattr(card, "text", "") or ""
        if card.kind == "tool_call":
            text = f"{card.name} {card.params} {card.result or ''}"
        totals[card.kind] = totals.get(card.kind, 0) + estimate_tokens(text)
    return totals
