"""The context economy's parts of the protocol (#39): the stale results the dashboard offers to prune,
what a prune saves (or would), and what a change spends of the prompt cache."""

from __future__ import annotations

from .base import SentModel


class StaleInfo(SentModel):
    """The stale tool results of the session, for the dashboard's prune action; its label says both."""

    count: int
    tokens: int
    label: str  # "Prune stale (2, ≈1.2k tokens)"


class LastCacheInfo(SentModel):
    """What the last request read from the prompt cache and wrote to it, by the vendor's count."""

    read_tokens: int
    write_tokens: int
    text: str  # "cache: 12k tokens read, 400 tokens written"


class CacheSideInfo(SentModel):
    """One way the next request could go: what it reads from the cache, sends anew, and the cost."""

    cached_tokens: int
    uncached_tokens: int
    cost: float | None  # null: the model has no cache prices (tokens only); 0 on the offline models
    line: str


class CachePreviewInfo(SentModel):
    """What the next request spends of the cache if a card (or anything after it) changes, beside it
    unchanged; `line` is the sentence shown under an open editor or in a confirm."""

    card_id: str
    sent: bool  # false: the model does not read the card, so changing it changes no request
    changed: CacheSideInfo
    unchanged: CacheSideInfo
    extra_tokens: int
    line: str


class PruneInfo(SentModel):
    """What a prune changed, or would change (a dry run): the cards stubbed, the signed thinking
    deleted, the tokens saved, and what it spends of the cache from the first card it changes."""

    pruned: list[str]
    deleted: list[str]
    tokens_saved: int
    first: str | None
    text: str  # the prune's sentence, or the dry run's question
    cache: CachePreviewInfo | None
