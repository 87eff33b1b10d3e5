"""Replay (#38): a recorded session's messages asked again of another model or agent on a branch, each
turn compared with the recording's; tool calls answered from the recording (nothing runs) or run live;
Stop; and `mw.replay_check` as a regression test, from a session or an exported notebook."""

from __future__ import annotations

import json

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.cards.models import ToolCall
from tests.conftest import wait_for


def _calls(s: mw.Session) -> list[ToolCall]:
    return [c for c in s.cards if isinstance(c, ToolCall)]


def recording(workspace) -> mw.Session:
    """A session on offline/echo: a greeting, then a command that appends to a file, approved."""
    s = mw.Session.new(title="recorded")
    s.send("hello there")
    s.send('call: bash {"command": "echo ran >> ran.txt; cat ran.txt"}')
    s.approve()
    assert (workspace / "ran.txt").read_text() == "ran\n"
    return s


def test_a_replay_asks_each_message_again_on_a_branch_and_leaves_the_recording_as_it_was(workspace):
    s = recording(workspace)
    before = [c.model_dump() for c in s.cards]
    (workspace / "ran.txt").unlink()
    replay = s.replay("offline/thinker").wait(60)
    assert replay.state == "done" and replay.error is None
    assert [c.model_dump() for c in s.cards] == before  # the recording, exactly as it was
    branch = replay.branch
    assert branch.parent_id == s.id and branch.settings.model == "offline/thinker"
    assert "replay on offline/thinker" in branch.title
    assert [c.text for c in branch.cards if isinstance(c, mw.UserInput)] == [
        c.text for c in s.cards if isinstance(c, mw.UserInput)
    ]
    assert any(isinstance(c, mw.Thinking) for c in branch.cards)  # the other model's own way of answering
    first, second = replay.turns
    assert (first.number, first.message, first.same_tools) == (1, "hello there", True)
    assert [t.name for t in second.recorded.tools] == [t.name for t in second.replayed.tools] == ["bash"]
    assert second.same_tools
    assert first.recorded.model == "offline/echo" and first.replayed.model == "offline/thinker"
    assert first.recorded.tokens > 0 and first.replayed.tokens > 0
    assert first.recorded.cost is None  # the offline models have no prices
    assert first.replayed.latency is not None and first.recorded.latency is not None
    # With recorded tools nothing ran again: the file the command appends to was not made.
    assert not (workspace / "ran.txt").exists()
    assert _calls(branch)[0].result == _calls(s)[0].result
    assert not any(isinstance(c, mw.Approval) for c in branch.cards)


def test_a_follower_hears_each_turn_then_the_end(workspace):
    s = recording(workspace)
    heard: list = []
    replay = s.replay()
    replay.follow(heard.append)
    replay.wait(60)
    assert [t.number for t in heard[:-1]] == [1, 2] and heard[-1] is None
    late: list = []
    replay.follow(late.append)  # after the end: what was made, then the end, at once
    assert [t.number if t else None for t in late] == [1, 2, None]


def test_the_report_names_both_models_a_line_per_turn_and_opens_the_diffs(workspace):
    s = recording(workspace)
    replay = s.replay("offline/thinker").wait(60)
    report = replay.report()
    assert "recorded on `offline/echo`, replayed on `offline/thinker`" in report
    assert "| 1 | hello there |" in report and "| 2 | call: bash" in report
    differing = [t for t in replay.turns if not t.same_text]
    assert differing, "the thinker's reply differs from the echo's"
    for turn in differing:
        assert f"<details open><summary>Turn {turn.number}:" in report
        assert turn.diff.startswith("--- recorded (offline/echo)\n+++ replayed (offline/thinker)")
        assert turn.diff in report
    html = replay._repr_html_()
    assert "<table>" in html and "<details open>" in html and "offline/thinker" in html


def test_the_report_in_markdown_shows_a_hostile_title_message_and_reply_as_text(workspace):
    from tests.markup import live_in_markdown

    attack = "<img src=x onerror=alert(1)> [x](javascript:alert(1))"
    s = mw.Session.new(title=f"the {attack} session")
    s.send(attack)
    s.edit(s.cards[-1], text=f"{attack} as recorded")  # so that the replay's reply differs: a diff shows
    report = s.replay().wait(60).report()
    assert live_in_markdown(report) == [], report
    assert "onerror=alert(1)" in report and "<details open>" in report  # shown, not dropped


def test_a_call_the_recording_did_not_make_is_told_so_and_runs_nothing(workspace):
    s = recording(workspace)
    (workspace / "ran.txt").unlink()
    # The person edited the recorded call: the replayed model's call no longer matches it.
    recorded = _calls(s)[0]
    s.edit(recorded, params={"command": "echo other"})
    replay = s.replay().wait(60)
    assert replay.model == "offline/echo"  # the recording's own model when none is named
    call = _calls(replay.branch)[0]
    assert call.is_error and "not in the recording of this turn" in (call.result or "")
    assert not (workspace / "ran.txt").exists()
    turn = replay.turns[1]
    assert not turn.same_tools
    assert "-bash(command='echo other')" in turn.tools_diff
    assert "+bash(command='echo ran >> ran.txt; cat ran.txt')" in turn.tools_diff
    with pytest.raises(AssertionError, match=r"Turns 2 differ from the recording") as info:
        mw.replay_check(s)
    assert "echo other" in str(info.value)


def test_live_tools_run_under_the_safety_level_and_wait_for_the_approval(workspace):
    s = recording(workspace)
    (workspace / "ran.txt").unlink()
    replay = s.replay(tools="live")
    approval = wait_for(lambda: replay.branch.pending_approval)
    assert approval.name == "bash" and not replay.done
    replay.branch.approve()
    replay.wait(60)
    assert replay.state == "done"
    assert (workspace / "ran.txt").read_text() == "ran\n"  # it ran, once, in the replay
    assert replay.turns[1].same_tools


def test_stop_ends_the_turn_at_work_and_asks_no_more(workspace):
    s = mw.Session.new()
    s.send("long: 2000")  # quick on offline/echo, about 100 s on offline/slow
    s.send("and then?")
    replay = s.replay("offline/slow")
    wait_for(lambda: any(isinstance(c, mw.ModelReply) for c in replay.branch.cards))  # it streams
    assert replay.stop()
    replay.wait(60)
    assert replay.state == "stopped"
    assert [c.text for c in replay.branch.cards if isinstance(c, mw.UserInput)] == ["long: 2000"]
    reply = next(c for c in replay.branch.cards if isinstance(c, mw.ModelReply))
    assert reply.interrupted
    assert replay.stop() is False  # ended already
    assert "stopped" in replay.report()


def test_upto_limits_the_messages_asked_and_bad_input_makes_nothing(workspace):
    s = recording(workspace)
    assert len(s.replay(upto=1).wait(60).turns) == 1
    second = [c for c in s.cards if isinstance(c, mw.UserInput)][1]
    assert len(s.replay(upto=second).wait(60).turns) == 2
    count = len(mw.list_sessions())
    with pytest.raises(mw.ConfigError, match="offline/nothing"):
        s.replay("offline/nothing")
    with pytest.raises(mw.InvalidInput, match='tools is "recorded"'):
        s.replay(tools="sometimes")
    with pytest.raises(mw.InvalidInput, match="upto names no card"):
        s.replay(upto="c_nope")
    with pytest.raises(mw.InvalidInput, match="upto must be 1 or more"):
        s.replay(upto=0)
    with pytest.raises(mw.InvalidInput, match="no message of the person"):
        mw.Session.new().replay()
    assert len(mw.list_sessions()) == count + 1  # only the empty session made just above


def test_an_agent_replays_with_its_system_prompt_as_its_file_says_now(workspace):
    (workspace / ".mewrk" / "agents").mkdir(parents=True)
    agent = workspace / ".mewrk" / "agents" / "terse.yaml"
    agent.write_text("model: offline/echo\nsystem_prompt: Be terse.\n")
    s = mw.Session.new(agent="terse")
    s.send("hello")
    agent.write_text("model: offline/echo\nsystem_prompt: Be terse, and kind.\n")
    replay = s.replay().wait(60)
    assert replay.branch.cards[0].text == "Be terse, and kind."
    sent = json.dumps(replay.branch.history[-1].request)
    assert "Be terse, and kind." in sent


def test_attachments_are_sent_again(workspace):
    (workspace / "notes.txt").write_text("the meeting is at noon")
    s = mw.Session.new()
    s.send("when is it?", attachments=["notes.txt"])
    (workspace / "notes.txt").unlink()  # the card holds what was attached, not the path
    replay = s.replay("offline/thinker").wait(60)
    message = next(c for c in replay.branch.cards if isinstance(c, mw.UserInput))
    assert [a.model_dump() for a in message.attachments] == [a.model_dump() for a in s.cards[0].attachments]
    parts = replay.branch.history[-1].request["messages"][-1]["parts"]
    assert any(part.get("text") == "the meeting is at noon" for part in parts)


def test_replay_check_passes_a_saved_session_and_replays_an_exported_notebook_elsewhere(
    workspace, tmp_path, monkeypatch
):
    s = recording(workspace)
    assert mw.replay_check(s).state == "done"  # the same tool calls: no AssertionError
    path = s.export(workspace / "recorded.ipynb")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    replay = mw.replay_check(str(path), model="offline/echo")
    assert replay.source.workspace.root == elsewhere
    assert [len(t.replayed.tools) for t in replay.turns] == [0, 1]
    with pytest.raises(mw.InvalidInput, match="no notebook at"):
        mw.replay_check(elsewhere / "missing.ipynb")
    with pytest.raises(mw.InvalidInput, match='compare is "tools" or "text"'):
        mw.replay_check(s, compare="both")


def test_the_sessions_own_stop_ends_its_replay_from_the_recording_or_the_branch(workspace):
    s = mw.Session.new()
    s.send("long: 2000")
    s.send("and then?")
    for stop_on in ("recording", "branch"):
        replay = s.replay("offline/slow")
        wait_for(lambda r=replay: any(isinstance(c, mw.ModelReply) for c in r.branch.cards))
        assert (s if stop_on == "recording" else replay.branch).stop()
        replay.wait(60)
        assert replay.state == "stopped", stop_on
        assert [c.text for c in replay.branch.cards if isinstance(c, mw.UserInput)] == ["long: 2000"]
