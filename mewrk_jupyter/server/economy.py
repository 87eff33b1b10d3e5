"""The routes of context economy (#39): the stale tool results, pruning them (or chosen cards) as one undo
step, and what a card's change would spend of the prompt cache; each over the session's own verbs."""

from __future__ import annotations

from typing import Any

from jupyter_server.auth.decorator import authorized
from tornado import web

from ..engine.economy.cache import CachePreview, CacheSide
from ..engine.economy.prune import PruneResult
from ..engine.economy.stale import StaleList
from .bodies import PruneBody
from .handler import MewrkHandler, answers
from .stream import off_loop


def stale_body(found: StaleList) -> dict[str, Any]:
    """The stale results as the API shows them, and their tokens together."""
    rows = [
        {"cardId": i.card_id, "name": i.name, "params": i.params, "why": i.why, "tokens": i.tokens}
        for i in found
    ]
    return {"stale": rows, "tokens": found.tokens, "result": str(found)}


def prune_body(done: PruneResult) -> dict[str, Any]:
    """What a prune changed, as the API shows it."""
    return {
        "pruned": done.pruned,
        "deleted": done.deleted,
        "tokensSaved": done.tokens_saved,
        "first": done.first,
        "result": str(done),
    }


def side_body(side: CacheSide) -> dict[str, Any]:
    """One way the next request could go: read from the cache, sent anew, and the cost (null: no prices)."""
    return {"cachedTokens": side.cached_tokens, "uncachedTokens": side.uncached_tokens, "cost": side.cost}


def cache_body(preview: CachePreview) -> dict[str, Any]:
    """A card's cache preview as the API shows it: changed beside unchanged."""
    return {
        "cardId": preview.card_id,
        "sent": preview.sent,
        "changed": side_body(preview.changed),
        "unchanged": side_body(preview.unchanged),
        "extraTokens": preview.extra_tokens,
        "result": str(preview),
    }


class StaleHandler(MewrkHandler):
    """`GET /sessions/{id}/stale`: the tool results that no longer serve, each with why and its tokens."""

    @web.authenticated
    @authorized
    @answers
    async def get(self, session_id: str) -> None:
        """The stale results, oldest first, and their tokens together."""
        s = await self.session(session_id)
        self.reply(stale_body(await off_loop(s.stale)))


class PruneHandler(MewrkHandler):
    """`POST /sessions/{id}/prune` `{cards?, thinking?}`: tool results (and thinking) become one-line stubs,
    as one undo step; refused while a turn runs (409), for another kind of card (400)."""

    @web.authenticated
    @authorized
    @answers
    async def post(self, session_id: str) -> None:
        """Prune "stale" (by default) or the cards named; the answer says what changed."""
        body = self.body_as(PruneBody)
        s = await self.session(session_id)
        self.reply(prune_body(await off_loop(s.prune, body.cards, thinking=body.thinking)))


class CacheHandler(MewrkHandler):
    """`GET /sessions/{id}/cards/{card}/cache`: what the next request reads from the prompt cache and sends
    anew if that card changes, beside it unchanged."""

    @web.authenticated
    @authorized
    @answers
    async def get(self, session_id: str, card_id: str) -> None:
        """The preview's figures (the card by its id, a prefix, or `-1`)."""
        s = await self.session(session_id)
        self.reply(cache_body(await off_loop(s.cache_preview, card_id)))
