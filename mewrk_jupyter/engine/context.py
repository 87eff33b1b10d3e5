"""Context figures (T16, D1–D4): the last request's size against the model's window, and a breakdown."""

from __future__ import annotations

from pydantic import BaseModel

from ..cards.models import Card
from ..providers.offline import estimate_tokens


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

    def _repr_markdown_(self) -> str:
        rows = "\n".join(f"| {kind} | ~{format_tokens(n)} |" for kind, n in sorted(self.by_kind.items()))
        table = f"\n\n| card kind | tokens |\n|---|---|\n{rows}" if rows else ""
        return f"`{self.line()}`{table}"


def tokens_by_kind(cards: list[Card]) -> dict[str, int]:
    """An estimate of what each card kind contributes (characters / 4)."""
    totals: dict[str, int] = {}
    for card in cards:
        text = getattr(card, "text", "") or ""
        if card.kind == "tool_call":
            text = f"{card.name} {card.params} {card.result or ''}"
        totals[card.kind] = totals.get(card.kind, 0) + estimate_tokens(text)
    return totals
