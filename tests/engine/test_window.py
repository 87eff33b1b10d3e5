"""A request over the model's context window is refused before it is sent, with a sentence naming both
sizes; the question stays, and once the timeline is shorter the turn goes on."""

from __future__ import annotations

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.events import Notice
from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.vendors import write_vendor
from tests.providers.wire import anthropic_reply, anthropic_usage


def test_a_huge_card_on_a_small_window_is_refused_and_nothing_is_sent(workspace):
    s = mw.Session.new(model="offline/tiny")  # a 2k window
    notices: list[Notice] = []
    s.subscribe(lambda event: notices.append(event) if isinstance(event, Notice) else None)
    with pytest.raises(mw.ContextTooLarge) as refused:
        s.send("x" * 40_000)
    sentence = str(refused.value)
    assert sentence == (
        "This request is about 10k tokens and `offline/tiny`'s window is 2k, so it was not sent; "
        "delete or shorten cards, or compact the conversation, then send again."
    )
    assert s.history == []  # nothing was sent
    assert [c.kind for c in s.cards] == ["user_input"]  # the question is kept
    assert notices and notices[-1].text == sentence and notices[-1].level == "error"
    assert s.state == "idle"
    s.edit(s.cards[0].id, text="a short question")
    s.send()
    assert s.cards[-1].kind == "model_reply" and len(s.history) == 1


def test_a_215k_context_on_a_32k_model_never_reaches_the_server(workspace, wire_server, monkeypatch):  # noqa: F811
    monkeypatch.setenv("TEST_WINDOW_KEY", "k")
    write_vendor(
        workspace,
        "w",
        "anthropic-messages",
        wire_server.url,
        "  m: {context_window: 32000}\n",
        "TEST_WINDOW_KEY",
    )
    s = mw.Session.new(model="w/m")
    s.insert(mw.UserInput(text="word " * 172_000))  # about 215k tokens at four characters a token
    with pytest.raises(mw.ContextTooLarge, match=r"about 215k tokens and `w/m`'s window is 32k"):
        s.send("summarise the above")
    assert wire_server.requests == [] and s.history == []


def test_the_size_counts_what_the_last_request_carried_beside_the_timeline(
    workspace,
    wire_server,  # noqa: F811
    monkeypatch,
):
    # The vendor counted 30k tokens for a short question: the hidden prefix and tools are most of it, and
    # the next request carries them too, so a 3k card more does not fit a 32k window.
    monkeypatch.setenv("TEST_WINDOW_KEY", "k")
    write_vendor(
        workspace,
        "w",
        "anthropic-messages",
        wire_server.url,
        "  m: {context_window: 32000}\n",
        "TEST_WINDOW_KEY",
    )
    wire_server.enqueue(anthropic_reply("Hello.", usage=anthropic_usage(30_000, 5)))
    s = mw.Session.new(model="w/m")
    s.send("hi")
    assert s.context.last_request == 30_000
    with pytest.raises(mw.ContextTooLarge, match=r"about 3\dk tokens"):
        s.send("y" * 12_000)
    assert len(wire_server.requests) == 1


def test_a_tool_result_that_overflows_the_window_stops_the_turn_before_the_next_request(workspace):
    (workspace / "big.txt").write_text("z" * 12_000 + "\n")
    s = mw.Session.new(model="offline/tiny")
    with pytest.raises(mw.ContextTooLarge, match="so it was not sent"):
        s.send('call: read {"path": "big.txt"}')
    assert [c.kind for c in s.cards] == ["user_input", "model_reply", "tool_call"]
    # The call ran and is in the history; the request that would carry its result did not go.
    assert s.cards[-1].status == "done" and [h.protocol for h in s.history] == ["offline", "tool"]


def test_a_model_without_a_declared_window_is_not_checked(workspace, wire_server, monkeypatch):  # noqa: F811
    monkeypatch.setenv("TEST_WINDOW_KEY", "k")
    write_vendor(workspace, "w", "anthropic-messages", wire_server.url, "  m: {}\n", "TEST_WINDOW_KEY")
    wire_server.enqueue(anthropic_reply("Read it all."))
    s = mw.Session.new(model="w/m")
    s.send("word " * 50_000)
    assert s.cards[-1].text == "Read it all."
