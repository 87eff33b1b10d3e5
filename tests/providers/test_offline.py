"""The offline models (P4): deterministic, streamed, with thinking, tool calls, long replies and usage."""

from mewrk_jupyter.providers.base import (
    Message,
    ModelRequest,
    StopEvent,
    TextDelta,
    TextPart,
    ThinkingDelta,
    ThinkingDone,
    ToolCallEvent,
    UsageEvent,
)
from mewrk_jupyter.providers.offline import OfflineProvider, offline_signature


def run(text, model="offline/echo"):
    request = ModelRequest(model=model, messages=[Message(role="user", parts=[TextPart(text=text)])])
    return list(OfflineProvider().open(request).events())


def test_the_same_request_gives_the_same_stream():
    assert run("hello") == run("hello")
    assert run("hello") != run("hullo")


def test_a_reply_streams_in_several_deltas_then_usage_then_stop():
    events = run("tell me something")
    deltas = [e for e in events if isinstance(e, TextDelta)]
    assert len(deltas) > 3
    assert "".join(d.text for d in deltas).startswith("You said: “tell me something”")
    usage = next(e for e in events if isinstance(e, UsageEvent)).usage
    assert usage.input_tokens > 0 and usage.output_tokens > 0
    assert events[-1] == StopEvent("end_turn")


def test_long_replies_have_about_the_asked_length():
    events = run("long: 2000")
    text = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert len(text.split()) == 2000


def test_tool_calls_stop_with_tool_use():
    events = run('call: grep {"pattern": "x"}')
    call = next(e for e in events if isinstance(e, ToolCallEvent))
    assert (call.name, call.params) == ("grep", {"pattern": "x"})
    assert events[-1] == StopEvent("tool_use")


def test_the_thinker_signs_its_thinking():
    events = run("hi", model="offline/thinker")
    thinking = "".join(e.text for e in events if isinstance(e, ThinkingDelta))
    done = next(e for e in events if isinstance(e, ThinkingDone))
    assert done.signature == offline_signature(thinking)


def test_the_body_is_the_neutral_request_as_sent():
    request = ModelRequest(model="offline/echo", system=["s"], messages=[])
    assert OfflineProvider().open(request).body == request.model_dump(mode="json")
