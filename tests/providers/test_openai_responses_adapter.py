"""OpenAI Responses and Azure OpenAI (P3) through the whole engine and the real SDK, on the wire server."""

import json
import sqlite3

import pytest

import mewrk_jupyter as mw

from .wire import (
    openai_error,
    responses_function_call,
    responses_message,
    responses_reasoning,
    responses_reply,
    responses_usage,
)

SECRET = "sk-openai-test-SECRET-value-456"
ENCRYPTED = 'gAAAA-opaque+/="\\ \u00e9 blob'


@pytest.fixture
def gpt(workspace, wire_server, monkeypatch):
    """A workspace whose llm/openai.yaml points the real SDK at the wire server."""
    monkeypatch.setenv("TEST_OPENAI_KEY", SECRET)
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "openai.yaml").write_text(
        "protocol: openai-responses\n"
        f"base_url: {wire_server.openai_base_url}\n"
        "api_key: ${TEST_OPENAI_KEY}\n"
        "models:\n"
        "  gpt-test: {context_window: 400000, vision: true, thinking: signed, max_tokens: 2000}\n"
    )
    mw.trust()  # the person wrote this folder
    return wire_server


def _items(body, kind):
    return [item for item in body["input"] if item.get("type") == kind]


def test_a_streamed_reply_becomes_cards_with_usage(gpt):
    gpt.enqueue(responses_reply("Hello from GPT.", usage=responses_usage(120, 7, cached_tokens=30)))
    s = mw.Session.new(model="openai/gpt-test")
    s.send("hi")
    request = gpt.last_request()
    body = request.json
    assert request.path == "/v1/responses" and request.header("authorization") == f"Bearer {SECRET}"
    assert body["model"] == "gpt-test" and body["stream"] is True and body["store"] is False
    assert body["include"] == ["reasoning.encrypted_content"] and body["max_output_tokens"] == 2000
    assert body["instructions"].startswith("You are an agent working inside mewrk_jupyter")
    assert body["input"] == [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]
    assert "reasoning" not in body  # reasoning is off by default
    reply = s.cards[-1]
    assert reply.text == "Hello from GPT." and reply.stop_reason == "end_turn"
    assert (reply.usage.input_tokens, reply.usage.cache_read_tokens, reply.usage.output_tokens) == (90, 30, 7)
    assert (
        s.context.used == s.context.last_request == 120 < s.context.next_request
        and s.context.window == 400_000
    )
    assert s.history[-1].request == {k: v for k, v in body.items() if k != "stream"}


def test_the_reasoning_item_goes_back_byte_for_byte_even_after_an_edit(gpt):
    reasoning = responses_reasoning(
        ["First I plan.", "Then I act."], encrypted_content=ENCRYPTED, id="rs_abc"
    )
    gpt.enqueue(responses_reply(reasoning, "Answer."), responses_reply("Again."))
    s = mw.Session.new(model="openai/gpt-test")
    s.send("question")
    thinking = s.cards[1]
    assert thinking.kind == "thinking" and thinking.text == "First I plan.\n\nThen I act."
    assert thinking.is_signed and thinking.protocol == "openai-responses"
    s.edit(thinking.id, text="What the person prefers to read")
    s.send("next")
    raw = gpt.last_request().raw_body.decode()
    body = json.loads(raw)
    assert body["input"][1] == {
        "type": "reasoning",
        "id": "rs_abc",
        "summary": [
            {"type": "summary_text", "text": "First I plan."},
            {"type": "summary_text", "text": "Then I act."},
        ],
        "encrypted_content": ENCRYPTED,
    }
    assert body["input"][2] == {
        "type": "message",
        "role": "assistant",
        "content": [{"type": "output_text", "text": "Answer."}],
    }
    assert "What the person prefers" not in raw


def test_deleting_reasoning_stops_sending_it_and_inserted_thinking_is_not_sent(gpt):
    gpt.enqueue(responses_reply(responses_reasoning("secret plan", id="rs_1"), "Done."))
    gpt.enqueue(responses_reply("ok"))
    s = mw.Session.new(model="openai/gpt-test")
    s.send("go")
    s.delete(s.cards[1].id)
    s.insert(mw.Thinking(text="a thought I typed"), before=s.cards[-1].id)
    s.send("more")
    body = gpt.last_json()
    assert _items(body, "reasoning") == []
    assert "secret plan" not in json.dumps(body) and "a thought I typed" not in json.dumps(body)


def test_reasoning_whose_follower_was_deleted_is_not_sent(gpt):
    gpt.enqueue(responses_reply(responses_reasoning("plan", id="rs_2"), "Reply to delete."))
    gpt.enqueue(responses_reply("ok"))
    s = mw.Session.new(model="openai/gpt-test")
    s.send("go")
    s.delete(s.cards[-1].id)
    s.send("again")
    body = gpt.last_json()
    assert _items(body, "reasoning") == [] and "Reply to delete" not in json.dumps(body)


def test_function_calls_pair_with_their_outputs_by_call_id(gpt):
    gpt.enqueue(
        responses_reply(
            responses_reasoning("I need files.", id="rs_t", encrypted_content="ENC-T"),
            responses_function_call("ls", {"path": "."}, call_id="call_1"),
            responses_function_call("grep", {"pattern": "x"}, call_id="call_2"),
        )
    )
    gpt.enqueue(responses_reply("Both tools failed, I see."))
    s = mw.Session.new(model="openai/gpt-test")
    s.send("look around")
    calls = [c for c in s.cards if c.kind == "tool_call"]
    assert [(c.call_id, c.name, c.params) for c in calls] == [
        ("call_1", "ls", {"path": "."}),
        ("call_2", "grep", {"pattern": "x"}),
    ]
    second = gpt.json_bodies()[1]["input"]
    kinds = [item.get("type", item.get("role")) for item in second]
    assert kinds == ["user", "reasoning", "function_call", "function_call", *["function_call_output"] * 2]
    assert second[2] == {
        "type": "function_call",
        "call_id": "call_1",
        "name": "ls",
        "arguments": json.dumps({"path": "."}),
    }
    outputs = [(i["call_id"], bool(i["output"])) for i in _items({"input": second}, "function_call_output")]
    assert outputs == [("call_1", True), ("call_2", True)]
    assert s.cards[-1].text == "Both tools failed, I see."


def test_reasoning_effort_is_sent_when_reasoning_is_on(gpt):
    gpt.enqueue(responses_reply("ok"))
    s = mw.Session.new(model="openai/gpt-test")
    s.configure(reasoning="high")
    s.send("think hard")
    assert gpt.last_json()["reasoning"] == {"effort": "high", "summary": "auto"}


def test_an_incomplete_response_keeps_the_partial_reply(gpt):
    gpt.enqueue(
        responses_reply("A reply cut by the token limit", status="incomplete"), responses_reply("Done.")
    )
    s = mw.Session.new(model="openai/gpt-test")
    s.send("write a lot")
    reply = s.cards[1]
    assert reply.text == "A reply cut by the token limit" and reply.stop_reason == "max_tokens"
    assert [c.kind for c in s.cards[2:]] == ["host_message", "model_reply"]  # T13: asked to go on
    assert s.state == "idle"


def test_a_failed_response_is_a_clear_error_and_the_partial_reply_is_kept(gpt):
    gpt.enqueue(responses_reply("Partial answer", status="failed", error_message="model overloaded"))
    gpt.enqueue(responses_reply("Recovered."))
    s = mw.Session.new(model="openai/gpt-test")
    with pytest.raises(mw.ProviderError, match="model overloaded"):
        s.send("go")
    assert s.cards[-1].kind == "model_reply" and s.cards[-1].interrupted and s.cards[-1].text
    assert s.history[-1].error
    s.send()
    assert s.cards[-1].text == "Recovered."


def test_an_error_event_mid_stream_keeps_the_partial_reply(gpt):
    message = responses_message("This reply will be cut in the middle.", chunks=6)
    gpt.enqueue(responses_reply(message, error_after=8, error_message="stream broke"))
    s = mw.Session.new(model="openai/gpt-test")
    with pytest.raises(mw.ProviderError, match="stream broke"):
        s.send("go")
    assert s.cards[-1].kind == "model_reply" and s.cards[-1].interrupted and s.cards[-1].text


def test_rate_limits_are_retried_by_the_sdk(gpt):
    gpt.enqueue(openai_error(429, retry_after_ms=10), responses_reply("after the retry"))
    s = mw.Session.new(model="openai/gpt-test")
    s.send("hi")
    assert len(gpt.requests) == 2 and s.cards[-1].text == "after the retry"


def test_no_secret_is_stored(gpt, workspace):
    gpt.enqueue(responses_reply("fine"))
    s = mw.Session.new(model="openai/gpt-test")
    s.send("hi")
    dump = "\n".join(str(row) for row in sqlite3.connect(workspace / ".mewrk" / "mewrk.db").iterdump())
    assert SECRET not in dump


def test_an_azure_vendor_sends_the_deployment_with_its_api_version(workspace, wire_server, monkeypatch):
    monkeypatch.setenv("TEST_AZURE_KEY", SECRET)
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "azure.yaml").write_text(
        "protocol: azure-openai\n"
        f"base_url: {wire_server.url}\n"
        "api_key: ${TEST_AZURE_KEY}\n"
        "api_version: 2025-04-01-preview\n"
        "models:\n"
        "  gpt-test: {thinking: signed}\n"
        "deployments:\n"
        "  gpt-test: my-gpt-deployment\n"
    )
    mw.trust()
    wire_server.enqueue(
        responses_reply(responses_reasoning("az plan", id="rs_az", encrypted_content="AZ"), "From Azure."),
        responses_reply("Again."),
    )
    s = mw.Session.new(model="azure/gpt-test")
    s.send("hi")
    s.send("more")
    request = wire_server.last_request()
    assert request.path == "/openai/responses" and request.query["api-version"] == ["2025-04-01-preview"]
    assert request.header("api-key") == SECRET
    assert request.json["model"] == "my-gpt-deployment"
    assert _items(request.json, "reasoning")[0]["encrypted_content"] == "AZ"
    assert s.cards[-1].text == "Again."


def test_images_go_as_data_urls_and_a_mid_timeline_system_prompt_is_a_developer_message(gpt):
    gpt.enqueue(responses_reply("Seen."), responses_reply("ok"))
    s = mw.Session.new(model="openai/gpt-test")
    png = mw.Attachment(name="dot.png", media_type="image/png", data="iVBORw0KGgo=")
    notes = mw.Attachment(name="notes.md", media_type="text/markdown", data="IyBoaQ==", text="# hi")
    s.send("look", attachments=[png, notes])
    assert gpt.last_json()["input"][-1]["content"] == [
        {"type": "input_image", "image_url": "data:image/png;base64,iVBORw0KGgo="},
        {"type": "input_text", "text": "[notes.md]\n# hi"},
        {"type": "input_text", "text": "look"},
    ]
    s.insert(mw.SystemPrompt(text="Be brief."), before=s.cards[-1].id)
    s.send("again")
    roles = [item.get("role") for item in gpt.last_json()["input"][1:]]
    assert roles == ["developer", "assistant", "user"]
    assert gpt.last_json()["input"][1]["content"] == [{"type": "input_text", "text": "Be brief."}]


def test_continue_ends_the_input_with_a_user_message(gpt):
    gpt.enqueue(responses_reply("Part one."), responses_reply("Part two."))
    s = mw.Session.new(model="openai/gpt-test")
    s.send("write")
    s.send()
    last = gpt.last_json()["input"][-1]
    assert last["role"] == "user" and "Continue from where" in last["content"][0]["text"]
    assert s.cards[-1].text == "Part two."


def test_a_socket_cut_mid_stream_keeps_the_partial_reply(gpt):
    message = responses_message("A long reply that the network cuts.", chunks=6)
    gpt.enqueue(responses_reply(message, cut_after=7))
    s = mw.Session.new(model="openai/gpt-test")
    with pytest.raises(mw.ProviderError, match="broke|reach"):
        s.send("go")
    assert s.cards[-1].kind == "model_reply" and s.cards[-1].interrupted and s.cards[-1].text


def test_a_stream_that_ends_without_a_final_event_is_an_error(gpt):
    message = responses_message("A reply that stops short.", chunks=6)
    gpt.enqueue(responses_reply(message, cut_after=7, cut_cleanly=True))
    s = mw.Session.new(model="openai/gpt-test")
    with pytest.raises(mw.ProviderError, match="ended before the reply was complete"):
        s.send("go")
    assert s.cards[-1].interrupted and s.cards[-1].text
