"""Native compaction (C4) over the real SDKs and the local wire servers: the exact compaction request of
OpenAI Responses (`POST /responses/compact`) and of Anthropic's server-side compaction, and the exact
request of a session that begins with the native-compaction card — on the same provider (kept messages,
the item verbatim, what follows), and after a switch to another protocol or to a model without native
compaction (the kept messages alone; the card's line never).

The handover that opens `<title>-handover-<n>` belongs to another part; here the card is placed in a
new session through its stored timeline, as the handover places its seeds."""

from __future__ import annotations

from typing import Any

import anthropic
import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.compaction.native import native_compaction
from mewrk_jupyter.providers.anthropic import CONTINUE_TEXT

from ..native_parts import parts_of
from .vendors import write_vendor
from .wire import (
    anthropic_compaction,
    anthropic_compaction_reply,
    anthropic_reply,
    anthropic_usage,
    chat_reply,
    chat_usage,
    compact_reply,
    responses_reply,
    responses_usage,
)
from .wire.clients import anthropic_client


@pytest.fixture
def vendors(workspace, wire_server, monkeypatch):
    """Models with a native compaction on Responses and Anthropic, and models without one."""
    monkeypatch.setenv("TEST_KEY", "sk-test")
    write_vendor(
        workspace,
        "openai",
        "openai-responses",
        wire_server.openai_base_url,
        "  gpt-test: {context_window: 100000, native_compaction: true}\n"
        "  gpt-plain: {context_window: 100000}\n",
        "TEST_KEY",
    )
    write_vendor(
        workspace,
        "anthropic",
        "anthropic-messages",
        wire_server.url,
        "  claude-test: {context_window: 200000, native_compaction: true}\n",
        "TEST_KEY",
    )
    write_vendor(
        workspace,
        "deepseek",
        "openai-chat",
        wire_server.openai_base_url,
        "  deepseek-chat: {context_window: 100000}\n",
        "TEST_KEY",
    )
    return wire_server


def texts(content: str | list[dict[str, Any]]) -> list[str]:
    """The text blocks of a message's content, as any protocol sends it."""
    if isinstance(content, str):
        return [content]
    return [block["text"] for block in content if block.get("type") in ("text", "input_text", "output_text")]


def plain(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Anthropic messages without their cache breakpoints (placed afresh on each request)."""
    return [
        {**m, "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]]}
        for m in messages
    ]


def handover(card: mw.NativeCompaction, model: str, *seeds: mw.Card) -> mw.Session:
    """A new session whose timeline begins with the seeds and the card, placed as the handover does."""
    new = mw.Session.new(model)
    for seed in (*seeds, card):
        new.stored_timeline.append(seed)
    return new


def two_questions(vendors, s: mw.Session) -> dict[str, Any]:
    """A system prompt and two exchanges over Responses (3k and 6k tokens); the last request's body."""
    s.insert(mw.SystemPrompt(text="Answer briefly."))
    for i in range(2):
        vendors.enqueue(responses_reply(f"Answer {i}.", usage=responses_usage(3000 * (i + 1), 20)))
        s.send(f"Question {i}?")
    return vendors.json_bodies()[-1]


def test_responses_compact_request_then_the_next_session_sends_kept_messages_item_and_what_follows(vendors):
    s = mw.Session.new("openai/gpt-test")
    before = two_questions(vendors, s)
    vendors.enqueue(compact_reply(encrypted_content="enc-1", usage=responses_usage(6100, 300)))
    card = native_compaction(parts_of(s), keep_user_tokens=64_000)

    call = vendors.requests[-1]
    assert call.path == "/v1/responses/compact"
    assistant = {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Answer 1."}],
    }
    # The request the next turn would send: its instructions and the whole history (the endpoint takes no
    # tools: the item covers the conversation, and the tools go with every later request).
    assert call.json == {
        "model": "gpt-test",
        "input": before["input"] + [assistant],
        "instructions": before["instructions"],
    }
    assert card.kept == ["Question 0?", "Question 1?"]
    assert card.text.startswith("`openai/gpt-test` compacted the conversation natively: ≈6.1k → ≈")
    assert s.history[-1].response["compaction"] == "native"
    assert s.context.last_request == 6000  # the compaction call says nothing of the context's size

    new = handover(card, "openai/gpt-test", mw.SystemPrompt(text="Answer briefly."))
    vendors.enqueue(responses_reply("Going on.", usage=responses_usage(500, 10)))
    new.send("Next?")
    sent = vendors.json_bodies()[-1]
    assert sent["instructions"] == before["instructions"] and sent["tools"] == before["tools"]
    assert sent["input"] == [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Question 0?"},
                {"type": "input_text", "text": "Question 1?"},
            ],
        },
        {"type": "compaction", "encrypted_content": "enc-1"},
        {"role": "user", "content": [{"type": "input_text", "text": "Next?"}]},
    ]
    assert "compacted the conversation" not in str(sent)  # the card's line is never sent

    # Another protocol: the kept messages alone.
    new.configure(model="deepseek/deepseek-chat")
    vendors.enqueue(chat_reply("Fine.", usage=chat_usage(400, 5)))
    new.send("And now?")
    chat = vendors.json_bodies()[-1]
    assert [(m["role"], texts(m["content"])) for m in chat["messages"] if m["role"] != "system"] == [
        ("user", ["Question 0?\n\nQuestion 1?\n\nNext?"]),  # Chat Completions joins a message's texts
        ("assistant", ["Going on."]),
        ("user", ["And now?"]),
    ]
    assert "enc-1" not in str(chat) and "compacted the conversation" not in str(chat)


def test_responses_a_model_without_native_compaction_gets_only_the_kept_messages(vendors):
    s = mw.Session.new("openai/gpt-test")
    vendors.enqueue(responses_reply("Answer.", usage=responses_usage(3000, 20)))
    s.send("Question?")
    vendors.enqueue(compact_reply(encrypted_content="enc-2"))
    card = native_compaction(parts_of(s), keep_user_tokens=1000)

    new = handover(card, "openai/gpt-plain")  # same protocol, no native compaction declared
    vendors.enqueue(responses_reply("Ok.", usage=responses_usage(200, 5)))
    new.send("Next?")
    assert vendors.json_bodies()[-1]["input"] == [
        {
            "role": "user",
            "content": [{"type": "input_text", "text": "Question?"}, {"type": "input_text", "text": "Next?"}],
        }
    ]


def test_anthropic_server_side_compaction_request_and_the_block_sent_back_verbatim(vendors):
    s = mw.Session.new("anthropic/claude-test")
    s.insert(mw.SystemPrompt(text="Answer briefly."))
    for i in range(2):
        vendors.enqueue(anthropic_reply(f"Answer {i}.", usage=anthropic_usage(30_000 * (i + 1), 20)))
        s.send(f"Question {i}?")
    before = vendors.json_bodies()[-1]
    block = anthropic_compaction("The person asked two questions.", "enc-a", signature="sig-a")
    vendors.enqueue(anthropic_compaction_reply(60_100, block=block, compaction_output_tokens=35))
    card = native_compaction(parts_of(s), keep_user_tokens=64_000)

    call = vendors.requests[-1]
    assert call.path == "/v1/messages" and "compact-2026-01-12" in call.header("anthropic-beta")
    body = call.json
    # The very request the next turn would send (same system, tools, whole history), with the trigger.
    assert body["system"] == before["system"] and body["tools"] == before["tools"]
    # It ends as the engine's requests end after the model's turn on a model without prefill (the models
    # with server-side compaction refuse a request that ends with their own message).
    assert plain(body["messages"]) == plain(before["messages"]) + [
        {"role": "assistant", "content": [{"type": "text", "text": "Answer 1."}]},
        {"role": "user", "content": [{"type": "text", "text": CONTINUE_TEXT}]},
    ]
    assert body["context_management"] == {
        "edits": [
            {
                "type": "compact_20260112",
                "trigger": {"type": "input_tokens", "value": 50_000},
                "pause_after_compaction": True,
            }
        ]
    }
    assert "stream" not in body
    assert card.text == (
        "`anthropic/claude-test` compacted the conversation natively: ≈60k → ≈" + card.text.rsplit("≈", 1)[1]
    )

    new = handover(card, "anthropic/claude-test", mw.SystemPrompt(text="Answer briefly."))
    vendors.enqueue(anthropic_reply("Going on.", usage=anthropic_usage(900, 10)))
    new.send("Next?")
    sent = vendors.requests[-1]
    assert "compact-2026-01-12" in sent.header("anthropic-beta")  # the block is read under the beta
    assert plain(sent.json["messages"]) == [
        {
            "role": "user",
            "content": [{"type": "text", "text": "Question 0?"}, {"type": "text", "text": "Question 1?"}],
        },
        {
            "role": "assistant",
            "content": [
                {
                    "type": "compaction",
                    "content": "The person asked two questions.",
                    "encrypted_content": "enc-a",
                    "signature": "sig-a",
                }
            ],
        },
        {"role": "user", "content": [{"type": "text", "text": "Next?"}]},
    ]
    assert "context_management" not in sent.json

    # Another protocol: only the kept messages, and no beta.
    new.configure(model="openai/gpt-test")
    vendors.enqueue(responses_reply("Fine.", usage=responses_usage(300, 5)))
    new.send("And now?")
    moved = vendors.json_bodies()[-1]
    assert moved["input"][0] == {
        "role": "user",
        "content": [
            {"type": "input_text", "text": "Question 0?"},
            {"type": "input_text", "text": "Question 1?"},
            {"type": "input_text", "text": "Next?"},
        ],
    }
    assert "enc-a" not in str(moved) and "compaction" not in str(moved["input"])


def test_anthropic_below_the_trigger_nothing_is_compacted_and_the_history_says_why(vendors):
    s = mw.Session.new("anthropic/claude-test")
    vendors.enqueue(anthropic_reply("Answer.", usage=anthropic_usage(3000, 20)))
    s.send("Question?")
    vendors.enqueue(anthropic_compaction_reply(3_020))
    with pytest.raises(mw.ProviderError, match="did not compact the conversation"):
        native_compaction(parts_of(s))
    assert s.history[-1].error and s.history[-1].response["compaction"] == "native"
    assert [c.kind for c in s.cards] == ["user_input", "model_reply"]


def test_the_wire_server_streams_a_compaction_block_as_the_sdk_reads_it(wire_server):
    block = anthropic_compaction("Summary.", "enc-s")
    wire_server.enqueue(anthropic_compaction_reply(70_000, block=block))
    client = anthropic_client(wire_server)
    edit = {"type": "compact_20260112", "trigger": {"type": "input_tokens", "value": 50_000}}
    with client.beta.messages.stream(
        model="claude-test",
        max_tokens=100,
        messages=[{"role": "user", "content": "Hello"}],
        context_management={"edits": [{**edit, "pause_after_compaction": True}]},
        betas=["compact-2026-01-12"],
    ) as stream:
        message = stream.get_final_message()
    assert message.stop_reason == "compaction"
    assert [b.to_dict() for b in message.content] == [block]
    assert message.usage.iterations[0].type == "compaction"

    wire_server.enqueue(anthropic_compaction_reply(70_000))
    with pytest.raises(anthropic.BadRequestError):  # the edit without its beta is refused
        client.post(
            "/v1/messages",
            body={
                "model": "claude-test",
                "max_tokens": 10,
                "messages": [],
                "context_management": {"edits": [edit]},
            },
            cast_to=anthropic.types.Message,
        )


def test_a_model_without_native_compaction_is_refused_and_nothing_is_sent(vendors):
    s = mw.Session.new("deepseek/deepseek-chat")
    vendors.enqueue(chat_reply("Answer.", usage=chat_usage(300, 5)))
    s.send("Question?")
    received, history = len(vendors.requests), len(s.history)
    with pytest.raises(mw.InvalidInput, match="has no compaction of its own"):
        native_compaction(parts_of(s))
    assert (len(vendors.requests), len(s.history)) == (received, history)
    with pytest.raises(mw.InvalidInput, match="compaction 'native' needs a model"):
        s.configure(compaction="native")
    assert mw.Session.new("openai/gpt-test").configure(compaction="native").compaction == "native"


def test_azure_compacts_through_its_deployment_and_takes_the_item_back(workspace, wire_server, monkeypatch):
    monkeypatch.setenv("TEST_AZURE_KEY", "az-key")
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "azure.yaml").write_text(
        "protocol: azure-openai\n"
        f"base_url: {wire_server.url}\n"
        "api_key: ${TEST_AZURE_KEY}\n"
        "api_version: 2025-04-01-preview\n"
        "models:\n"
        "  gpt-test: {native_compaction: true}\n"
        "deployments:\n"
        "  gpt-test: my-gpt-deployment\n"
    )
    mw.trust()
    s = mw.Session.new("azure/gpt-test")
    wire_server.enqueue(responses_reply("Answer.", usage=responses_usage(3000, 20)))
    s.send("Question?")
    wire_server.enqueue(compact_reply(encrypted_content="enc-az", usage=responses_usage(3100, 90)))
    card = native_compaction(parts_of(s))
    call = wire_server.last_request()
    assert call.path == "/openai/responses/compact" and call.query["api-version"] == ["2025-04-01-preview"]
    assert call.json["model"] == "my-gpt-deployment" and call.header("api-key") == "az-key"

    new = handover(card, "azure/gpt-test")
    wire_server.enqueue(responses_reply("Going on.", usage=responses_usage(200, 5)))
    new.send("Next?")
    assert wire_server.last_json()["input"][1] == {"type": "compaction", "encrypted_content": "enc-az"}


def test_responses_compact_now_opens_the_handover_from_the_item_and_a_switch_to_anthropic_sends_the_kept(
    vendors,
):
    s = mw.Session.new("openai/gpt-test", title="trip")  # the model compacts by itself: native
    assert s.settings.compaction == "native"
    before = two_questions(vendors, s)
    vendors.enqueue(compact_reply(encrypted_content="enc-now", usage=responses_usage(6100, 300)))
    h = s.compact_now()

    call = vendors.requests[-1]
    assert call.path == "/v1/responses/compact" and call.json["instructions"] == before["instructions"]
    assert (h.title, h.handover_of, s.handovers, h.state, h.history) == (
        "trip-handover-1",
        s.id,
        [h.id],
        "idle",
        [],
    )  # opened, not run
    assert [c.kind for c in h.cards] == ["system_prompt", "native_compaction"]
    assert [c.kind for c in s.cards][-1] == "model_reply"  # the original stays as it was
    assert h.cards[-1].kept == ["Question 0?", "Question 1?"] and "enc-now" not in h.cards[-1].text
    assert len(vendors.requests) == 3

    vendors.enqueue(responses_reply("Going on.", usage=responses_usage(500, 10)))
    h.send("Next?")
    sent = vendors.json_bodies()[-1]
    assert sent["instructions"] == before["instructions"] and sent["tools"] == before["tools"]
    assert [item.get("type", "message") for item in sent["input"]] == ["message", "compaction", "message"]
    assert sent["input"][1] == {"type": "compaction", "encrypted_content": "enc-now"}
    assert texts(sent["input"][2]["content"]) == ["Next?"]
    assert "Answer 0." not in str(sent) and "compacted the conversation" not in str(sent)

    h.configure(model="anthropic/claude-test")  # another provider: the kept messages alone
    vendors.enqueue(anthropic_reply("Fine.", usage=anthropic_usage(400, 5)))
    h.send("And now?")
    moved = vendors.json_bodies()[-1]
    assert [(m["role"], texts(m["content"])) for m in moved["messages"]] == [
        ("user", ["Question 0?", "Question 1?", "Next?"]),
        ("assistant", ["Going on."]),
        ("user", ["And now?"]),
    ]
    assert "enc-now" not in str(moved) and "compaction" not in str(moved["messages"])
    assert [block["text"] for block in moved["system"]][-1] == "Answer briefly."


def test_anthropic_compact_now_carries_the_persons_instructions_in_the_compaction_edit(vendors):
    s = mw.Session.new("anthropic/claude-test", title="plan")
    s.configure(compaction="native")
    for i in range(2):
        vendors.enqueue(anthropic_reply(f"Answer {i}.", usage=anthropic_usage(30_000 * (i + 1), 20)))
        s.send(f"Question {i}?")
    block = anthropic_compaction("The person asked two questions.", "enc-i", signature="sig-i")
    vendors.enqueue(anthropic_compaction_reply(60_100, block=block, compaction_output_tokens=35))
    h = s.compact_now(instructions="keep the open tickets")
    [edit] = vendors.requests[-1].json["context_management"]["edits"]
    assert edit == {
        "type": "compact_20260112",
        "trigger": {"type": "input_tokens", "value": 50_000},
        "instructions": "keep the open tickets",
        "pause_after_compaction": True,
    }
    card = h.cards[-1]
    assert card.kind == "native_compaction" and card.text.endswith("· with instructions")
    assert s.history[-1].request["context_management"]["edits"][0]["instructions"] == "keep the open tickets"


def test_responses_compact_now_with_instructions_is_refused_and_nothing_is_sent(vendors):
    s = mw.Session.new("openai/gpt-test", title="trip")
    two_questions(vendors, s)
    sent = len(vendors.requests)
    with pytest.raises(mw.ProviderError, match="OpenAI's own compaction, which takes no instructions"):
        s.compact_now(instructions="keep the numbers")
    assert len(vendors.requests) == sent and s.handovers == []
