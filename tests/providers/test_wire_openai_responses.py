"""The scripted Responses server speaks the real format: proven with the real `openai` SDK."""

from __future__ import annotations

import asyncio
import json

import openai
import pytest

from .wire import (
    WireServer,
    compact_reply,
    responses_function_call,
    responses_message,
    responses_reasoning,
    responses_reply,
    responses_usage,
)
from .wire.clients import openai_client


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
