"""The adapters read the SDKs' untyped streams (`Stream[object]`): what a lax compatible server leaves out
is read as the SDK's typed models read it (a missing field is no value), the request authenticates as the
SDK's own create() does, and a compaction reply without usage still compacts."""

from __future__ import annotations

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.compaction.native import native_compaction
from mewrk_jupyter.providers.base import Message, ModelInfo, ModelRequest, TextPart
from mewrk_jupyter.providers.openai_chat import OpenAIChatProvider
from mewrk_jupyter.providers.openai_responses import OpenAIResponsesProvider

from ..native_parts import parts_of
from .vendors import write_vendor
from .wire import anthropic_compaction, anthropic_reply, anthropic_usage, chat_reply, json_reply, sse_reply

ADMIN_KEY = "sk-admin-SECRET-do-not-send"


@pytest.fixture
def vendors(workspace, wire_server, monkeypatch):
    monkeypatch.setenv("TEST_KEY", "sk-test")
    write_vendor(
        workspace,
        "anthropic",
        "anthropic-messages",
        wire_server.url,
        "  claude-test: {context_window: 200000, thinking: signed, native_compaction: true}\n",
        "TEST_KEY",
    )
    write_vendor(
        workspace, "openai", "openai-responses", wire_server.openai_base_url, "  gpt-test: {}\n", "TEST_KEY"
    )
    return wire_server


def test_an_anthropic_stream_missing_optional_fields_still_gives_its_reply(vendors):
    # No usage, a signature delta without its signature, a redacted block without data, a block stop
    # without its index: the typed models read each as no value, and so does the adapter.
    vendors.enqueue(
        sse_reply(
            [
                ("message_start", {"type": "message_start", "message": {"id": "m1", "role": "assistant"}}),
                ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "weigh"}}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta"}}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
                ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Hi"}}),
                ("content_block_stop", {"type": "content_block_stop"}),
                ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}),
                ("message_stop", {"type": "message_stop"}),
            ]
        )
    )  # fmt: skip
    s = mw.Session.new("anthropic/claude-test")
    run = s.send("hello")
    assert run.error is None
    thinking, reply = s.cards[-2], s.cards[-1]
    assert (thinking.kind, thinking.text, thinking.signature) == ("thinking", "weigh", None)
    assert (reply.kind, reply.text, reply.complete) == ("model_reply", "Hi", True)


def test_a_responses_stream_without_output_indexes_still_gives_its_reply(vendors):
    events = [
        {"type": "response.created", "response": {"id": "r1", "status": "in_progress", "output": []}},
        {"type": "response.output_text.delta", "delta": "Hel"},
        {"type": "response.output_text.delta", "delta": "lo"},
        {"type": "response.completed", "response": {"id": "r1", "status": "completed", "output": []}},
    ]
    vendors.enqueue(sse_reply([(e["type"], e) for e in events]))
    s = mw.Session.new("openai/gpt-test")
    run = s.send("hello")
    assert run.error is None and s.cards[-1].text == "Hello"


def test_an_anthropic_compaction_reply_without_usage_still_compacts(vendors):
    s = mw.Session.new("anthropic/claude-test")
    vendors.enqueue(anthropic_reply("Answer.", usage=anthropic_usage(60_000, 20)))
    s.send("Question?")
    block = anthropic_compaction("The person asked a question.", "enc-a", signature="sig-a")
    vendors.enqueue(
        json_reply({"type": "message", "role": "assistant", "content": [block], "stop_reason": "compaction"})
    )
    card = native_compaction(parts_of(s), keep_user_tokens=64_000)
    assert "compacted the conversation natively" in card.text


@pytest.mark.parametrize("make", [OpenAIChatProvider, OpenAIResponsesProvider])
def test_an_openai_request_never_sends_the_organisations_admin_key(make, wire_server, monkeypatch):
    # The SDK reads OPENAI_ADMIN_KEY by itself; its create() authenticates a model request with the API key
    # only, and so do the adapters' post(): given no API key, the SDK refuses to send rather than send the
    # admin key.
    monkeypatch.setenv("OPENAI_ADMIN_KEY", ADMIN_KEY)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    protocol = "openai-chat" if make is OpenAIChatProvider else "openai-responses"
    provider = make(
        {"compat/m": ModelInfo(name="compat/m", protocol=protocol)},
        api_key=lambda: "",
        base_url=wire_server.openai_base_url,
        max_retries=0,
    )
    wire_server.enqueue(chat_reply("Hi"))
    request = ModelRequest(model="compat/m", messages=[Message(role="user", parts=[TextPart(text="hi")])])
    with pytest.raises(TypeError, match="Could not resolve authentication method"):
        list(provider.open(request).events())
    assert wire_server.requests == []
