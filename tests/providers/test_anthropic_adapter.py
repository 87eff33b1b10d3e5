"""Anthropic Messages (P1) through the whole engine and the real SDK, against the local wire server."""

import sqlite3

import pytest

import mewrk_jupyter as mw

from .wire import (
    anthropic_error,
    anthropic_redacted_thinking,
    anthropic_reply,
    anthropic_thinking,
    anthropic_tool_use,
    anthropic_usage,
)

SECRET = "sk-ant-test-SECRET-value-123"


@pytest.fixture
def claude(workspace, wire_server, monkeypatch):
    """A workspace whose llm/anthropic.yaml points the real SDK at the wire server."""
    monkeypatch.setenv("TEST_ANTHROPIC_KEY", SECRET)
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "anthropic.yaml").write_text(
        "protocol: anthropic-messages\n"
        f"base_url: {wire_server.url}\n"
        "api_key: ${TEST_ANTHROPIC_KEY}\n"
        "models:\n"
        "  claude-test: {context_window: 200000, vision: true, thinking: signed}\n"
        "  claude-old: {context_window: 100000, thinking: signed, prefill: true}\n"
    )
    mw.trust()  # the person wrote this folder
    return wire_server


def test_a_streamed_reply_becomes_cards_with_usage(claude):
    claude.enqueue(
        anthropic_reply("Hello from Claude.", usage=anthropic_usage(120, 7, cache_read_input_tokens=30))
    )
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("hi")
    body = claude.last_json()
    assert body["model"] == "claude-test" and body["stream"] is True
    assert body["messages"][-1]["content"][-1]["text"] == "hi"
    assert body["system"][0]["text"].startswith("You are an agent working inside mewrk_jupyter")
    sent_key = claude.last_request().header("x-api-key") or claude.last_request().header("authorization")
    assert sent_key in (SECRET, f"Bearer {SECRET}")
    reply = s.cards[-1]
    assert reply.text == "Hello from Claude." and reply.usage.input_tokens == 120
    assert (
        s.context.used == s.context.last_request == 150 < s.context.next_request
        and s.context.window == 200_000
    )
    assert s.history[-1].request == {k: v for k, v in body.items() if k != "stream"}


def test_a_key_changed_in_the_kernel_is_the_key_of_the_next_request(claude, monkeypatch):
    """The SDK client is reused between requests, but never with a key that changed since."""
    s = mw.Session.new(model="anthropic/claude-test")
    claude.enqueue(anthropic_reply("one"), anthropic_reply("two"), anthropic_reply("three"))
    s.send("first")
    monkeypatch.setenv("TEST_ANTHROPIC_KEY", "sk-ant-rotated-key-456789")
    s.send("second")
    s.send("third")
    sent = [r.header("x-api-key") or r.header("authorization") or "" for r in claude.requests]
    keys = [key.removeprefix("Bearer ") for key in sent]
    assert keys == [SECRET, "sk-ant-rotated-key-456789", "sk-ant-rotated-key-456789"]


def test_signed_thinking_goes_back_byte_for_byte_even_after_an_edit(claude):
    claude.enqueue(anthropic_reply(anthropic_thinking("Let me think.", "SIG-123"), "Answer."))
    claude.enqueue(anthropic_reply("Again."))
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("question")
    thinking = s.cards[1]
    assert (thinking.kind, thinking.signature, thinking.signed_text) == (
        "thinking",
        "SIG-123",
        "Let me think.",
    )
    s.edit(thinking.id, text="What the person prefers to read")
    s.send("next")
    sent = claude.last_json()["messages"][1]["content"]
    assert sent[0] == {"type": "thinking", "thinking": "Let me think.", "signature": "SIG-123"}
    assert "What the person prefers" not in str(claude.last_json())


def test_deleting_signed_thinking_stops_sending_it_and_inserted_thinking_is_not_sent_as_thinking(claude):
    claude.enqueue(anthropic_reply(anthropic_thinking("secret plan", "SIG-9"), "Done."))
    claude.enqueue(anthropic_reply("ok"))
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("go")
    s.delete(s.cards[1].id)
    s.insert(mw.Thinking(text="a thought I typed"), before=s.cards[-1].id)
    s.send("more")
    assistant = claude.last_json()["messages"][1]
    assert all(block["type"] != "thinking" for block in assistant["content"])
    assert "secret plan" not in str(claude.last_json())


def test_redacted_thinking_is_replayed_verbatim_and_can_only_be_deleted(claude):
    claude.enqueue(anthropic_reply(anthropic_redacted_thinking("OPAQUE=="), "Visible."))
    claude.enqueue(anthropic_reply("ok"))
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("go")
    redacted = s.cards[1]
    assert redacted.encrypted == "OPAQUE=="
    with pytest.raises(mw.NotEditable):
        s.edit(redacted.id, text="x")
    s.send("more")
    assert claude.last_json()["messages"][1]["content"][0] == {
        "type": "redacted_thinking",
        "data": "OPAQUE==",
    }


def test_tool_use_pairs_with_its_result_in_the_next_user_message(claude):
    claude.enqueue(
        anthropic_reply(
            anthropic_thinking("I need files.", "SIG-T"),
            anthropic_tool_use("ls", {"path": "."}, id="toolu_1"),
            anthropic_tool_use("grep", {"pattern": "x"}, id="toolu_2"),
        )
    )
    claude.enqueue(anthropic_reply("Both tools failed, I see."))
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("look around")
    second = claude.json_bodies()[1]["messages"]
    assert [b["type"] for b in second[1]["content"]] == ["thinking", "tool_use", "tool_use"]
    results = second[2]["content"]
    assert [(b["type"], b["tool_use_id"]) for b in results] == [
        ("tool_result", "toolu_1"),
        ("tool_result", "toolu_2"),
    ]
    assert s.cards[-1].text == "Both tools failed, I see."


def test_an_edited_card_changes_the_next_request_and_cache_breakpoints_are_placed_afresh(claude):
    claude.enqueue(anthropic_reply("First answer."), anthropic_reply("Second answer."))
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("one")
    s.edit(s.cards[0].id, text="one, edited")
    s.send("two")
    body = claude.last_json()
    assert body["messages"][0]["content"][0]["text"] == "one, edited"
    marks = [b for m in body["messages"] for b in m["content"] if "cache_control" in b]
    marks += [b for b in body["system"] if "cache_control" in b]
    assert 1 <= len(marks) <= 4
    assert body["system"][-1]["cache_control"] == {"type": "ephemeral"}
    assert body["messages"][-1]["content"][-1]["cache_control"] == {"type": "ephemeral"}


def test_continue_on_a_model_that_refuses_prefill_ends_with_a_user_message(claude):
    claude.enqueue(anthropic_reply("Part one."), anthropic_reply("Part two."))
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("write")
    s.send()  # continue
    body = claude.last_json()
    assert body["messages"][-1]["role"] == "user"
    assert "Continue from where the conversation stands" in body["messages"][-1]["content"][0]["text"]


def test_continue_on_a_prefill_model_continues_the_last_reply(claude):
    claude.enqueue(anthropic_reply("Part one.  "), anthropic_reply(" and two."))
    s = mw.Session.new(model="anthropic/claude-old")
    s.send("write")
    s.send()
    body = claude.last_json()
    assert body["messages"][-1] == {"role": "assistant", "content": [{"type": "text", "text": "Part one."}]}


def test_a_stream_cut_mid_reply_keeps_the_partial_reply_and_the_session_continues(claude):
    claude.enqueue(anthropic_reply("This reply will be cut somewhere in the middle.", error_after=6))
    claude.enqueue(anthropic_reply("Recovered."))
    s = mw.Session.new(model="anthropic/claude-test")
    with pytest.raises(mw.ProviderError, match="error mid-reply"):
        s.send("go")
    reply = s.cards[-1]
    assert reply.kind == "model_reply" and reply.interrupted and reply.text
    assert s.history[-1].error and s.state == "idle"
    s.send()
    assert s.cards[-1].text == "Recovered."


def test_rate_limits_are_retried_by_the_sdk(claude):
    claude.enqueue(anthropic_error(429, retry_after_ms=10), anthropic_reply("after the retry"))
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("hi")
    assert len(claude.requests) == 2 and s.cards[-1].text == "after the retry"


def test_a_server_error_that_outlasts_the_retries_is_a_clear_error_and_nothing_is_lost(claude):
    claude.enqueue(*[anthropic_error(500, "boom", retry_after_ms=10) for _ in range(3)])
    s = mw.Session.new(model="anthropic/claude-test")
    with pytest.raises(mw.ProviderError, match="HTTP 500: boom"):
        s.send("hi")
    assert [c.kind for c in s.cards] == ["user_input"]
    assert s.history[-1].error and s.history[-1].request["messages"][0]["content"][0]["text"] == "hi"


def test_no_secret_is_stored(claude, workspace):
    claude.enqueue(anthropic_reply("fine"))
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("hi")
    dump = "\n".join(str(row) for row in sqlite3.connect(workspace / ".mewrk" / "mewrk.db").iterdump())
    assert SECRET not in dump


def test_a_missing_key_or_an_unknown_model_is_a_clear_error_before_anything_is_sent(claude, monkeypatch):
    with pytest.raises(
        mw.ConfigError, match=r"The model `anthropic/claude-nope` is not in `\.mewrk/llm/anthropic\.yaml`"
    ):
        mw.Session.new(model="anthropic/claude-nope")
    s = mw.Session.new(model="anthropic/claude-test")
    monkeypatch.delenv("TEST_ANTHROPIC_KEY")
    with pytest.raises(mw.ConfigError, match="TEST_ANTHROPIC_KEY"):
        s.send("hi")
    assert claude.requests == []


def test_a_socket_cut_mid_stream_keeps_the_partial_reply(claude):
    claude.enqueue(anthropic_reply("A long reply that the network cuts.", cut_after=6))
    s = mw.Session.new(model="anthropic/claude-test")
    with pytest.raises(mw.ProviderError, match="broke|reach"):
        s.send("go")
    assert s.cards[-1].kind == "model_reply" and s.cards[-1].interrupted


def test_an_edit_above_a_signed_block_drops_it_instead_of_sending_an_invalid_signature(claude):
    claude.enqueue(anthropic_reply(anthropic_thinking("bound to the question", "SIG-B"), "Answer."))
    claude.enqueue(anthropic_reply("ok"), anthropic_reply("ok"), anthropic_reply("ok"))
    s = mw.Session.new(model="anthropic/claude-test")
    s.send("the question")
    thinking = s.cards[1]
    assert thinking.bound_to
    # A change below the block keeps it valid: it is still sent.
    s.edit(s.cards[2].id, text="An answer edited below the thinking.")
    s.send("next")
    assert claude.last_json()["messages"][1]["content"][0]["signature"] == "SIG-B"
    # A change above it (the question it followed) would make the signature invalid: it is dropped.
    s.edit(s.cards[0].id, text="a different question")
    s.send("again")
    assistant = claude.last_json()["messages"][1]["content"]
    assert [b["type"] for b in assistant] == ["text"]
    # Undoing the edit restores the prefix, and with it the block.
    s.undo()
    s.send()
    assert claude.last_json()["messages"][1]["content"][0]["signature"] == "SIG-B"
