"""Pruning (#39): chosen tool results (and, asked, thinking) become one-line stubs that say what was there
(`[pruned: ls of . — 40 entries, 1.2k tokens]`), in place and as one undo step; the next request sends
the stub. Signed thinking is deleted, not rewritten (T7: its signature binds its text)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...cards.inert import for_notebook
from ...cards.models import Card, ModelReply, Thinking, ToolCall
from ...cards.words import count
from ...errors import InvalidInput
from ...providers.offline import estimate_tokens
from .stale import call_subject, is_pruned, stale_results, tokens_text

# What a result's lines are, by tool, for the stub.
UNITS = {"ls": "entry", "grep": "match", "find": "path"}


@dataclass
class PruneResult:
    """What a prune changed: the cards stubbed, the signed thinking deleted, the tokens saved (estimated),
    and the first card it changed (the prompt cache is spent from there on)."""

    pruned: list[str] = field(default_factory=list)
    deleted: list[str] = field(default_factory=list)
    tokens_saved: int = 0
    first: str | None = None

    def __str__(self) -> str:
        if not self.pruned and not self.deleted:
            return "Nothing to prune."
        done = ", ".join(self._changes("pruned", "deleted")).capitalize()
        return f"{done}: ≈{tokens_text(self.tokens_saved)} saved (one undo brings them back)."

    def question(self) -> str:
        """What the prune would do, asked before it lands (the sentence of a dry run)."""
        if not self.pruned and not self.deleted:
            return "Nothing to prune."
        asked = " and ".join(self._changes("prune", "delete")).capitalize()
        return f"{asked}? It saves ≈{tokens_text(self.tokens_saved)}; one undo brings them back."

    def _changes(self, prune: str, delete: str) -> list[str]:
        parts = [f"{prune} {count(len(self.pruned), 'card')}"] if self.pruned else []
        if self.deleted:
            parts.append(f"{delete} {count(len(self.deleted), 'signed thinking block')}")
        return parts

    def _repr_markdown_(self) -> str:
        return for_notebook(str(self))


def stub(card: ToolCall | Thinking) -> str:
    """The one line a pruned card keeps: what it was, how much, and how many tokens it took."""
    if isinstance(card, Thinking):
        return f"[pruned: thinking — {tokens_text(estimate_tokens(card.text))}]"
    text = card.result or ""
    lines = [line for line in text.splitlines() if line.strip()]
    unit = UNITS.get(card.name, "line")
    size = tokens_text(estimate_tokens(text))
    return f"[pruned: {card.name} of {call_subject(card.name, dict(card.params))} — {count(len(lines), unit)}, {size}]"


def prune_changes(
    cards: list[Card], targets: str | list[str], thinking: bool
) -> tuple[list[tuple[str, Card | None]], PruneResult]:
    """The changes a prune makes to `cards` (each card's id and its stub, or None to delete it) and what
    it saves. `targets` is "stale" or card ids (already resolved); `thinking` adds, with "stale", the
    thinking above the last reply."""
    by_id = {card.id: card for card in cards}
    if targets == "stale":
        chosen = [item.card_id for item in stale_results(cards)]
        if thinking:
            last = max((i for i, c in enumerate(cards) if isinstance(c, ModelReply)), default=-1)
            chosen += [c.id for c in cards[:last] if isinstance(c, Thinking) and not _pruned_thinking(c)]
    else:
        chosen = list(dict.fromkeys(targets))
    order = {card.id: i for i, card in enumerate(cards)}
    result = PruneResult()
    changes: list[tuple[str, Card | None]] = []
    for cid in sorted(chosen, key=lambda c: order.get(c, -1)):
        card = by_id[cid]
        if isinstance(card, ToolCall):
            if card.status not in ("done", "denied", "rejected") or card.result is None:
                raise InvalidInput(f"The call {cid} has no result yet, so there is nothing to prune in it.")
            if is_pruned(card):
                continue
            new_text = stub(card)
            saved = estimate_tokens(card.result) - estimate_tokens(new_text)
            changes.append((cid, card.model_copy(update={"result": new_text, "images": [], "edited": True})))
            result.pruned.append(cid)
        elif isinstance(card, Thinking):
            if _pruned_thinking(card):
                continue
            saved = estimate_tokens(card.text)
            if card.is_signed:  # its signature binds its text: it goes whole
                changes.append((cid, None))
                result.deleted.append(cid)
            else:
                new_text = stub(card)
                saved -= estimate_tokens(new_text)
                changes.append((cid, card.model_copy(update={"text": new_text, "edited": True})))
                result.pruned.append(cid)
        else:
            raise InvalidInput(
                f"Only tool results and thinking are pruned; {cid} is a {card.kind.replace('_', ' ')}: edit or "
                "delete it instead."
            )
        result.tokens_saved += max(0, saved)
        result.first = result.first or cid
    return changes, result


def prune_dry_run(cards: list[Card], targets: str | list[str], thinking: bool = False) -> PruneResult:
    """What a prune of `targets` would change in `cards` and save, changing nothing (the widget asks it
    before the prune lands, to say what it saves and what it spends of the cache)."""
    return prune_changes(cards, targets, thinking)[1]


def _pruned_thinking(card: Thinking) -> bool:
    return card.text.startswith("[pruned:")
