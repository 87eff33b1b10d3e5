"""Context economy (#39): the tool results that no longer serve, pruning them as one undo step, and what
an edit costs in the prompt cache."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import mewrk_jupyter as mw
from mewrk_jupyter.cards.models import ToolCall
from mewrk_jupyter.engine.assembly.context import Sizes
from mewrk_jupyter.engine.economy.cache import cache_preview
from mewrk_jupyter.engine.economy.prune import prune_dry_run


def _calls(s: mw.Session) -> list[ToolCall]:
    return [c for c in s.cards if isinstance(c, ToolCall)]


def _call(s: mw.Session, name: str, params: dict) -> ToolCall:
    s.send(f"call: {name} {json.dumps(params)}")
    if s.pending_approval is not None:
        s.approve()
    return _calls(s)[-1]


def test_a_result_read_again_or_changed_since_is_stale_and_says_why(workspace):
    (workspace / "a.py").write_text("x = 1\n")
    s = mw.Session.new()
    first = _call(s, "read", {"path": "a.py"})
    listing = _call(s, "ls", {"path": "."})
    _call(s, "read", {"path": "a.py"})
    _call(s, "ls", {"path": "."})
    (workspace / "b.py").write_text("y = 2\n")
    before_write = _call(s, "read", {"path": "b.py"})
    _call(s, "write", {"path": "b.py", "content": "y = 3\n"})
    (workspace / "a.py").write_text("x = 2\n")  # changed by another program: the watcher tells the model
    s.send("go on")
    told = [c for c in s.cards if isinstance(c, mw.HostMessage) and c.topic == "file_changed"]
    assert told and "`a.py`" in told[0].text
    stale = s.stale()
    why = {item.card_id: item.why for item in stale}
    assert why[first.id].startswith("read again later")
    assert why[listing.id].startswith("ls again later")
    assert why[before_write.id] == f"b.py was changed since by write ({_calls(s)[-1].id})"
    later_read = _calls(s)[2]
    assert why[later_read.id] == "the file changed since it was read, as the model was told"
    assert all(item.tokens > 0 for item in stale) and stale.tokens == sum(i.tokens for i in stale)
    assert "stale tool result" in str(stale) and first.id in str(stale)


def test_a_large_result_nothing_quotes_is_stale_and_one_quoted_is_not(workspace):
    s = mw.Session.new()
    big = _call(s, "bash", {"command": "seq 100000 103000"})
    quoted = _call(s, "bash", {"command": "seq -f 'item-%.0f-of-the-list' 200000 201000"})
    s.insert(mw.ModelReply(text=f"The first line was {quoted.result.splitlines()[0]}"))
    why = {item.card_id: item.why for item in s.stale()}
    assert why[big.id].endswith("that nothing after it quotes")
    assert quoted.id not in why


def test_prune_stubs_the_stale_results_in_one_step_and_the_next_request_sends_the_stubs(workspace):
    (workspace / "a.py").write_text("x = 1\n" * 50)
    s = mw.Session.new()
    first = _call(s, "read", {"path": "a.py"})
    _call(s, "read", {"path": "a.py"})
    original = first.result
    result = s.prune()
    assert result.pruned == [first.id] and result.first == first.id and result.tokens_saved > 0
    stubbed = s.card(first.id)
    assert stubbed.result == f"[pruned: read of a.py — 50 lines, {_tokens(original)}]"
    assert str(result).startswith("Pruned 1 card: ≈")
    assert s.stale() == []  # a stub is not stale again
    s.send("and now?")
    sent = json.dumps(s.history[-1].request)
    assert "[pruned: read of a.py" in sent and original.splitlines()[0] not in sent.split("[pruned")[0]
    assert s.undo().startswith("Undid: pruned 1 card")
    assert s.card(first.id).result == original


def _tokens(text: str) -> str:
    from mewrk_jupyter.engine.economy.stale import tokens_text
    from mewrk_jupyter.providers.offline import estimate_tokens

    return tokens_text(estimate_tokens(text))


def test_signed_thinking_is_deleted_and_unsigned_thinking_stubbed(workspace):
    s = mw.Session.new(model="offline/thinker")
    s.send("think: a long thought about the question")
    signed = next(c for c in s.cards if isinstance(c, mw.Thinking))
    assert signed.is_signed
    mine = s.insert(mw.Thinking(text="my own note " * 40), before=signed)
    result = s.prune([signed.id, mine.id])
    assert result.deleted == [signed.id] and result.pruned == [mine.id]
    assert signed.id not in [c.id for c in s.cards]
    assert s.card(mine.id).text.startswith("[pruned: thinking — ")
    s.undo()
    assert s.card(signed.id).signature == signed.signature and s.card(mine.id).text == mine.text


def test_prune_refuses_what_it_cannot_prune_with_a_sentence(workspace):
    s = mw.Session.new()
    s.send("hello")
    with pytest.raises(mw.InvalidInput, match="Only tool results and thinking are pruned"):
        s.prune(s.cards[0].id)
    with pytest.raises(mw.InvalidInput, match="needs card ids"):
        s.prune([])
    with pytest.raises(mw.InvalidInput, match="thinking=True adds the thinking above the last reply"):
        s.prune([s.cards[-1].id], thinking=True)
    assert str(s.prune()) == "Nothing to prune."
    slow = mw.Session.new(model="offline/slow")
    slow.send("long: 2000", wait=False)
    with pytest.raises(mw.SessionBusy):
        slow.prune()
    slow.stop()


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.data())
def test_pruning_then_undo_restores_the_timeline_exactly(workspace, data):
    s = _PRUNABLE.get(str(workspace)) or _prunable(workspace)
    candidates = [c.id for c in s.cards if isinstance(c, ToolCall | mw.Thinking)]
    chosen = data.draw(st.lists(st.sampled_from(candidates), min_size=1, unique=True))
    before = [c.model_dump() for c in s.cards]
    if data.draw(st.booleans()):
        result = s.prune("stale", thinking=data.draw(st.booleans()))
    else:
        result = s.prune(chosen)
    if result.pruned or result.deleted:  # a prune that changed nothing is no undo step
        s.undo()
    assert [c.model_dump() for c in s.cards] == before


_PRUNABLE: dict[str, mw.Session] = {}


def _prunable(workspace) -> mw.Session:
    (workspace / "a.py").write_text("x = 1\n" * 20)
    s = mw.Session.new(model="offline/thinker")
    s.send('think: which file?\ncall: read {"path": "a.py"}')
    s.send('call: ls {"path": "."}')
    s.insert(mw.Thinking(text="a note of mine"))
    _PRUNABLE[str(workspace)] = s
    return s


def test_the_cache_preview_says_what_an_edit_spends_of_the_cache(workspace):
    s = mw.Session.new()
    s.send("first question " * 50)
    s.send("second question")
    first, last = s.cards[0], s.cards[-1]
    early, late = s.cache_preview(first), s.cache_preview(last)
    assert early.sent and late.sent
    assert early.cached_tokens < late.cached_tokens <= late.unchanged.cached_tokens
    assert early.uncached_tokens > late.uncached_tokens
    assert early.extra_tokens > 0 and early.cost == 0.0  # the offline models are free
    assert f"Changing {first.id}:" in str(early) and "from the cache" in str(early)


def test_the_cache_preview_prices_reads_and_writes_and_shows_tokens_only_without_cache_prices():
    cards = [mw.UserInput(text="a" * 4000), mw.ModelReply(text="b" * 4000), mw.UserInput(text="c" * 400)]
    sizes = Sizes(last_request=2500, next_request=2600, by_kind={"user_input": 1100, "model_reply": 1000})
    priced = cache_preview(
        cards, cards[1].id, sizes, "acme/m", lambda m: {"input": 3.0, "cache_read": 0.3, "cache_write": 3.75}
    )
    assert (priced.cached_tokens, priced.uncached_tokens) == (1500, 1100)  # 500 beside + the first card
    assert priced.cost == pytest.approx((1500 * 0.3 + 1100 * 3.75) / 1e6)
    assert priced.unchanged.cached_tokens == 2500 and priced.unchanged.uncached_tokens == 100
    bare = cache_preview(cards, cards[1].id, sizes, "acme/m", lambda m: {"input": 3.0, "output": 15.0})
    assert bare.cost is None and bare.cached_tokens == 1500


def test_a_dry_run_of_prune_says_what_the_prune_will_do_and_changes_nothing(workspace):
    (workspace / "a.py").write_text("x = 1\n" * 30)
    s = mw.Session.new()
    first = _call(s, "read", {"path": "a.py"})
    _call(s, "read", {"path": "a.py"})
    before = [c.model_dump() for c in s.cards]
    planned = prune_dry_run(list(s.cards), "stale")
    assert [c.model_dump() for c in s.cards] == before and s.stale()[0].card_id == first.id
    assert (
        planned.question()
        == f"Prune 1 card? It saves ≈{planned.tokens_saved} tokens; one undo brings them back."
    )
    done = s.prune()
    assert (done.pruned, done.tokens_saved, done.first) == (
        planned.pruned,
        planned.tokens_saved,
        planned.first,
    )
    assert prune_dry_run(list(s.cards), "stale").question() == "Nothing to prune."
