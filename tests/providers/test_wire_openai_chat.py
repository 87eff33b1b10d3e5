"""The scripted Chat Completions server speaks the real format: proven with the real `openai` SDK."""

from __future__ import annotations

import httpx2
import openai
import pytest

from .wire import (
    WireServer,
    chat_reply,
    chat_tool_call,
    chat_usage,
    openai_error,
)
from .wire.clients import MESSAGES, closed_after_test, openai_client


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
    closed_after_test(client)
    completion = client.chat.completions.create(model="my-deployment", messages=MESSAGES)
    assert completion.choices[0].message.content == "from azure"
    request = wire_server.last_request()
    assert request.path == "/openai/deployments/my-deployment/chat/completions"
    assert request.query == {"api-version": ["2024-10-21"]}
    assert request.header("api-key") == "test-key"
