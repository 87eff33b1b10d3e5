"""What an edit costs in the prompt cache (#39): a vendor's cache holds the prefix the last request sent,
so the next request reads from it up to the first card that changed and sends the rest anew. Changing a
card (or anything from it on) spends the cache from there; unchanged, only what is new since is sent anew.
Figures are estimates (characters / 4 for the cards, the vendor's count for the last request)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ...cards.inert import for_notebook
from ...cards.models import Card
from ..assembly.assemble import NOT_SENT
from ..assembly.context import PricesOf, Sizes, card_estimate, format_cost, price_tokens
from ..assembly.cut import read_cards
from .stale import tokens_text


@dataclass(frozen=True)
class CacheSide:
    """One way the next request could go: what it reads from the cache, what it sends anew, the cost."""

    cached_tokens: int
    uncached_tokens: int
    cost: float | None  # None: the model has no cache prices; 0.0 for the offline models, which are free

    def line(self) -> str:
        cost = f" · {format_cost(self.cost)}" if self.cost is not None else ""
        return f"{tokens_text(self.cached_tokens)} from the cache, {tokens_text(self.uncached_tokens)} sent anew{cost}"


@dataclass(frozen=True)
class CachePreview:
    """The next request if the card `card_id` (or anything from it on) changes, beside it unchanged."""

    card_id: str
    changed: CacheSide
    unchanged: CacheSide
    sent: bool  # False: the card is not in the request (above a summary, or a kind the model never reads)

    @property
    def cached_tokens(self) -> int:
        return self.changed.cached_tokens

    @property
    def uncached_tokens(self) -> int:
        return self.changed.uncached_tokens

    @property
    def cost(self) -> float | None:
        return self.changed.cost

    @property
    def extra_tokens(self) -> int:
        """The tokens the change sends anew beyond what an unchanged request would."""
        return self.changed.uncached_tokens - self.unchanged.uncached_tokens

    def __str__(self) -> str:
        if not self.sent:
            return f"Changing {self.card_id} changes no request: the model does not read it. Next: {self.unchanged.line()}."
        return (
            f"Changing {self.card_id}: {self.changed.line()}; unchanged: {self.unchanged.line()} "
            f"(+{tokens_text(self.extra_tokens)} anew)."
        )

    def _repr_markdown_(self) -> str:
        return for_notebook(str(self))


def cache_preview(
    cards: list[Card], card_id: str, sizes: Sizes, model: str, prices_of: PricesOf
) -> CachePreview:
    """The preview of changing `card_id` in `cards`, from the last request's size and the next one's."""
    read = [c for c in read_cards(cards) if c.kind not in NOT_SENT]
    position = next((i for i, c in enumerate(read) if c.id == card_id), None)
    total = sizes.next_request
    beside = max(0, total - sum(sizes.by_kind.values()))  # the hidden prefix and the tools
    warm = min(sizes.last_request or 0, total)  # a cache holds at most what was sent last
    price = _pricing(model, prices_of)
    unchanged = CacheSide(warm, total - warm, price(warm, total - warm))
    if position is None:
        return CachePreview(card_id, unchanged, unchanged, sent=False)
    before = beside + sum(card_estimate(c) for c in read[:position])
    cached = min(before, warm)
    changed = CacheSide(cached, total - cached, price(cached, total - cached))
    return CachePreview(card_id, changed, unchanged, sent=True)


def _pricing(model: str, prices_of: PricesOf) -> Callable[[int, int], float | None]:
    """What reading and writing tokens cost on `model`: free on the offline models, None without cache
    prices (tokens only), else the vendor file's cache_read and cache_write (input's where not given)."""
    prices = None if model.startswith("offline/") else prices_of(model)

    def price(cached: int, uncached: int) -> float | None:
        if model.startswith("offline/"):
            return 0.0
        if not prices or prices.get("cache_read") is None:
            return None
        return price_tokens({"cache_read_tokens": cached, "cache_write_tokens": uncached}, prices)

    return price
