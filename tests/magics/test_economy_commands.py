"""`%mewrk stale`, `%mewrk prune` and `%mewrk cache` (#39): the stale tool results listed with why and their
tokens, pruned into stubs as one undo step (by default the stale ones, or the cards named by id, prefix or
position), and what a card's change spends of the prompt cache; bad input gets the engine's sentence."""

from __future__ import annotations

import mewrk_jupyter as mw
from mewrk_jupyter import magics
from mewrk_jupyter.cards.inert import for_notebook
from mewrk_jupyter.cards.models import ToolCall


def _session_read_twice(mewrk, workspace) -> mw.Session:
    """A session that read notes.md, then read it again: the first read is stale."""
    (workspace / "notes.md").write_text("the plan: ship it\n" * 40)
    mewrk("new economy")
    for _ in range(2):
        mewrk('send call: read {"path": "notes.md"}')
        magics.current_session().last_run.wait()
    return magics.current_session()


def _calls(s: mw.Session) -> list[ToolCall]:
    return [c for c in s.cards if isinstance(c, ToolCall)]


def test_stale_lists_each_result_with_why_and_tokens_and_the_total(mewrk, workspace):
    mewrk("new")
    assert mewrk("stale").strip() == "No stale tool results."
    s = _session_read_twice(mewrk, workspace)
    first = _calls(s)[0]
    found = s.stale()
    out = mewrk("stale")
    assert out.startswith(f"1 stale tool result, ≈{found.tokens} tokens:")
    assert f"- `{first.id}` read notes.md: read again later" in out and f"({found[0].tokens} tokens)" in out
    assert "`%mewrk prune` turns them into one-line stubs" in out


def test_prune_stubs_the_stale_results_and_one_undo_brings_them_back(mewrk, workspace):
    s = _session_read_twice(mewrk, workspace)
    first, second = _calls(s)
    before = [c.model_dump() for c in s.cards]
    saved = s.stale().tokens
    out = mewrk("prune")
    assert out.strip().startswith("Pruned 1 card: ≈") and "one undo brings them back" in out
    assert s.card(first.id).result.startswith("[pruned: read of notes.md — 40 lines")
    assert s.card(second.id).result == second.result and saved > 0
    assert mewrk("stale").strip() == "No stale tool results."
    assert mewrk("prune stale").strip() == "Nothing to prune."
    mewrk("undo")
    assert [c.model_dump() for c in s.cards] == before


def test_prune_takes_cards_by_id_prefix_or_position_and_thinking(mewrk, workspace):
    s = _session_read_twice(mewrk, workspace)
    first, second = _calls(s)
    position = -(len(s.cards) - s.cards.index(s.card(second.id)))
    assert mewrk(f"prune {first.id[:6]} {position}").strip().startswith("Pruned 2 cards")
    assert all(s.card(c.id).result.startswith("[pruned:") for c in (first, second))
    mewrk("undo")
    mewrk("set model offline/thinker")
    mewrk("send think about it")
    s.last_run.wait()
    mewrk("send and again")
    s.last_run.wait()
    out = mewrk("prune --thinking")
    assert out.strip().startswith("Pruned 1 card, deleted 2 signed thinking blocks: ≈")
    mewrk("undo")
    assert mewrk("prune stale --thinking").strip() == out.strip()


def test_bad_input_gets_the_engine_s_sentence(mewrk, workspace):
    s = _session_read_twice(mewrk, workspace)
    message = next(c for c in s.cards if c.kind == "user_input")
    before = [c.model_dump() for c in s.cards]
    refused = mewrk(f"prune {message.id}")
    assert (
        refused.startswith("**mewrk:** Only tool results and thinking are pruned;")
        and "Traceback" not in refused
    )
    assert mewrk("prune c_nope").startswith("**mewrk:** No card `c_nope` in session")
    assert mewrk("prune stale -1").startswith("Usage: `%mewrk prune [stale | CARD…] [--thinking]`")
    assert mewrk("prune --all").startswith("Usage: `%mewrk prune")
    assert mewrk("cache").startswith("Usage: `%mewrk cache CARD`")
    assert mewrk("cache c_nope").startswith("**mewrk:** No card `c_nope`")
    assert [c.model_dump() for c in s.cards] == before


def test_cache_says_what_a_card_s_change_spends_of_the_prompt_cache(mewrk, workspace):
    s = _session_read_twice(mewrk, workspace)
    first = _calls(s)[0]
    out = mewrk(f"cache {first.id[:8]}")
    assert out.strip() == for_notebook(str(s.cache_preview(first.id)))  # its `$` shows no math
    assert out.startswith(f"Changing {first.id}: ") and "from the cache" in out and "anew" in out


def test_help_lists_the_three_commands(mewrk):
    shown = mewrk("help")
    for form in ("`%mewrk stale`", "`%mewrk prune [stale | CARD…] [--thinking]`", "`%mewrk cache CARD`"):
        assert form in shown
