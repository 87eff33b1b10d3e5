"""The context economy in the widget (#39): the dashboard's stale results and the last request's cache
figures, a prune (of the stale results, a card or a box selection) with its dry run, and the cache
preview an open editor or a confirm shows. Each is the session's own verb; this only shapes the answer."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..cards.words import format_tokens
from ..engine.economy.cache import CachePreview, CacheSide
from ..engine.economy.prune import PruneResult, prune_dry_run
from ..engine.economy.stale import tokens_text
from ..errors import InvalidInput
from ..store.history import last_measured
from .answers import Answer
from .protocol.economy import CachePreviewInfo, CacheSideInfo, LastCacheInfo, PruneInfo, StaleInfo

if TYPE_CHECKING:
    from ..cards.models import Card
    from ..engine.session import Session


def stale_info(session: Session) -> StaleInfo | None:
    """The dashboard's offer to prune the stale results, or None when there are none."""
    stale = session.stale()
    if not stale:
        return None
    label = f"Prune stale ({len(stale)}, ≈{tokens_text(stale.tokens)})"
    return StaleInfo(count=len(stale), tokens=stale.tokens, label=label)


def last_cache_info(session: Session) -> LastCacheInfo | None:
    """What the last request read from the prompt cache and wrote to it; None before the first request,
    and when it did neither (a model without a cache, the offline ones): then there is nothing to say."""
    last = last_measured(session.stored_timeline.db.conn(), session.id)
    usage = (last[1] if last is not None else None) or {}
    read, write = int(usage.get("cache_read_tokens") or 0), int(usage.get("cache_write_tokens") or 0)
    if not read and not write:
        return None
    text = f"cache: {format_tokens(read)} read, {format_tokens(write)} written"
    return LastCacheInfo(read_tokens=read, write_tokens=write, text=text)


def _side(side: CacheSide) -> CacheSideInfo:
    return CacheSideInfo(
        cached_tokens=side.cached_tokens,
        uncached_tokens=side.uncached_tokens,
        cost=side.cost,
        line=side.line(),
    )


def preview_info(preview: CachePreview) -> CachePreviewInfo:
    """A cache preview as the views show it: `line` without its lead ("Editing this card: …")."""
    if preview.sent:
        line = f"{preview.changed.line()}; unchanged: {preview.unchanged.line()}."
    else:
        line = "the model does not read this card, so changing it spends nothing of the cache."
    return CachePreviewInfo(
        card_id=preview.card_id,
        sent=preview.sent,
        changed=_side(preview.changed),
        unchanged=_side(preview.unchanged),
        extra_tokens=preview.extra_tokens,
        line=line,
    )


def cache_answer(session: Session, card_id: str) -> Answer:
    """The cache preview of changing `card_id` (an open editor, a delete or insert confirm asks it)."""
    return Answer(data={"cache": preview_info(session.cache_preview(card_id))})


def prune_answer(session: Session, cards: str | list[str], dry_run: bool) -> Answer:
    """Prune "stale" or the cards named (one undo step); a dry run changes nothing and asks instead, with
    what the prune saves and what it spends of the cache from the first card it changes."""
    targets: str | list[str] = "stale"
    if cards != "stale":
        if not cards or isinstance(cards, str):
            raise InvalidInput("Choose the cards to prune.")
        targets = [session.card(card_id).id for card_id in cards]  # an unknown card is refused in a sentence
    if dry_run:
        result = prune_dry_run(list(session.cards), targets)
        cache = preview_info(session.cache_preview(result.first)) if result.first else None
        return Answer(result.question(), {"prune": _prune_info(result, result.question(), cache)})
    if targets == "stale":
        result = session.prune("stale")
    else:
        chosen: list[str | Card] = list(targets)
        result = session.prune(chosen)
    return Answer(str(result), {"prune": _prune_info(result, str(result), None)})


def _prune_info(result: PruneResult, text: str, cache: CachePreviewInfo | None) -> PruneInfo:
    return PruneInfo(
        pruned=result.pruned,
        deleted=result.deleted,
        tokens_saved=result.tokens_saved,
        first=result.first,
        text=text,
        cache=cache,
    )
