"""Cost (D6): what the session spent over all its responses, priced from the models' configuration."""

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.assembly.context import ContextInfo, session_spending
from mewrk_jupyter.providers.registry import prices_of

from .vendors import write_vendor
from .wire import anthropic_reply, anthropic_usage, chat_reply, chat_usage


@pytest.fixture
def priced(workspace, wire_server, monkeypatch):
    """Claude with prices per million tokens; DeepSeek without any."""
    monkeypatch.setenv("TEST_KEY", "sk-test")
    claude = (
        "  claude-test:\n    context_window: 200000\n"
        "    prices: {input: 3, output: 15, cache_read: 0.3, cache_write: 3.75}\n"
        "  claude-cheap: {prices: {input: 1, output: 5}}\n"
    )
    write_vendor(workspace, "anthropic", "anthropic-messages", wire_server.url, claude, "TEST_KEY")
    deepseek = "  deepseek-chat: {context_window: 64000}\n"
    write_vendor(workspace, "deepseek", "openai-chat", wire_server.openai_base_url, deepseek, "TEST_KEY")
    return wire_server


def _spending(s):
    return session_spending(
        s.stored_timeline.db.conn(), s.id, lambda model: prices_of(model, s.workspace.home)
    )


def test_cost_sums_every_response_of_the_session_at_the_configured_prices(priced):
    priced.enqueue(
        anthropic_reply("One.", usage=anthropic_usage(1000, 200, cache_creation_input_tokens=4000)),
        anthropic_reply("Two.", usage=anthropic_usage(300, 100, cache_read_input_tokens=4000)),
    )
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("first")
    s.send("second")
    spending = _spending(s)
    assert spending.spent == {
        "input_tokens": 1300,
        "output_tokens": 300,
        "cache_read_tokens": 4000,
        "cache_write_tokens": 4000,
    }
    expected = (1300 * 3 + 300 * 15 + 4000 * 0.3 + 4000 * 3.75) / 1_000_000
    assert spending.cost == pytest.approx(expected) and spending.unpriced == []
    info = s.context.model_copy(update=spending.model_dump())
    assert info.cost_line() == "Cost: $0.025 this session · 9.3k in, 300 out"
    assert info.line().startswith("Agent: main · anthropic/claude-test")  # the room left is a figure apart
    assert info._repr_markdown_().splitlines()[1] == f"`{info.cost_line()}`"


def test_cache_tokens_without_a_price_of_their_own_go_at_the_input_price_and_models_add_up(priced):
    priced.enqueue(
        anthropic_reply("One.", usage=anthropic_usage(1000, 1000, cache_read_input_tokens=1000)),
        anthropic_reply("Two.", usage=anthropic_usage(1000, 1000)),
    )
    s = mw.Session.new(model="anthropic/claude-cheap")
    s.send("first")
    s.configure(model="anthropic/claude-test")
    s.send("second")
    assert _spending(s).cost == pytest.approx((2000 * 1 + 1000 * 5 + 1000 * 3 + 1000 * 15) / 1_000_000)


def test_without_prices_there_is_no_cost_and_a_partly_priced_session_says_what_is_left_out(priced):
    priced.enqueue(chat_reply("Hi.", usage=chat_usage(500, 50)))
    s = mw.Session.new(model="deepseek/deepseek-chat")
    s.send("hello")
    spending = _spending(s)
    assert (spending.cost, spending.unpriced) == (None, [])
    info = s.context.model_copy(update=spending.model_dump())
    assert info.cost_line() == "Cost: no prices configured · 500 in, 50 out"
    priced.enqueue(anthropic_reply("Hi.", usage=anthropic_usage(1000, 100)))
    s.configure(model="anthropic/claude-test")
    s.send("again")
    info = s.context.model_copy(update=_spending(s).model_dump())
    assert info.cost_line() == (
        "Cost: $0.0045 this session (without deepseek/deepseek-chat: no prices configured) · 1.5k in, 150 out"
    )


def test_a_fresh_context_has_no_cost_figures():
    info = ContextInfo(
        agent="main", model="offline/echo", reasoning="off", used=0, window=None, estimated=True, by_kind={}
    )
    assert (info.cost, info.spent, info.cost_line()) == (None, {}, "Cost: no prices configured · 0 in, 0 out")


def test_the_session_context_carries_the_cost(priced):
    priced.enqueue(anthropic_reply("One.", usage=anthropic_usage(1000, 200)))
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("first")
    assert s.context.cost == pytest.approx((1000 * 3 + 200 * 15) / 1_000_000)
