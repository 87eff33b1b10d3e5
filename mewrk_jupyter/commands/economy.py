"""Commands of context economy (#39): `stale` lists the tool results that no longer serve, `prune` turns
them (or chosen cards) into one-line stubs as one undo step, and `cache` says what a card's change would
spend of the prompt cache. Each answers with the engine's own sentence."""

from __future__ import annotations

from ..cards.inert import inert_inline
from ..engine.economy.stale import call_subject, tokens_text
from .base import Call, Result, read_options, refuse
from .timeline import card_id

STALE = "stale"


def stale(call: Call) -> Result:
    """`stale`: the stale tool results, a line each with why and its tokens, and their total."""
    found = call.current.stale()
    if not found:
        return Result(str(found))
    lines = [
        f"- `{item.card_id}` {inert_inline(f'{item.name} {call_subject(item.name, item.params)}: {item.why}')} "
        f"({tokens_text(item.tokens)})"
        for item in found
    ]
    head = str(found).splitlines()[0]
    hint = "`%mewrk prune` turns them into one-line stubs; `%mewrk undo` brings them back."
    return Result(str(found), markdown="\n".join([head, "", *lines, "", hint]))


def prune(call: Call) -> Result:
    """`prune [stale | CARD…] [--thinking]`: the stale results (by default) or the cards named become
    stubs that say what was there, as one undo step; `--thinking` adds the thinking above the last reply."""
    _, flags, words = read_options("prune", call.args, {}, ("--thinking",))
    thinking = "--thinking" in flags
    if STALE in words and len(words) > 1:
        refuse("`prune` takes `stale` or cards, not both")
    if not words or words == [STALE]:
        done = call.current.prune("stale", thinking=thinking)
    else:  # the session reads each card as any command names one: an id, a prefix, `-1`
        done = call.current.prune([*words], thinking=thinking)
    return Result(str(done), data={"card_ids": [*done.pruned, *done.deleted]})


def cache(call: Call) -> Result:
    """`cache CARD`: what the next request reads from the prompt cache and sends anew if that card changes."""
    session = call.current
    return Result(str(session.cache_preview(card_id(session, call.args[0]))))
