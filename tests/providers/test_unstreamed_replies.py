"""No silent turns: a streamed request answered by a whole JSON message, by a body that is not one, or by a
stream that stops before its final event ends with the reply or with a sentence naming the server."""

from __future__ import annotations

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.events import Notice

from .vendors import write_vendor
from .wire import (
    WireServer,
    anthropic_reply,
    anthropic_thinking,
    anthropic_tool_use,
    anthropic_usage,
    chat_reply,
    chat_tool_call,
    chat_usage,
    json_reply,
    responses_function_call,
    responses_message,
    responses_reply,
    responses_usage,
)

SECRET = "sk-proxy-test-SECRET-value-789"
MODELS = "  m: {context_window: 200000, thinking: signed}\n"


def _session(workspace, wire_server: WireServer, monkeypatch, protocol: str) -> mw.Session:
    monkeypatch.setenv("TEST_PROXY_KEY", SECRET)
    base = wire_server.url if protocol == "anthropic-messages" else wire_server.openai_base_url
    write_vendor(workspace, "proxy", protocol, base, MODELS, "TEST_PROXY_KEY")
    return mw.Session.new(model="proxy/m")


@pytest.fixture
def claude(workspace, wire_server, monkeypatch) -> mw.Session:
    """A session on a vendor speaking Anthropic Messages from the wire server."""
    return _session(workspace, wire_server, monkeypatch, "anthropic-messages")


@pytest.fixture
def chat(workspace, wire_server, monkeypatch) -> mw.Session:
    """A session on a vendor speaking OpenAI Chat Completions from the wire server."""
    return _session(workspace, wire_server, monkeypatch, "openai-chat")


@pytest.fixture
def responses(workspace, wire_server, monkeypatch) -> mw.Session:
    """A session on a vendor speaking OpenAI Responses from the wire server."""
    return _session(workspace, wire_server, monkeypatch, "openai-responses")


def _notices(session: mw.Session) -> list[str]:
    seen: list[str] = []
    session.subscribe(lambda event: seen.append(event.text) if isinstance(event, Notice) else None)
    return seen


# ---- a whole message where a stream was asked for: used as if streamed ------------------------------


def test_anthropic_a_whole_message_for_a_streamed_request_becomes_the_same_cards(claude, wire_server):
    wire_server.enqueue(
        anthropic_reply(
            anthropic_thinking("Let me look.", "SIG-J"),
            "Listing the folder.",
            anthropic_tool_use("ls", {"path": "."}, id="toolu_j"),
            usage=anthropic_usage(40, 12, cache_read_input_tokens=5),
            unstreamed=True,
        ),
        anthropic_reply("Done.", unstreamed=True),
    )
    claude.send("what is here?")
    assert wire_server.json_bodies()[0]["stream"] is True
    kinds = [c.kind for c in claude.cards]
    assert kinds == ["user_input", "thinking", "model_reply", "tool_call", "model_reply"]
    thinking, reply, call = claude.cards[1:4]
    assert (thinking.text, thinking.signature, thinking.bound_to is not None) == (
        "Let me look.",
        "SIG-J",
        True,
    )
    assert reply.text == "Listing the folder." and reply.stop_reason == "tool_use" and not reply.interrupted
    assert (reply.usage.input_tokens, reply.usage.output_tokens, reply.usage.cache_read_tokens) == (40, 12, 5)
    assert (call.call_id, call.name, call.params, call.status) == ("toolu_j", "ls", {"path": "."}, "done")
    assert claude.cards[-1].text == "Done."
    first = claude.history[0]
    assert first.response["stop"] == "tool_use" and not first.error
    assert [b["type"] for b in first.response["parts"]] == ["thinking", "text", "tool_use"]
    # The signed block goes back byte for byte in the second request, as a streamed one would.
    sent = wire_server.last_json()["messages"][1]["content"][0]
    assert sent == {"type": "thinking", "thinking": "Let me look.", "signature": "SIG-J"}


def test_chat_a_whole_completion_for_a_streamed_request_becomes_the_same_cards(chat, wire_server):
    wire_server.enqueue(
        chat_reply(
            "Checking.",
            reasoning="Think first.",
            tool_calls=[chat_tool_call("ls", {"path": "."}, id="call_j")],
            usage=chat_usage(30, 9, cached_tokens=10),
            unstreamed=True,
        ),
        chat_reply("All listed.", unstreamed=True),
    )
    chat.send("what is here?")
    kinds = [c.kind for c in chat.cards]
    assert kinds == ["user_input", "thinking", "model_reply", "tool_call", "model_reply"]
    thinking, reply, call = chat.cards[1:4]
    assert thinking.text == "Think first." and reply.text == "Checking." and reply.stop_reason == "tool_use"
    assert (reply.usage.input_tokens, reply.usage.cache_read_tokens, reply.usage.output_tokens) == (20, 10, 9)
    assert (call.call_id, call.name, call.params) == ("call_j", "ls", {"path": "."})
    assert chat.cards[-1].text == "All listed." and chat.cards[-1].stop_reason == "end_turn"
    assert chat.history[-1].response["parts"] == [{"type": "text", "text": "All listed."}]


def test_responses_a_whole_response_for_a_streamed_request_becomes_the_same_cards(responses, wire_server):
    wire_server.enqueue(
        responses_reply(
            responses_message("Checking."),
            responses_function_call("ls", {"path": "."}, call_id="call_r"),
            usage=responses_usage(30, 9),
            unstreamed=True,
        ),
        responses_reply("All listed.", unstreamed=True),
    )
    responses.send("what is here?")
    kinds = [c.kind for c in responses.cards]
    assert kinds == ["user_input", "model_reply", "tool_call", "model_reply"]
    reply, call = responses.cards[1:3]
    assert reply.text == "Checking." and reply.stop_reason == "tool_use" and reply.usage.input_tokens == 30
    assert (call.call_id, call.name, call.params) == ("call_r", "ls", {"path": "."})
    assert responses.cards[-1].text == "All listed." and responses.cards[-1].stop_reason == "end_turn"


# ---- a body that is no message: one sentence naming the server and what came back --------------------


@pytest.mark.parametrize("protocol", ["anthropic-messages", "openai-chat", "openai-responses"])
def test_a_json_body_that_is_no_message_is_an_error_naming_the_server(
    protocol, workspace, wire_server, monkeypatch
):
    s = _session(workspace, wire_server, monkeypatch, protocol)
    seen = _notices(s)
    wire_server.enqueue(json_reply({"detail": "model routing is warming up", "echo": SECRET}))
    with pytest.raises(mw.ProviderError) as raised:
        s.send("hi")
    message = str(raised.value)
    base = wire_server.url if protocol == "anthropic-messages" else wire_server.openai_base_url
    assert base in message and "application/json" in message
    assert "model routing is warming up" in message  # the first bytes of what came back
    assert SECRET not in message and "[redacted]" in message
    assert message.count(". ") <= 1 and "\n" not in message  # one sentence
    assert [c.kind for c in s.cards] == ["user_input"]
    assert s.history[-1].error == message and s.state == "idle"
    assert seen[-1] == message  # shown as the turn's error, like any other


def test_a_page_that_is_not_json_is_an_error_naming_its_content_type(claude, wire_server):
    wire_server.enqueue(json_reply("<html>Sign in to continue</html>", headers={"content-type": "text/html"}))
    with pytest.raises(mw.ProviderError, match=r"text/html.*Sign in to continue"):
        claude.send("hi")
    assert claude.history[-1].error


# ---- a stream that stops before its final event --------------------------------------------------------


def test_anthropic_a_stream_that_stops_before_its_end_keeps_the_partial_reply_and_says_so(
    claude, wire_server
):
    wire_server.enqueue(anthropic_reply("A reply that stops short.", drop_last=2))
    with pytest.raises(mw.ProviderError, match="ended before the reply was complete") as raised:
        claude.send("go")
    assert wire_server.url in str(raised.value) and "text/event-stream" in str(raised.value)
    reply = claude.cards[-1]
    assert reply.kind == "model_reply" and reply.interrupted and reply.text == "A reply that stops short."
    assert claude.history[-1].error == str(raised.value)


def test_anthropic_a_stream_of_events_the_sdk_does_not_know_is_not_silent(claude, wire_server):
    # Chat-style `data:` lines on the Messages path: the SDK reads no event from them.
    dialect = chat_reply("wrong dialect")
    dialect.kind = None  # answer whichever path asks
    wire_server.enqueue(dialect)
    with pytest.raises(mw.ProviderError, match="ended before the reply was complete"):
        claude.send("go")
    assert [c.kind for c in claude.cards] == ["user_input"]


def test_chat_a_stream_that_stops_before_its_finish_reason_is_an_error(chat, wire_server):
    wire_server.enqueue(chat_reply("A reply that stops short.", drop_last=3))
    seen = _notices(chat)
    with pytest.raises(mw.ProviderError, match="ended before the reply was complete") as raised:
        chat.send("go")
    assert wire_server.openai_base_url in str(raised.value)
    assert chat.cards[-1].interrupted and chat.cards[-1].text == "A reply that stops short."
    assert seen[-1] == str(raised.value)


def test_responses_a_stream_that_stops_before_its_end_names_the_server(responses, wire_server):
    wire_server.enqueue(responses_reply("A reply that stops short.", drop_last=1))
    with pytest.raises(mw.ProviderError, match="ended before the reply was complete") as raised:
        responses.send("go")
    assert wire_server.openai_base_url in str(raised.value)
    assert responses.cards[-1].interrupted and responses.cards[-1].text == "A reply that stops short."
