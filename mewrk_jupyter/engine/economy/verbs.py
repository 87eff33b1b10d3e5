"""The session's verbs of context economy (#39), which Session takes on: `stale`, `prune` and
`cache_preview`, each handing the work to its module here."""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

from ...cards.models import Card
from ...errors import InvalidInput
from ...providers.registry import prices_of
from ..assembly.context import measure
from .cache import CachePreview, cache_preview
from .prune import PruneResult, prune_changes
from .stale import StaleList, stale_results

if TYPE_CHECKING:
    from ..settings.model import SessionSettings
    from ..timeline.edits import TimelineEdits
    from ..workspace import Workspace


class EconomyVerbs:
    """Stale results, pruning and the cache preview of a session (the Session's own timeline and edits)."""

    if TYPE_CHECKING:
        workspace: Workspace
        _edits: TimelineEdits

        @property
        def cards(self) -> list[Card]: ...

        @property
        def settings(self) -> SessionSettings: ...

    def stale(self) -> StaleList:
        """The tool calls whose results no longer serve — read again later, a file changed since, or large
        and quoted by nothing after — each with why and its tokens; `.tokens` is their sum."""
        return stale_results(list(self.cards))

    def prune(
        self, cards: Literal["stale"] | list[str | Card] | str | Card = "stale", *, thinking: bool = False
    ) -> PruneResult:
        """Turn tool results (and thinking) into one-line stubs that say what was there, in place, as one
        undo step; "stale" prunes what `stale()` lists (with `thinking=True`, and the thinking above the
        last reply). Signed thinking is deleted, not rewritten. The next request sends the stubs."""
        self._edits.check_idle()  # refused while a turn runs, like any edit, even with nothing to prune
        if isinstance(cards, str) and cards == "stale":
            targets: Literal["stale"] | list[str] = "stale"
        else:
            if thinking:
                raise InvalidInput(
                    'thinking=True adds the thinking above the last reply to a prune of "stale"; a thinking '
                    "card is pruned by hand by naming it among the cards."
                )
            chosen = [cards] if isinstance(cards, str | Card) else list(cards)
            if not chosen:
                raise InvalidInput('prune() needs card ids, or "stale".')
            targets = [self._edits.timeline.resolve(c) for c in chosen]
        changes, result = prune_changes(list(self.cards), targets, thinking)
        if changes:
            self._edits.change_all(changes, f"pruned {len(changes)} card{'s' if len(changes) != 1 else ''}")
        return result

    def cache_preview(self, card_id: str | Card) -> CachePreview:
        """What the next request reads from the prompt cache and sends anew if that card (or anything from
        it on) changes, beside sending it unchanged, with the cost at the model's cache prices."""
        timeline = self._edits.timeline
        cid = timeline.resolve(card_id)
        cards = list(self.cards)
        sizes = measure(timeline.db.conn(), timeline.session_id, cards)
        home = self.workspace.home
        return cache_preview(cards, cid, sizes, self.settings.model, lambda m: prices_of(m, home))
