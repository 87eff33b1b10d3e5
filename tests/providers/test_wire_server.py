"""The scripted server makes scripting mistakes obvious and leaves raw replies as they are."""

from __future__ import annotations

import anthropic
import pytest

from .wire import (
    WireServer,
    anthropic_reply,
    chat_reply,
    sse_reply,
)
from .wire.clients import MESSAGES, anthropic_client, openai_client


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


def test_an_unstreamed_reply_answers_a_streamed_request_with_json_which_the_sdk_reads_as_nothing(
    wire_server: WireServer,
) -> None:
    wire_server.enqueue(anthropic_reply("whole", unstreamed=True), chat_reply("whole", unstreamed=True))
    stream = anthropic_client(wire_server).messages.create(
        model="claude-test", max_tokens=100, messages=MESSAGES, stream=True
    )
    assert stream.response.headers["content-type"] == "application/json"
    assert list(stream) == []  # what made a turn end silently
    chunks = openai_client(wire_server).chat.completions.create(model="m", messages=MESSAGES, stream=True)
    assert list(chunks) == []


def test_drop_last_ends_the_stream_cleanly_before_its_final_events(wire_server: WireServer) -> None:
    wire_server.enqueue(anthropic_reply("short", drop_last=2))
    events = list(
        anthropic_client(wire_server).messages.create(
            model="claude-test", max_tokens=100, messages=MESSAGES, stream=True
        )
    )
    assert events[-1].type == "content_block_stop"  # no message_delta, no message_stop
