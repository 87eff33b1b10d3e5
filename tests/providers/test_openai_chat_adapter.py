"""OpenAI Chat Completions (P2) through the whole engine and the real SDK, against the local wire server."""

import sqlite3

import pytest

import mewrk_jupyter as mw

from .wire import chat_reply, chat_tool_call, chat_usage, openai_error

SECRET = "sk-deepseek-test-SECRET-value-456"


@pytest.fixture
def deepseek(workspace, wire_server, monkeypatch):
    """A workspace whose llm/deepseek.yaml points the real `openai` SDK at the wire server."""
    monkeypatch.setenv("TEST_DEEPSEEK_KEY", SECRET)
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "deepseek.yaml").write_text(
        "protocol: openai-chat\n"
        f"base_url: {wire_server.openai_base_url}\n"
        "api_key: ${TEST_DEEPSEEK_KEY}\n"
        "models:\n"
        "  deepseek-reasoner: {context_window: 128000, thinking: plain, reasoning_content_roundtrip: tool_turns}\n"
        "  deepseek-chat: {context_window: 64000, reasoning_content_roundtrip: always}\n"
        "  deepseek-vl: {context_window: 64000, vision: true}\n"
    )
    mw.trust()  # the person wrote this folder
    return wire_server


def test_a_streamed_reply_becomes_cards_with_usage(deepseek):
    deepseek.enqueue(chat_reply("Hello from DeepSeek.", usage=chat_usage(120, 7, cached_tokens=30)))
    s = mw.Session.new(model="deepseek/deepseek-reasoner")
    s.send("hi")
    body = deepseek.last_json()
    assert body["model"] == "deepseek-reasoner" and body["stream"] is True
    assert body["stream_options"] == {"include_usage": True}
    assert body["messages"][0]["role"] == "system"
    assert body["messages"][0]["content"].startswith("You are an agent working inside mewrk_jupyter")
    assert body["messages"][-1] == {"role": "user", "content": "hi"}
    assert body["max_tokens"] == 4096 and "max_completion_tokens" not in body
    assert deepseek.last_request().header("authorization") == f"Bearer {SECRET}"
    reply = s.cards[-1]
    assert reply.kind == "model_reply" and reply.text == "Hello from DeepSeek."
    assert reply.stop_reason == "end_turn"
    assert (reply.usage.input_tokens, reply.usage.cache_read_tokens, reply.usage.output_tokens) == (90, 30, 7)
    assert (
        s.context.used == s.context.last_request == 120 < s.context.next_request
        and s.context.window == 128_000
    )
    assert s.history[-1].request == {k: v for k, v in body.items() if k != "stream"}


def test_tool_calls_accumulate_and_results_follow_as_tool_messages_with_edited_thinking(deepseek):
    deepseek.enqueue(
        chat_reply(
            reasoning="I need to look at files.",
            tool_calls=[
                chat_tool_call("ls", {"path": "."}, id="call_1", chunks=4),
                chat_tool_call("grep", {"pattern": "x"}, id="call_2"),
            ],
        ),
        chat_reply("Both tools failed, I see."),
        chat_reply("Plain answer.", reasoning="plain thought"),
        chat_reply("Done."),
    )
    s = mw.Session.new(model="deepseek/deepseek-reasoner")
    s.send("look around")
    thinking = next(c for c in s.cards if c.kind == "thinking")
    assert thinking.text == "I need to look at files." and thinking.signature is None
    calls = [c for c in s.cards if c.kind == "tool_call"]
    assert [(c.call_id, c.name, c.params) for c in calls] == [
        ("call_1", "ls", {"path": "."}),
        ("call_2", "grep", {"pattern": "x"}),
    ]
    second = deepseek.json_bodies()[1]["messages"]
    assistant = second[2]
    assert assistant["role"] == "assistant" and assistant["reasoning_content"] == "I need to look at files."
    assert [(c["id"], c["function"]["name"]) for c in assistant["tool_calls"]] == [
        ("call_1", "ls"),
        ("call_2", "grep"),
    ]
    assert assistant["tool_calls"][0]["function"]["arguments"] == '{"path": "."}'
    assert [(m["role"], m["tool_call_id"]) for m in second[3:5]] == [("tool", "call_1"), ("tool", "call_2")]
    assert s.cards[-1].text == "Both tools failed, I see."

    s.edit(thinking.id, text="My edited reasoning.")
    s.send("and now?")  # a plain turn whose thinking is not sent back (tool_turns)
    body = deepseek.last_json()
    assert body["messages"][2]["reasoning_content"] == "My edited reasoning."
    assert "I need to look at files." not in str(body)
    s.send("once more")
    plain_turn = [m for m in deepseek.last_json()["messages"] if m.get("content") == "Plain answer."]
    assert plain_turn and "reasoning_content" not in plain_turn[0]
    assert "plain thought" not in str(deepseek.last_json())


def test_always_roundtrip_sends_thinking_on_plain_turns_and_vllm_reasoning_is_read(deepseek):
    deepseek.enqueue(chat_reply("Answer.", reasoning="vllm thought", reasoning_field="reasoning"))
    deepseek.enqueue(chat_reply("ok"))
    s = mw.Session.new(model="deepseek/deepseek-chat")
    s.send("q")
    assert [c.kind for c in s.cards[-2:]] == ["thinking", "model_reply"]
    s.send("next")
    assistant = deepseek.last_json()["messages"][2]
    assert assistant == {"role": "assistant", "content": "Answer.", "reasoning_content": "vllm thought"}


def test_invalid_tool_arguments_are_kept_raw(deepseek):
    deepseek.enqueue(chat_reply(tool_calls=[chat_tool_call("ls", '{"path": ', id="call_x")]))
    deepseek.enqueue(chat_reply("ok"))
    s = mw.Session.new(model="deepseek/deepseek-chat")
    s.send("go")
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert call.params == {"raw": '{"path": '}


def test_an_edited_card_changes_the_next_request(deepseek):
    deepseek.enqueue(chat_reply("First answer."), chat_reply("Second answer."))
    s = mw.Session.new(model="deepseek/deepseek-chat")
    s.send("one")
    s.edit(s.cards[0].id, text="one, edited")
    s.edit(s.cards[1].id, text="First answer, edited.")
    s.send("two")
    messages = deepseek.last_json()["messages"]
    assert messages[1:] == [
        {"role": "user", "content": "one, edited"},
        {"role": "assistant", "content": "First answer, edited."},
        {"role": "user", "content": "two"},
    ]


def test_continue_ends_with_a_user_message_asking_to_continue(deepseek):
    deepseek.enqueue(chat_reply("Part one."), chat_reply("Part two."))
    s = mw.Session.new(model="deepseek/deepseek-chat")
    s.send("write")
    s.send()
    messages = deepseek.last_json()["messages"]
    assert messages[-2] == {"role": "assistant", "content": "Part one."}
    assert messages[-1]["role"] == "user" and "Continue from where" in messages[-1]["content"]


def test_finish_reason_length_is_max_tokens(deepseek):
    deepseek.enqueue(chat_reply("Truncat", finish_reason="length"), chat_reply("ed."))
    s = mw.Session.new(model="deepseek/deepseek-chat")
    s.send("go")
    kinds = [(c.kind, getattr(c, "stop_reason", None)) for c in s.cards]
    # T13: the engine asks the model to go on from where the output limit cut it.
    assert kinds == [
        ("user_input", None),
        ("model_reply", "max_tokens"),
        ("host_message", None),
        ("model_reply", "end_turn"),
    ]


def test_rate_limits_are_retried_by_the_sdk(deepseek):
    deepseek.enqueue(openai_error(429, retry_after_ms=10), chat_reply("after the retry"))
    s = mw.Session.new(model="deepseek/deepseek-chat")
    s.send("hi")
    assert len(deepseek.requests) == 2 and s.cards[-1].text == "after the retry"


def test_a_stream_cut_mid_reply_keeps_the_partial_reply_and_the_session_continues(deepseek):
    deepseek.enqueue(chat_reply("This reply will be cut somewhere.", content_chunks=6, cut_after=4))
    deepseek.enqueue(chat_reply("Recovered."))
    s = mw.Session.new(model="deepseek/deepseek-chat")
    with pytest.raises(mw.ProviderError, match="broke|reach"):
        s.send("go")
    reply = s.cards[-1]
    assert reply.kind == "model_reply" and reply.interrupted and reply.text
    assert s.history[-1].error and s.state == "idle"
    s.send()
    assert s.cards[-1].text == "Recovered."


def test_no_secret_is_stored(deepseek, workspace):
    deepseek.enqueue(chat_reply("fine"))
    s = mw.Session.new(model="deepseek/deepseek-chat")
    s.send("hi")
    dump = "\n".join(str(row) for row in sqlite3.connect(workspace / ".mewrk" / "mewrk.db").iterdump())
    assert SECRET not in dump


def test_images_go_as_data_urls_other_files_as_text_and_a_mid_timeline_system_prompt_stays_in_place(deepseek):
    deepseek.enqueue(chat_reply("Seen."), chat_reply("ok"))
    s = mw.Session.new(model="deepseek/deepseek-vl")  # images need a model with vision input (T19)
    png = mw.Attachment(name="dot.png", media_type="image/png", data="iVBORw0KGgo=")
    notes = mw.Attachment(name="notes.md", media_type="text/markdown", data="IyBoaQ==", text="# hi")
    s.send("look", attachments=[png, notes])
    content = deepseek.last_json()["messages"][-1]["content"]
    assert content == [
        {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}},
        {"type": "text", "text": "[notes.md]\n# hi"},
        {"type": "text", "text": "look"},
    ]
    s.insert(mw.SystemPrompt(text="Be brief."), before=s.cards[-1].id)
    s.send("again")
    roles = [(m["role"], m["content"]) for m in deepseek.last_json()["messages"][2:]]
    assert roles == [("system", "Be brief."), ("assistant", "Seen."), ("user", "again")]
