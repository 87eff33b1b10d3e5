"""The scripted Anthropic Messages server speaks the real format: proven with the real `anthropic` SDK."""

from __future__ import annotations

import asyncio
import json

import anthropic
import httpx2
import pytest

from .wire import (
    WireServer,
    anthropic_count_tokens_reply,
    anthropic_error,
    anthropic_redacted_thinking,
    anthropic_reply,
    anthropic_text,
    anthropic_thinking,
    anthropic_tool_use,
    anthropic_usage,
    disconnect_reply,
)
from .wire.clients import MESSAGES, anthropic_client


def test_anthropic_stream_thinking_text_tool_use(wire_server: WireServer) -> None:
    wire_server.enqueue(
        anthropic_reply(
            anthropic_thinking("Let me think about it.", "sig-abc"),
            anthropic_text("Checking the weather.", chunks=["Checking ", "the ", "weather."]),
            anthropic_tool_use("get_weather", {"city": "Paris", "unit": "c"}, id="toolu_1", chunks=4),
            usage=anthropic_usage(120, 42, cache_creation_input_tokens=30, cache_read_input_tokens=1000),
        )
    )
    client = anthropic_client(wire_server)
    text, thinking, signatures, raw_types, json_pieces = [], [], [], [], []
    with client.messages.stream(
        model="claude-test",
        max_tokens=2048,
        thinking={"type": "enabled", "budget_tokens": 1024},
        messages=MESSAGES,
    ) as stream:
        for event in stream:
            raw_types.append(event.type)
            if event.type == "text":
                text.append(event.text)
            elif event.type == "thinking":
                thinking.append(event.thinking)
            elif event.type == "signature":
                signatures.append(event.signature)
            elif event.type == "content_block_delta" and event.delta.type == "input_json_delta":
                json_pieces.append(event.delta.partial_json)
        message = stream.get_final_message()

    assert text == ["Checking ", "the ", "weather."]
    assert "".join(thinking) == "Let me think about it."
    assert len(thinking) == 3
    assert signatures == ["sig-abc"]
    assert json_pieces[0] == "" and len(json_pieces) == 5
    assert json.loads("".join(json_pieces)) == {"city": "Paris", "unit": "c"}
    assert raw_types[0] == "message_start" and raw_types[-1] == "message_stop"

    assert [b.type for b in message.content] == ["thinking", "text", "tool_use"]
    assert message.content[0].thinking == "Let me think about it."
    assert message.content[0].signature == "sig-abc"
    assert message.content[1].text == "Checking the weather."
    tool = message.content[2]
    assert (tool.id, tool.name, tool.input) == ("toolu_1", "get_weather", {"city": "Paris", "unit": "c"})
    assert message.stop_reason == "tool_use"
    assert message.usage.input_tokens == 120
    assert message.usage.output_tokens == 42
    assert message.usage.cache_creation_input_tokens == 30
    assert message.usage.cache_read_input_tokens == 1000

    request = wire_server.last_request()
    assert (request.method, request.path, request.route) == ("POST", "/v1/messages", "anthropic.messages")
    # anthropic 2.x sends the API key as a bearer token, not as x-api-key
    assert request.header("authorization") == "Bearer test-key"
    assert request.header("anthropic-version")
    assert request.json["stream"] is True
    assert request.json["messages"] == MESSAGES
    assert request.json["thinking"] == {"type": "enabled", "budget_tokens": 1024}
    assert wire_server.pending == 0 and wire_server.problems == []


def test_anthropic_raw_events_signature_before_stop_and_usage(wire_server: WireServer) -> None:
    reply = anthropic_reply(
        anthropic_thinking("hmm", "sig-1", chunks=1),
        "ok",
        usage=anthropic_usage(50, 9, cache_read_input_tokens=7),
        start_output_tokens=2,
    )
    names = [name for name, _ in reply.events()]
    assert names[:3] == ["message_start", "content_block_start", "ping"]
    wire_server.enqueue(reply)
    client = anthropic_client(wire_server)
    events = list(client.messages.create(model="claude-test", max_tokens=100, messages=MESSAGES, stream=True))

    types = [e.type for e in events]
    assert "ping" not in types  # the SDK drops ping events
    start = events[0]
    assert start.type == "message_start"
    assert start.message.usage.input_tokens == 50
    assert start.message.usage.cache_read_input_tokens == 7
    assert start.message.usage.output_tokens == 2
    assert start.message.stop_reason is None
    thinking_events = [e for e in events if getattr(e, "index", None) == 0]
    assert thinking_events[0].type == "content_block_start"
    assert thinking_events[-2].type == "content_block_delta"
    assert thinking_events[-2].delta.type == "signature_delta"
    assert thinking_events[-1].type == "content_block_stop"
    delta = next(e for e in events if e.type == "message_delta")
    assert delta.delta.stop_reason == "end_turn"
    assert (delta.usage.input_tokens, delta.usage.output_tokens, delta.usage.cache_read_input_tokens) == (
        50,
        9,
        7,
    )
    assert types[-1] == "message_stop"


def test_anthropic_create_non_stream(wire_server: WireServer) -> None:
    wire_server.enqueue(
        anthropic_reply(
            anthropic_thinking("t", "s"),
            "Hello",
            stop_reason="max_tokens",
            usage=anthropic_usage(11, 3, cache_creation_input_tokens=5),
        )
    )
    message = anthropic_client(wire_server).messages.create(
        model="claude-test", max_tokens=3, messages=MESSAGES
    )
    assert [b.type for b in message.content] == ["thinking", "text"]
    assert message.content[0].signature == "s"
    assert message.content[1].text == "Hello"
    assert message.stop_reason == "max_tokens"
    assert (message.usage.input_tokens, message.usage.output_tokens) == (11, 3)
    assert message.usage.cache_creation_input_tokens == 5
    assert wire_server.last_json().get("stream") in (None, False)


def test_anthropic_redacted_thinking_arrives_whole(wire_server: WireServer) -> None:
    wire_server.enqueue(anthropic_reply(anthropic_redacted_thinking("opaque-blob"), "Answer"))
    client = anthropic_client(wire_server)
    events = list(client.messages.create(model="claude-test", max_tokens=100, messages=MESSAGES, stream=True))
    first_block = [e for e in events if getattr(e, "index", None) == 0]
    assert [e.type for e in first_block] == ["content_block_start", "content_block_stop"]
    assert first_block[0].content_block.type == "redacted_thinking"
    assert first_block[0].content_block.data == "opaque-blob"

    wire_server.enqueue(anthropic_reply(anthropic_redacted_thinking("opaque-blob"), "Answer"))
    with client.messages.stream(model="claude-test", max_tokens=100, messages=MESSAGES) as stream:
        message = stream.get_final_message()
    assert message.content[0].type == "redacted_thinking"
    assert message.content[0].data == "opaque-blob"
    assert message.content[1].text == "Answer"


@pytest.mark.parametrize("stop_reason", ["end_turn", "max_tokens", "pause_turn", "refusal", "stop_sequence"])
def test_anthropic_stop_reasons(wire_server: WireServer, stop_reason: str) -> None:
    stop_sequence = "END" if stop_reason == "stop_sequence" else None
    wire_server.enqueue(anthropic_reply("partial", stop_reason=stop_reason, stop_sequence=stop_sequence))
    with anthropic_client(wire_server).messages.stream(
        model="claude-test", max_tokens=100, messages=MESSAGES
    ) as stream:
        message = stream.get_final_message()
    assert message.stop_reason == stop_reason
    assert message.stop_sequence == stop_sequence


def test_anthropic_mid_stream_error_event(wire_server: WireServer) -> None:
    # message_start, content_block_start, ping, two text deltas, then the error event
    wire_server.enqueue(
        anthropic_reply(anthropic_text("Hello there", chunks=["Hello", " the", "re"]), error_after=5)
    )
    seen = []
    with pytest.raises(anthropic.APIStatusError) as info:
        with anthropic_client(wire_server).messages.stream(
            model="claude-test", max_tokens=100, messages=MESSAGES
        ) as stream:
            for event in stream:
                if event.type == "text":
                    seen.append(event.text)
    err = info.value
    # The error arrives on a 200 response: not OverloadedError, but the bare APIStatusError.
    assert type(err) is anthropic.APIStatusError
    assert err.status_code == 200
    assert err.type == "overloaded_error"
    assert err.body == {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    assert "".join(seen) == "Hello the"


def test_anthropic_429_is_retried_with_retry_after(wire_server: WireServer) -> None:
    wire_server.enqueue(
        anthropic_error(429, "Slow down", retry_after_ms=10),
        anthropic_reply("after retry"),
    )
    message = anthropic_client(wire_server, max_retries=2).messages.create(
        model="claude-test", max_tokens=100, messages=MESSAGES
    )
    assert message.content[0].text == "after retry"
    requests = wire_server.requests
    assert len(requests) == 2
    assert requests[0].json == requests[1].json
    assert requests[1].header("x-stainless-retry-count") == "1"


def test_anthropic_retry_after_seconds_header(wire_server: WireServer) -> None:
    wire_server.enqueue(anthropic_error(529, retry_after="0.01"), anthropic_reply("ok"))
    with anthropic_client(wire_server, max_retries=1).messages.stream(
        model="claude-test", max_tokens=100, messages=MESSAGES
    ) as stream:
        assert stream.get_final_text() == "ok"
    assert len(wire_server.requests) == 2


@pytest.mark.parametrize(
    ("status", "error_class", "error_type"),
    [
        (429, anthropic.RateLimitError, "rate_limit_error"),
        (500, anthropic.InternalServerError, "api_error"),
        (529, anthropic.OverloadedError, "overloaded_error"),
        (400, anthropic.BadRequestError, "invalid_request_error"),
    ],
)
def test_anthropic_http_errors(
    wire_server: WireServer, status: int, error_class: type, error_type: str
) -> None:
    wire_server.enqueue(anthropic_error(status, "boom", retry_after=1))
    with pytest.raises(error_class) as info:
        anthropic_client(wire_server).messages.create(model="claude-test", max_tokens=100, messages=MESSAGES)
    err = info.value
    assert err.status_code == status
    assert err.type == error_type
    assert err.api_message == "boom"
    assert err.request_id and err.request_id.startswith("req_")
    assert err.response.headers["retry-after"] == "1"


def test_anthropic_count_tokens(wire_server: WireServer) -> None:
    wire_server.enqueue(anthropic_count_tokens_reply(1234))
    result = anthropic_client(wire_server).messages.count_tokens(model="claude-test", messages=MESSAGES)
    assert result.input_tokens == 1234
    request = wire_server.last_request()
    assert request.path == "/v1/messages/count_tokens"
    assert request.json == {"model": "claude-test", "messages": MESSAGES}


def test_anthropic_hard_cut_is_a_connection_error_caused_by_the_transport(wire_server: WireServer) -> None:
    # anthropic 2.x wraps a body cut mid-stream as APIConnectionError (as openai does); before, the raw
    # transport error escaped. providers.faults reads both forms.
    wire_server.enqueue(anthropic_reply("Hello world", cut_after=4))
    with pytest.raises(anthropic.APIConnectionError, match="incomplete chunked read") as info:
        with anthropic_client(wire_server).messages.stream(
            model="claude-test", max_tokens=100, messages=MESSAGES
        ) as stream:
            stream.get_final_message()
    assert isinstance(info.value.__cause__, httpx2.RemoteProtocolError)


def test_anthropic_clean_cut_gives_incomplete_message(wire_server: WireServer) -> None:
    # message_start, content_block_start, ping, one delta; then the body ends properly
    wire_server.enqueue(
        anthropic_reply(
            anthropic_text("Hello world", chunks=["Hello", " world"]), cut_after=4, cut_cleanly=True
        )
    )
    with anthropic_client(wire_server).messages.stream(
        model="claude-test", max_tokens=100, messages=MESSAGES
    ) as stream:
        message = stream.get_final_message()
    assert message.content[0].text == "Hello"
    assert message.stop_reason is None  # no message_delta arrived: the only sign of a cut


def test_anthropic_disconnect_is_connection_error(wire_server: WireServer) -> None:
    wire_server.enqueue(disconnect_reply())
    with pytest.raises(anthropic.APIConnectionError):
        anthropic_client(wire_server).messages.create(model="claude-test", max_tokens=100, messages=MESSAGES)


def test_anthropic_async_stream_and_delays(wire_server: WireServer) -> None:
    wire_server.enqueue(anthropic_reply("slow text", first_byte_delay=0.05, event_delay=0.005))

    async def run() -> str:
        async with anthropic.AsyncAnthropic(
            base_url=wire_server.url, api_key="test-key", max_retries=0
        ) as client:
            async with client.messages.stream(
                model="claude-test", max_tokens=100, messages=MESSAGES
            ) as stream:
                return await stream.get_final_text()

    assert asyncio.run(run()) == "slow text"
