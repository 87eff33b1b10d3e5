"""The context economy in the widget (#39), kernel side: the dashboard offers to prune the stale results
and says what the last request read from the cache and wrote to it; a prune of the stale results, of a
card or of a box selection is one action and one undo step, and its dry run says what it would save and
spend of the cache, changing nothing; an open editor's cache preview is the session's own."""

from __future__ import annotations

import json

import mewrk_jupyter as mw
from mewrk_jupyter.engine.economy.prune import prune_dry_run
from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.vendors import write_vendor
from tests.providers.wire import anthropic_reply, anthropic_usage

from .recording import RecordingWidget


def _read_twice(session: mw.Session) -> list[mw.ToolCall]:
    (session.workspace.root / "a.py").write_text("x = 1\n" * 40)
    for _ in range(2):
        session.send(f"call: read {json.dumps({'path': 'a.py'})}", wait=True)
        if session.pending_approval is not None:
            session.approve(wait=True)
    return [c for c in session.cards if isinstance(c, mw.ToolCall)]


def test_the_dashboard_offers_the_stale_results_and_its_prune_is_one_undo_step(session, widget):
    first, _ = _read_twice(session)
    widget.hello()
    stale = widget.of("snapshot")[-1]["context"]["stale"]
    tokens = session.stale().tokens
    assert stale["count"] == 1 and stale["tokens"] == tokens
    assert stale["label"] == f"Prune stale (1, ≈{tokens} tokens)"
    original = first.result
    result = widget.do("prune", cards="stale")
    assert result["ok"] and result["message"].startswith("Pruned 1 card: ≈")
    assert result["data"]["prune"]["pruned"] == [first.id]
    assert session.card(first.id).result.startswith("[pruned: read of a.py — 40 lines")
    assert widget.of("context")[-1]["stale"] is None  # the dashboard follows: nothing stale is left
    assert widget.do("undo")["message"].startswith("Undid: pruned 1 card")
    assert session.card(first.id).result == original
    assert widget.of("context")[-1]["stale"]["count"] == 1


def test_a_dry_run_says_what_the_prune_saves_and_spends_of_the_cache_and_changes_nothing(session, widget):
    first, second = _read_twice(session)
    before = [c.model_dump() for c in session.cards]
    result = widget.do("prune", cards=[first.id, second.id], dry_run=True)
    planned = result["data"]["prune"]
    assert result["ok"] and [c.model_dump() for c in session.cards] == before
    expected = prune_dry_run(list(session.cards), [first.id, second.id])
    assert planned["tokens_saved"] == expected.tokens_saved > 0 and planned["first"] == first.id
    assert (
        result["message"]
        == f"Prune 2 cards? It saves ≈{expected.tokens_saved} tokens; one undo brings them back."
    )
    cache = planned["cache"]
    preview = session.cache_preview(first.id)
    assert cache["changed"]["cached_tokens"] == preview.cached_tokens
    assert cache["changed"]["cost"] == 0.0  # the offline models are free
    assert cache["line"] == f"{preview.changed.line()}; unchanged: {preview.unchanged.line()}."


def test_a_card_and_a_box_selection_are_pruned_by_id_and_other_cards_are_refused(session, widget):
    first, second = _read_twice(session)
    one = widget.do("prune", cards=[second.id])
    assert one["ok"] and one["data"]["prune"]["pruned"] == [second.id]
    mine = session.insert(mw.Thinking(text="a note of mine " * 20))
    both = widget.do("prune", cards=[first.id, mine.id])
    assert both["ok"] and both["data"]["prune"]["pruned"] == [first.id, mine.id]
    assert session.card(mine.id).text.startswith("[pruned: thinking — ")
    assert widget.do("undo")["ok"] and session.card(mine.id).text.startswith("a note of mine")
    reply = session.cards[1]
    refused = widget.do("prune", cards=[reply.id])
    assert not refused["ok"] and refused["message"].startswith("Only tool results and thinking are pruned")
    assert not widget.do("prune", cards=[])["ok"]
    gone = widget.do("prune", cards=["c-nothing"])
    assert not gone["ok"] and "Traceback" not in gone["message"]


def test_the_cache_preview_answers_what_editing_a_card_spends(session, widget):
    session.send("and again " * 30, wait=True)
    card = session.cards[0]
    result = widget.do("cache_preview", card_id=card.id)
    preview = session.cache_preview(card.id)
    cache = result["data"]["cache"]
    assert result["ok"] and cache["card_id"] == card.id and cache["sent"]
    assert cache["changed"]["uncached_tokens"] == preview.uncached_tokens
    assert cache["extra_tokens"] == preview.extra_tokens > 0
    assert "from the cache" in cache["line"] and "· $0.00" in cache["line"]


def test_the_dashboard_shows_the_last_requests_cache_reads_and_writes(workspace, wire_server, monkeypatch):  # noqa: F811
    monkeypatch.setenv("TEST_KEY", "sk-test")
    models = "  claude-test:\n    context_window: 200000\n    prices: {input: 3, output: 15, cache_read: 0.3, cache_write: 3.75}\n"
    write_vendor(workspace, "anthropic", "anthropic-messages", wire_server.url, models, "TEST_KEY")
    wire_server.enqueue(
        anthropic_reply("One.", usage=anthropic_usage(300, 100, cache_creation_input_tokens=4000)),
        anthropic_reply("Two.", usage=anthropic_usage(300, 100, cache_read_input_tokens=4000)),
    )
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("first")
    widget = RecordingWidget(s)
    try:
        widget.hello()
        cache = widget.of("snapshot")[-1]["context"]["last_cache"]
        assert cache == {"read_tokens": 0, "write_tokens": 4000, "text": "cache: 0 read, 4k written"}
        s.send("second")
        widget.hello()
        assert widget.of("snapshot")[-1]["context"]["last_cache"]["text"] == "cache: 4k read, 0 written"
        priced = widget.do("cache_preview", card_id=s.cards[0].id)["data"]["cache"]
        assert priced["changed"]["cost"] is not None and priced["changed"]["cost"] > 0
    finally:
        widget.close()


def test_an_offline_model_counts_no_cache_figures(session, widget):
    widget.hello()
    assert widget.of("snapshot")[-1]["context"]["last_cache"] is None
