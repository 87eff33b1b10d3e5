"""Replay (#38) against the local wire server, on each wire protocol through its official SDK: a session
recorded on the offline model, asked again of a vendor scripted to call another tool than the recording
did — the call is answered that it is not in the recording and runs nothing, the turn says its tool calls
differ — and of one that calls the recorded tool, which gets the recorded result."""

from __future__ import annotations

import json

import mewrk_jupyter as mw
from mewrk_jupyter.cards.models import ToolCall

from .three import Wire


def _recorded(workspace) -> mw.Session:
    s = mw.Session.new(model="offline/echo", title="recorded")
    s.send("hello")
    s.send('call: bash {"command": "echo ran >> ran.txt; cat ran.txt"}')
    s.approve()
    (workspace / "ran.txt").unlink()
    return s


def test_a_vendor_that_calls_another_tool_is_told_it_is_not_in_the_recording(
    wire: Wire, wire_server, workspace
):
    s = _recorded(workspace)
    wire_server.enqueue(
        wire.reply("Hello to you."),
        wire.call("read", {"path": "ran.txt"}),  # not what the recording did at that turn
        wire.reply("I could not read it."),
    )
    replay = s.replay(wire.model).wait(60)
    assert replay.state == "done", replay.error
    first, second = replay.turns
    assert first.replayed.text == "Hello to you." and first.same_tools
    assert not second.same_tools
    assert [t.name for t in second.replayed.tools] == ["read"]
    call = next(c for c in replay.branch.cards if isinstance(c, ToolCall))
    assert call.is_error and "not in the recording of this turn" in (call.result or "")
    assert not (workspace / "ran.txt").exists()  # nothing ran: not the recorded command, not the read
    # The vendor read the answer as the call's result, in its own protocol's form.
    sent = json.dumps(wire_server.last_request().json)
    assert "not in the recording of this turn" in sent
    assert "-bash(command='echo ran >> ran.txt; cat ran.txt')" in second.tools_diff
    assert "+read(path='ran.txt')" in second.tools_diff


def test_a_vendor_that_calls_the_recorded_tool_gets_the_recorded_result(wire: Wire, wire_server, workspace):
    s = _recorded(workspace)
    recorded = next(c for c in s.cards if isinstance(c, ToolCall))
    wire_server.enqueue(
        wire.reply("Hi."),
        wire.call("bash", {"command": "echo ran >> ran.txt; cat ran.txt"}),
        wire.reply("It ran."),
    )
    replay = s.replay(wire.model).wait(60)
    assert replay.state == "done", replay.error
    assert replay.turns[1].same_tools
    call = next(c for c in replay.branch.cards if isinstance(c, ToolCall))
    assert call.result == recorded.result and not call.is_error
    assert not (workspace / "ran.txt").exists()
    assert json.dumps(recorded.result)[1:-1] in json.dumps(wire_server.last_request().json)


def test_the_recordings_signed_thinking_is_not_sent_and_its_attachment_is(wire: Wire, wire_server, workspace):
    (workspace / "notes.txt").write_text("the meeting is at noon")
    s = mw.Session.new(model="offline/thinker")
    s.send("think: when is it?\nwhen is it?", attachments=["notes.txt"])
    assert any(isinstance(c, mw.Thinking) and c.is_signed for c in s.cards)
    wire_server.enqueue(wire.reply("At noon."))
    replay = s.replay(wire.model).wait(60)
    assert replay.state == "done", replay.error
    sent = json.dumps(wire_server.last_request().json)
    assert "offline-sig-" not in sent and "when is it?" in sent
    assert "the meeting is at noon" in sent
