"""The wire server speaks the real formats: proven with the real SDKs pointed at it."""

from __future__ import annotations

import asyncio
import json

import anthropic
import httpx2
import openai
import pytest

from .wire_server import (
    WireServer,
    anthropic_count_tokens_reply,
    anthropic_error,
    anthropic_redacted_thinking,
    anthropic_reply,
    anthropic_text,
    anthropic_thinking,
    anthropic_tool_use,
    anthropic_usage,
    chat_reply,
    chat_tool_call,
    chat_usage,
    compact_reply,
    disconnect_reply,
    openai_error,
    responses_function_call,
    responses_message,
    responses_reasoning,
    responses_reply,
    responses_usage,
    sse_reply,
)

MESSAGES = [{"role": "user", "content": "hi"}]


_clients: list = []


@pytest.fixture(autouse=True)
def _close_clients():
    yield
    while _clients:
        _clients.pop().close()


def anthropic_client(server: WireServer, max_retries: int = 0) -> anthropic.Anthropic:
    client = anthropic.Anthropic(base_url=server.url, api_key="test-key", max_retries=max_retries)
    _clients.append(client)
    return client


def openai_client(server: WireServer, max_retries: int = 0) -> openai.OpenAI:
    client = openai.OpenAI(base_url=server.openai_base_url, api_key="test-key", max_retries=max_retries)
    _clients.append(client)
    return client


# --------------------------------------------------------------------------------------------------
# Anthropic
# --------------------------------------------------------------------------------------------------


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


def test_anthropic_hard_cut_raises_raw_httpx_error(wire_server: WireServer) -> None:
    wire_server.enqueue(anthropic_reply("Hello world", cut_after=4))
    with pytest.raises(httpx2.RemoteProtocolError, match="incomplete chunked read"):
        with anthropic_client(wire_server).messages.stream(
            model="claude-test", max_tokens=100, messages=MESSAGES
        ) as stream:
            stream.get_final_message()


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


# --------------------------------------------------------------------------------------------------
# Scripting errors are obvious
# --------------------------------------------------------------------------------------------------


def test_empty_queue_answers_500_without_retry(wire_server: WireServer) -> None:
    with pytest.raises(anthropic.InternalServerError, match="no scripted response was queued"):
        anthropic_client(wire_server, max_retries=2).messages.create(
            model="claude-test", max_tokens=100, messages=MESSAGES
        )
    assert len(wire_server.requests) == 1  # x-should-retry: false
    assert wire_server.problems and "no scripted response" in wire_server.problems[0]


def test_reply_for_another_endpoint_stays_queued(wire_server: WireServer) -> None:
    wire_server.enqueue(chat_reply("for chat"))
    with pytest.raises(anthropic.InternalServerError, match="next scripted reply is for openai.chat"):
        anthropic_client(wire_server).messages.create(model="claude-test", max_tokens=100, messages=MESSAGES)
    assert wire_server.pending == 1
    completion = openai_client(wire_server).chat.completions.create(model="gpt-test", messages=MESSAGES)
    assert completion.choices[0].message.content == "for chat"


def test_raw_sse_reply(wire_server: WireServer) -> None:
    wire_server.enqueue(
        sse_reply(
            [
                (None, {"id": "c1", "object": "chat.completion.chunk", "created": 1, "model": "m",
                        "choices": [{"index": 0, "delta": {"content": "raw"}, "finish_reason": "stop"}]}),
                (None, "[DONE]"),
            ]
        )
    )  # fmt: skip
    chunks = list(
        openai_client(wire_server).chat.completions.create(model="m", messages=MESSAGES, stream=True)
    )
    assert [c.choices[0].delta.content for c in chunks] == ["raw"]


# --------------------------------------------------------------------------------------------------
# OpenAI Chat Completions
# --------------------------------------------------------------------------------------------------


def test_chat_stream_tool_calls_reasoning_and_usage(wire_server: WireServer) -> None:
    wire_server.enqueue(
        chat_reply(
            "Calling tools.",
            reasoning="The user wants two things.",
            tool_calls=[
                chat_tool_call("get_weather", {"city": "Paris"}, id="call_a", chunks=3),
                chat_tool_call("get_time", '{"tz":"CET"}', id="call_b", chunks=2),
            ],
            usage=chat_usage(100, 20, cached_tokens=64, reasoning_tokens=8),
        )
    )
    stream = openai_client(wire_server).chat.completions.create(
        model="gpt-test",
        messages=MESSAGES,
        tools=[{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}],
        stream=True,
        stream_options={"include_usage": True},
    )
    content, reasoning, calls, finish, usage = [], [], {}, None, None
    for chunk in stream:
        if chunk.usage is not None:
            assert chunk.choices == []
            usage = chunk.usage
            continue
        choice = chunk.choices[0]
        delta = choice.delta
        extra = delta.model_extra or {}
        if extra.get("reasoning_content"):
            reasoning.append(extra["reasoning_content"])
            assert delta.reasoning_content == extra["reasoning_content"]  # also an attribute
        if delta.content:
            content.append(delta.content)
        for tc in delta.tool_calls or []:
            slot = calls.setdefault(tc.index, {"id": None, "name": None, "arguments": ""})
            if tc.id:
                assert slot["id"] is None  # only the first delta carries the id
                slot["id"] = tc.id
            if tc.function and tc.function.name:
                slot["name"] = tc.function.name
            if tc.function and tc.function.arguments:
                slot["arguments"] += tc.function.arguments
        if choice.finish_reason:
            finish = choice.finish_reason

    assert "".join(reasoning) == "The user wants two things."
    assert "".join(content) == "Calling tools."
    assert calls == {
        0: {"id": "call_a", "name": "get_weather", "arguments": '{"city":"Paris"}'},
        1: {"id": "call_b", "name": "get_time", "arguments": '{"tz":"CET"}'},
    }
    assert finish == "tool_calls"
    assert usage is not None
    assert (usage.prompt_tokens, usage.completion_tokens, usage.total_tokens) == (100, 20, 120)
    assert usage.prompt_tokens_details.cached_tokens == 64
    assert usage.completion_tokens_details.reasoning_tokens == 8

    body = wire_server.last_json()
    assert wire_server.last_request().path == "/v1/chat/completions"
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert body["tools"][0]["function"]["name"] == "get_weather"
    assert wire_server.last_request().header("authorization") == "Bearer test-key"


def test_chat_stream_without_include_usage_has_no_usage_chunk(wire_server: WireServer) -> None:
    wire_server.enqueue(chat_reply("Hi there"))
    chunks = list(
        openai_client(wire_server).chat.completions.create(model="gpt-test", messages=MESSAGES, stream=True)
    )
    assert all(c.usage is None and len(c.choices) == 1 for c in chunks)
    assert chunks[0].choices[0].delta.role == "assistant"
    assert chunks[-1].choices[0].finish_reason == "stop"
    assert "".join(c.choices[0].delta.content or "" for c in chunks) == "Hi there"


def test_chat_stream_helper_and_vllm_reasoning_field(wire_server: WireServer) -> None:
    wire_server.enqueue(chat_reply("Answer", reasoning="thinking...", reasoning_field="reasoning"))
    with openai_client(wire_server).chat.completions.stream(model="gpt-test", messages=MESSAGES) as stream:
        for _ in stream:
            pass
        completion = stream.get_final_completion()
    message = completion.choices[0].message
    assert message.content == "Answer"
    assert message.model_extra == {"reasoning": "thinking..."}


def test_chat_non_stream(wire_server: WireServer) -> None:
    wire_server.enqueue(
        chat_reply(
            reasoning="r", tool_calls=[chat_tool_call("f", {"x": 1}, id="call_1")], usage=chat_usage(7, 2)
        )
    )
    completion = openai_client(wire_server).chat.completions.create(model="gpt-test", messages=MESSAGES)
    choice = completion.choices[0]
    assert choice.finish_reason == "tool_calls"
    assert choice.message.content is None
    assert choice.message.tool_calls[0].id == "call_1"
    assert choice.message.tool_calls[0].function.arguments == '{"x":1}'
    assert choice.message.model_extra["reasoning_content"] == "r"
    assert completion.usage.total_tokens == 9


def test_chat_429_retried_then_hard_cut(wire_server: WireServer) -> None:
    wire_server.enqueue(
        openai_error(429, "Rate limit reached", retry_after_ms=10),
        chat_reply("Hello world", cut_after=3),
    )
    stream = openai_client(wire_server, max_retries=1).chat.completions.create(
        model="gpt-test", messages=MESSAGES, stream=True
    )
    with pytest.raises(openai.APIConnectionError) as info:
        list(stream)
    assert isinstance(info.value.__cause__, httpx2.RemoteProtocolError)
    assert len(wire_server.requests) == 2


def test_chat_clean_cut_just_ends(wire_server: WireServer) -> None:
    wire_server.enqueue(chat_reply("Hello world", cut_after=2, cut_cleanly=True))
    chunks = list(
        openai_client(wire_server).chat.completions.create(model="gpt-test", messages=MESSAGES, stream=True)
    )
    assert len(chunks) == 2
    assert all(c.choices[0].finish_reason is None for c in chunks)  # the only sign of a cut


@pytest.mark.parametrize(
    ("status", "error_class"),
    [(429, openai.RateLimitError), (500, openai.InternalServerError), (401, openai.AuthenticationError)],
)
def test_openai_http_errors(wire_server: WireServer, status: int, error_class: type) -> None:
    wire_server.enqueue(openai_error(status, "nope", retry_after=1))
    with pytest.raises(error_class) as info:
        openai_client(wire_server).chat.completions.create(model="gpt-test", messages=MESSAGES)
    err = info.value
    assert err.status_code == status
    assert err.message.startswith(f"Error code: {status}")
    assert err.body["message"] == "nope"  # the SDK unwraps {"error": {...}}
    assert err.request_id and err.request_id.startswith("req_")


def test_azure_chat_path(wire_server: WireServer) -> None:
    wire_server.enqueue(chat_reply("from azure"))
    client = openai.AzureOpenAI(
        azure_endpoint=wire_server.url, api_key="test-key", api_version="2024-10-21", max_retries=0
    )
    _clients.append(client)
    completion = client.chat.completions.create(model="my-deployment", messages=MESSAGES)
    assert completion.choices[0].message.content == "from azure"
    request = wire_server.last_request()
    assert request.path == "/openai/deployments/my-deployment/chat/completions"
    assert request.query == {"api-version": ["2024-10-21"]}
    assert request.header("api-key") == "test-key"


# --------------------------------------------------------------------------------------------------
# OpenAI Responses
# --------------------------------------------------------------------------------------------------


def _responses_items() -> list:
    return [
        responses_reasoning(["First I look.", "Then I act."], encrypted_content="ENC-1", id="rs_1"),
        responses_message("Let me call it.", id="msg_1"),
        responses_function_call("get_weather", {"city": "Oslo"}, call_id="call_1", id="fc_1", chunks=3),
    ]


def test_responses_stream_reasoning_message_function_call(wire_server: WireServer) -> None:
    wire_server.enqueue(
        responses_reply(
            *_responses_items(), usage=responses_usage(200, 50, cached_tokens=128, reasoning_tokens=30)
        )
    )
    client = openai_client(wire_server)
    summary, text, args, done_items, types = [], [], [], [], []
    with client.responses.stream(
        model="gpt-test",
        input=[{"role": "user", "content": "weather?"}],
        include=["reasoning.encrypted_content"],
        store=False,
        reasoning={"effort": "medium", "summary": "auto"},
    ) as stream:
        for event in stream:
            types.append(event.type)
            if event.type == "response.reasoning_summary_text.delta":
                summary.append((event.summary_index, event.delta))
            elif event.type == "response.output_text.delta":
                text.append(event.delta)
                assert event.snapshot == "".join(text)
            elif event.type == "response.function_call_arguments.delta":
                args.append(event.delta)
            elif event.type == "response.output_item.done":
                done_items.append(event.item)
        final = stream.get_final_response()

    assert types[0] == "response.created"
    assert types[-1] == "response.completed"
    for name in (
        "response.output_item.added",
        "response.content_part.added",
        "response.content_part.done",
        "response.output_text.done",
        "response.function_call_arguments.done",
        "response.reasoning_summary_part.added",
        "response.reasoning_summary_text.done",
    ):
        assert name in types
    assert "".join(d for i, d in summary if i == 0) == "First I look."
    assert "".join(d for i, d in summary if i == 1) == "Then I act."
    assert "".join(text) == "Let me call it."
    assert len(args) == 3 and json.loads("".join(args)) == {"city": "Oslo"}

    reasoning_item = done_items[0]
    assert reasoning_item.type == "reasoning"
    assert reasoning_item.encrypted_content == "ENC-1"
    assert [s.text for s in reasoning_item.summary] == ["First I look.", "Then I act."]
    call = done_items[2]
    assert (call.type, call.call_id, call.name, call.arguments) == (
        "function_call",
        "call_1",
        "get_weather",
        '{"city":"Oslo"}',
    )

    assert final.status == "completed"
    assert [o.type for o in final.output] == ["reasoning", "message", "function_call"]
    assert final.output_text == "Let me call it."
    assert final.usage.input_tokens == 200
    assert final.usage.input_tokens_details.cached_tokens == 128
    assert final.usage.output_tokens_details.reasoning_tokens == 30
    assert final.usage.total_tokens == 250

    body = wire_server.last_json()
    assert wire_server.last_request().path == "/v1/responses"
    assert body["include"] == ["reasoning.encrypted_content"]
    assert body["store"] is False and body["stream"] is True


def test_responses_create_stream_raw_events(wire_server: WireServer) -> None:
    wire_server.enqueue(responses_reply(*_responses_items()))
    events = list(openai_client(wire_server).responses.create(model="gpt-test", input="hi", stream=True))
    assert [e.sequence_number for e in events] == list(range(len(events)))
    created = events[0]
    assert created.type == "response.created" and created.response.status == "in_progress"
    assert created.response.output == []
    added = [e for e in events if e.type == "response.output_item.added"]
    assert [(e.output_index, e.item.type) for e in added] == [
        (0, "reasoning"),
        (1, "message"),
        (2, "function_call"),
    ]
    assert added[2].item.arguments == "" and added[2].item.call_id == "call_1"
    arg_done = next(e for e in events if e.type == "response.function_call_arguments.done")
    assert arg_done.arguments == '{"city":"Oslo"}' and arg_done.item_id == "fc_1"
    completed = events[-1]
    assert completed.type == "response.completed"
    assert completed.response.output[0].encrypted_content == "ENC-1"


def test_responses_non_stream(wire_server: WireServer) -> None:
    wire_server.enqueue(responses_reply(*_responses_items()))
    response = openai_client(wire_server).responses.create(
        model="gpt-test", input="hi", instructions="Be brief"
    )
    assert response.status == "completed"
    assert response.instructions == "Be brief"  # echoed from the request
    assert [o.type for o in response.output] == ["reasoning", "message", "function_call"]
    assert response.output[2].call_id == "call_1"
    assert wire_server.last_json().get("stream") is None


@pytest.mark.parametrize("status", ["incomplete", "failed"])
def test_responses_incomplete_and_failed(wire_server: WireServer, status: str) -> None:
    wire_server.enqueue(responses_reply(responses_reasoning("s"), "partial", status=status))
    with openai_client(wire_server).responses.stream(model="gpt-test", input="hi") as stream:
        events = list(stream)
        last = events[-1]
        assert last.type == f"response.{status}"
        assert last.response.status == status
        assert [o.type for o in last.response.output] == ["reasoning", "message"]
        if status == "incomplete":
            assert last.response.incomplete_details.reason == "max_output_tokens"
        else:
            assert last.response.error.code == "server_error"
        # Surprise: the helper only accepts response.completed.
        with pytest.raises(RuntimeError, match="response.completed"):
            stream.get_final_response()


def test_responses_mid_stream_error_event_is_an_event(wire_server: WireServer) -> None:
    wire_server.enqueue(responses_reply("Hello world", error_after=4, error_code="server_error"))
    events = list(openai_client(wire_server).responses.create(model="gpt-test", input="hi", stream=True))
    assert [e.type for e in events][-1] == "error"  # no exception is raised
    assert events[-1].code == "server_error"
    assert events[-1].sequence_number == 4


def test_responses_hard_and_clean_cut(wire_server: WireServer) -> None:
    client = openai_client(wire_server)
    wire_server.enqueue(responses_reply("Hello world", cut_after=5))
    with pytest.raises(openai.APIConnectionError):
        with client.responses.stream(model="gpt-test", input="hi") as stream:
            for _ in stream:
                pass

    wire_server.enqueue(responses_reply("Hello world", cut_after=5, cut_cleanly=True))
    with client.responses.stream(model="gpt-test", input="hi") as stream:
        events = list(stream)
        assert len(events) == 5
        with pytest.raises(RuntimeError, match="response.completed"):
            stream.get_final_response()


def test_responses_compact(wire_server: WireServer) -> None:
    wire_server.enqueue(compact_reply(encrypted_content="CMP-1", usage=responses_usage(900, 40)))
    history = [
        {"role": "user", "content": "first question"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "answer"}]},
        {"type": "message", "role": "user", "content": [{"type": "input_text", "text": "second"}]},
    ]
    compacted = openai_client(wire_server).responses.compact(
        model="gpt-test", input=history, instructions="You are helpful."
    )
    assert compacted.object == "response.compaction"
    types = [(o.type, getattr(o, "role", None)) for o in compacted.output]
    assert types == [("message", "user"), ("message", "user"), ("compaction", None)]
    assert compacted.output[0].content[0].text == "first question"
    assert compacted.output[1].content[0].text == "second"
    assert compacted.output[2].encrypted_content == "CMP-1"
    assert compacted.usage.input_tokens == 900
    request = wire_server.last_request()
    assert request.path == "/v1/responses/compact"
    assert request.json["input"] == history
    assert request.json["instructions"] == "You are helpful."


def test_responses_async_stream(wire_server: WireServer) -> None:
    wire_server.enqueue(responses_reply(responses_message("async hi"), event_delay=0.002))

    async def run() -> str:
        async with openai.AsyncOpenAI(
            base_url=wire_server.openai_base_url, api_key="test-key", max_retries=0
        ) as client:
            async with client.responses.stream(model="gpt-test", input="hi") as stream:
                final = await stream.get_final_response()
        return final.output_text

    assert asyncio.run(run()) == "async hi"
