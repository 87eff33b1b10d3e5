"""The widget's Replay (#38), kernel side: the action starts a replay of the session shown and shows its
branch in place, where each turn's comparison reaches the views as a card; Stop there ends the replay; an
unknown model is refused in one sentence, making nothing."""

from __future__ import annotations

import mewrk_jupyter as mw
from mewrk_jupyter.engine.replay.run import replay_on
from tests.conftest import wait_for

from .recording import Client


def test_replay_shows_the_branch_here_and_its_comparisons_reach_the_views(session, widget):
    widget.hello()
    session.send("and again", wait=True)
    result = widget.do("replay", model="offline/thinker", tools="recorded")
    assert result["ok"], result["message"]
    branch_id = result["data"]["session_id"]
    branch = mw.Session.open(branch_id, workspace=session.workspace.root)
    assert branch.parent_id == session.id and widget.session is branch
    assert result["message"] == (
        f"Replaying “widget test” on offline/thinker (2 messages, tool calls answered from the recording) in "
        f"“{branch.title}” (id {branch_id}): each turn's comparison follows its new reply."
    )
    snapshot = [m for m in widget.of("snapshot") if m["session"]["id"] == branch_id]
    assert snapshot and snapshot[-1]["came_from"]["id"] == session.id  # "back" returns to the recording
    wait_for(lambda: replay_on(branch_id) is None, timeout=60)
    view = Client().apply_all(widget.sent)
    compared = [c for c in view.cards.values() if c["kind"] == "comparison"]
    assert sorted(c["number"] for c in compared) == [1, 2]
    assert all(c["source_id"] == session.id and c["replayed"]["model"] == "offline/thinker" for c in compared)
    assert {c["id"] for c in compared} == {c.id for c in branch.cards if isinstance(c, mw.Comparison)}
    assert widget.do("back")["data"]["session_id"] == session.id


def test_stop_on_the_branch_ends_the_replay_not_just_its_turn(session, widget):
    widget.hello()
    session.send("long: 2000", wait=True)
    session.send("and then?", wait=True)
    result = widget.do("replay", model="offline/slow")
    branch = widget.session
    wait_for(lambda: any(isinstance(c, mw.ModelReply) for c in branch.cards))  # the first turn streams
    replay = replay_on(branch.id)
    assert replay is not None and result["ok"]
    stopped = widget.do("stop")
    assert stopped["message"] == "Stopping the replay: it asks no more messages."
    replay.wait(60)
    assert replay.state == "stopped" and replay_on(branch.id) is None
    assert [c.text for c in branch.cards if isinstance(c, mw.UserInput)] == ["hello"]  # asked no more


def test_an_unknown_model_is_refused_in_one_sentence_and_nothing_is_made(session, widget):
    widget.hello()
    count = len(mw.list_sessions(workspace=session.workspace.root))
    result = widget.do("replay", model="offline/nothing")
    assert not result["ok"] and "offline/nothing" in result["message"]
    assert "Traceback" not in result["message"] and widget.session is session
    assert len(mw.list_sessions(workspace=session.workspace.root)) == count
