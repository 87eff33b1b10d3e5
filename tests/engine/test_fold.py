"""The fold of a model's stream into cards, alone: no session, no store, no events."""

from __future__ import annotations

from mewrk_jupyter.cards.models import ModelReply, Thinking, ToolCall, Usage
from mewrk_jupyter.engine.turns.fold import ResponseState, accumulate, finish, record
from mewrk_jupyter.providers.base import (
    Message,
    ModelRequest,
    StopEvent,
    TextDelta,
    TextPart,
    ThinkingDelta,
    ThinkingDone,
    ThinkingPart,
    ToolCallEvent,
    ToolUsePart,
    UsageEvent,
)
from mewrk_jupyter.providers.record import ModelResponse, Stop, read_response


def fresh() -> ResponseState:
    request = ModelRequest(model="m", messages=[Message(role="user", parts=[TextPart(text="hi")])])
    return ResponseState(request=request, model="m", protocol="anthropic-messages")


def fold(events) -> ResponseState:
    state = fresh()
    for event in events:
        state = accumulate(state, event)
    return state


def test_text_deltas_open_one_reply_and_grow_it():
    state = accumulate(fresh(), TextDelta(0, "Hel"))
    reply = state.opened
    assert isinstance(reply, ModelReply) and reply.text == "Hel" and not reply.complete
    state = accumulate(state, TextDelta(0, "lo"))
    assert state.opened is None and state.blocks == {0: reply} and reply.text == "Hello"
    assert reply.model == "m" and reply.response_id == state.response_id


def test_thinking_then_text_then_a_tool_call_are_three_cards_in_block_order():
    state = fold(
        [
            ThinkingDelta(0, "let me see"),
            ThinkingDone(0, signature="sig"),
            TextDelta(1, "I'll look."),
            ToolCallEvent(2, "call_1", "ls", {"path": "."}),
            UsageEvent(Usage(input_tokens=10, output_tokens=5)),
            StopEvent("tool_use"),
        ]
    )
    thinking, reply, call = (state.blocks[i] for i in range(3))
    assert (
        isinstance(thinking, Thinking)
        and thinking.signature == "sig"
        and thinking.signed_text == "let me see"
    )
    assert thinking.bound_to  # a signed block is bound to what it follows
    assert isinstance(reply, ModelReply) and reply.text == "I'll look."
    assert isinstance(call, ToolCall) and call.status == "pending" and state.calls == [call]
    assert state.stop == "tool_use" and state.usage == Usage(input_tokens=10, output_tokens=5)
    assert {c.response_id for c in state.blocks.values()} == {state.response_id}


def test_a_signed_block_is_bound_to_the_request_and_the_blocks_before_it():
    before = fold([TextDelta(0, "a"), ThinkingDone(1, signature="s")]).blocks[1]
    alone = fold([ThinkingDone(1, signature="s")]).blocks[1]
    assert isinstance(before, Thinking) and isinstance(alone, Thinking)
    assert before.bound_to != alone.bound_to


def test_encrypted_thinking_keeps_its_bytes():
    state = fold([ThinkingDone(0, encrypted="opaque")])
    assert isinstance(state.opened, Thinking) and state.opened.encrypted == "opaque"


def test_finish_completes_the_replies_and_puts_usage_on_the_last():
    state = fold(
        [TextDelta(0, "one"), TextDelta(2, "two"), UsageEvent(Usage(output_tokens=3)), StopEvent("end_turn")]
    )
    state = finish(state, interrupted=False)
    first, last = state.blocks[0], state.blocks[2]
    assert isinstance(first, ModelReply) and isinstance(last, ModelReply)
    assert first.complete and last.complete and not last.interrupted and last.stop_reason == "end_turn"
    assert first.usage is None and last.usage == Usage(output_tokens=3)


def test_a_cut_stream_finishes_interrupted():
    reply = finish(fold([TextDelta(0, "par")]), interrupted=True).blocks[0]
    assert isinstance(reply, ModelReply) and reply.complete and reply.interrupted


def test_the_record_lists_the_blocks_as_the_history_keeps_them():
    state = fold(
        [
            ThinkingDelta(0, "t"),
            ThinkingDone(0, signature="s"),
            TextDelta(1, "x"),
            ToolCallEvent(2, "c", "ls", {}),
        ]
    )
    assert record(state) == ModelResponse(
        stop=Stop.END_TURN,
        parts=[
            ThinkingPart(text="t", signature="s"),
            TextPart(text="x"),
            ToolUsePart(id="c", name="ls", input={}),
        ],
    )
    # The history row keeps it as JSON in the neutral words; `read_response` reads it back.
    assert record(state).stored() == {
        "stop": "end_turn",
        "parts": [
            {"type": "thinking", "text": "t", "signature": "s"},
            {"type": "text", "text": "x"},
            {"type": "tool_use", "id": "c", "name": "ls", "input": {}},
        ],
        "usage": None,
    }
    assert read_response(record(state).stored()) == record(state)


def test_a_response_stored_in_the_old_shape_still_reads():
    # A row written before the response was typed: Anthropic's words, `stop_reason` and `content`.
    old = {
        "stop_reason": "tool_use",
        "content": [
            {"type": "thinking", "text": "t", "signature": "s"},
            {"type": "text", "text": "x"},
            {"type": "tool_use", "id": "c", "name": "ls", "input": {"path": "."}},
        ],
        "usage": {"input_tokens": 7, "output_tokens": 2, "cache_read_tokens": 0, "cache_write_tokens": 0},
    }
    assert read_response(old) == ModelResponse(
        stop=Stop.TOOL_USE,
        parts=[
            ThinkingPart(text="t", signature="s"),
            TextPart(text="x"),
            ToolUsePart(id="c", name="ls", input={"path": "."}),
        ],
        usage=Usage(input_tokens=7, output_tokens=2),
    )
    native = {"compaction": "native", "stop_reason": "compaction", "content": [], "usage": None}
    assert read_response(native) == ModelResponse(stop=Stop.COMPACTION, compaction="native")
    assert read_response(None) is None


def test_a_tool_spec_digests_as_before_claude_code_was_a_field_of_it():
    # Signed thinking bound to a prefix before the field existed stays bound: a spec without it digests
    # as the three fields it had; one offered as Claude Code's own digests apart.
    import hashlib
    import json

    from mewrk_jupyter.engine.assembly.assemble import prefix_digest
    from mewrk_jupyter.providers.base import ClaudeCodeTool, ToolSpec

    schema = {"type": "object", "properties": {"path": {"type": "string", "default": None}}}
    spec = ToolSpec(name="read", description="Read a file.", input_schema=schema)
    before = hashlib.sha256(
        json.dumps(
            [[{"name": "read", "description": "Read a file.", "input_schema": schema}], ["sys"]]
        ).encode()
    ).hexdigest()
    assert prefix_digest(["sys"], [spec], []) == before
    marked = spec.model_copy(update={"claude_code": ClaudeCodeTool(name="Read", root="/w")})
    assert prefix_digest(["sys"], [marked], []) != before
