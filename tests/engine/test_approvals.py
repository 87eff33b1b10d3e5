"""Approvals (A1–A3): pause on *ask*, decide from Python, resume in a new process, a lost resume point."""

import sqlite3

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.turns.approvals import ApprovalLost
from mewrk_jupyter.errors import RESUME_LOST
from tests.conftest import forget_process_state, run_python

pytestmark = pytest.mark.both_stores

WRITE = 'call: write {"path": "notes.txt", "content": "hello"}'


def model_requests(s):
    return [h for h in s.history if h.protocol != "tool"]


def paused(workspace):
    s = mw.Session.new()
    s.send(WRITE)
    return s


def test_an_ask_call_pauses_the_turn_with_an_approval_card(workspace):
    s = paused(workspace)
    assert s.state == "awaiting_approval"
    assert mw.list_sessions()[0].state == "awaiting_approval"
    approval = s.cards[-1]
    assert approval.kind == "approval" and approval.decision == "pending"
    assert approval.name == "write" and approval.params == {"path": "notes.txt", "content": "hello"}
    assert s.pending_approval.id == approval.id
    call = s.card(approval.tool_card_id)
    assert call.status == "pending" and call.result is None
    assert not (workspace / "notes.txt").exists()
    assert s.last_run.state == "awaiting_approval"


def test_the_list_of_sessions_gives_each_its_own_state(workspace):
    # The listing reads the states of all sessions at once (engine/timeline/state.py: states_of).
    idle = mw.Session.new(title="idle")
    waiting = paused(workspace)
    after = mw.Session.new(title="idle too")
    listed = {info.id: info.state for info in mw.list_sessions()}
    assert listed == {idle.id: "idle", waiting.id: "awaiting_approval", after.id: "idle"}
    assert listed == {s.id: s.state for s in (idle, waiting, after)}


def test_approve_runs_the_call_and_the_model_goes_on(workspace):
    s = paused(workspace)
    run = s.approve()
    assert run.state == "done" and s.state == "idle"
    assert (workspace / "notes.txt").read_text() == "hello"
    approval = [c for c in s.cards if c.kind == "approval"][0]
    call = s.card(approval.tool_card_id)
    assert approval.decision == "approved" and call.status == "done" and not call.is_error
    assert s.cards[-1].kind == "model_reply" and "returned" in s.cards[-1].text
    tool_rows = [h for h in s.history if h.protocol == "tool"]
    assert tool_rows[-1].request["input"] == {"path": "notes.txt", "content": "hello"}


def test_a_rejection_reaches_the_model_as_a_statement_with_the_reason(workspace):
    s = paused(workspace)
    s.reject("not in this folder")
    call = [c for c in s.cards if c.kind == "tool_call"][0]
    assert call.status == "rejected" and not call.is_error
    assert not (workspace / "notes.txt").exists()
    result = model_requests(s)[-1].request["messages"][-1]["parts"][0]
    assert result["is_error"] is False
    assert "rejected" in result["content"] and "Their reason: not in this folder" in result["content"]
    assert [c for c in s.cards if c.kind == "approval"][0].reason == "not in this folder"


def test_the_executed_input_is_the_edited_one_and_the_history_records_it(workspace):
    s = paused(workspace)
    call_id = s.pending_approval.tool_card_id
    s.edit(call_id, params={"path": "other.txt", "content": "changed"})
    assert s.pending_approval.params == {"path": "other.txt", "content": "changed"}  # what will run
    s.undo()
    assert s.pending_approval.params == {"path": "notes.txt", "content": "hello"}
    s.redo()
    s.approve()
    assert (workspace / "other.txt").read_text() == "changed" and not (workspace / "notes.txt").exists()
    assert [h for h in s.history if h.protocol == "tool"][-1].request["input"]["path"] == "other.txt"


def test_approve_always_lets_later_calls_of_that_tool_run_but_not_in_a_branch(workspace):
    s = paused(workspace)
    s.approve(always=True)
    assert s.settings.approved_always == ["write"]
    s.send('call: write {"path": "second.txt", "content": "2"}')
    assert s.state == "idle" and (workspace / "second.txt").exists()
    b = s.branch(s.cards[-1].id)
    assert b.settings.safety_level == s.settings.safety_level and b.settings.approved_always == []
    b.send('call: write {"path": "third.txt", "content": "3"}')
    assert b.state == "awaiting_approval"


def test_sending_while_an_approval_waits_is_refused_and_loses_nothing(workspace):
    s = paused(workspace)
    before = len(s.cards)
    with pytest.raises(mw.SessionBusy, match="An approval is waiting"):
        s.send("something else")
    assert len(s.cards) == before and s.state == "awaiting_approval"


def test_no_approval_waiting_is_a_clear_error(workspace):
    s = mw.Session.new()
    with pytest.raises(mw.InvalidInput, match="No approval is waiting"):
        s.approve()


def test_an_approval_is_resumed_from_a_new_process(workspace):
    s = paused(workspace)
    sid = s.id
    forget_process_state()
    out = run_python(
        f"""
        import mewrk_jupyter as mw
        s = mw.Session.open({sid!r})
        assert s.state == "awaiting_approval", s.state
        print(s.pending_approval.name)
        s.approve()
        print(s.state)
        """,
        workspace,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["write", "idle"]
    assert (workspace / "notes.txt").read_text() == "hello"
    s = mw.Session.open(sid)
    assert s.cards[-1].kind == "model_reply" and s.state == "idle"


@pytest.mark.sqlite_file
def test_a_lost_resume_point_is_said_plainly_and_no_turn_starts(workspace):
    s = paused(workspace)
    conn = sqlite3.connect(workspace / ".mewrk" / "mewrk.db")
    conn.execute("DELETE FROM resume_points")
    conn.commit()
    runs_before = conn.execute("SELECT count(*) FROM runs").fetchone()[0]
    notices = []
    s.subscribe(lambda e: notices.append(e.text) if e.kind == "notice" else None)
    with pytest.raises(ApprovalLost) as caught:
        s.approve()
    assert (
        str(caught.value)
        == RESUME_LOST
        == ("This approval can no longer be resumed — send a new message to continue")
    )
    assert notices == [RESUME_LOST]
    assert conn.execute("SELECT count(*) FROM runs").fetchone()[0] == runs_before
    assert s.state == "idle" and not (workspace / "notes.txt").exists()
    # A new message goes through: the unrun call is answered, so the request stays well paired.
    s.send("start over")
    result = model_requests(s)[-1].request["messages"][-1]["parts"][0]
    assert result["type"] == "tool_result" and "not run" in result["content"]


def test_an_approval_survives_a_crash_of_the_process_that_paused(workspace):
    out = run_python(
        f"""
        import mewrk_jupyter as mw
        s = mw.Session.new()
        s.send({WRITE!r})
        print(s.id, s.state)
        """,
        workspace,
    )
    assert out.returncode == 0, out.stderr
    sid, state = out.stdout.split()
    assert state == "awaiting_approval"
    s = mw.Session.open(sid)
    assert s.state == "awaiting_approval" and s.pending_approval.name == "write"
    s.approve()
    assert (workspace / "notes.txt").read_text() == "hello"


def test_the_markdown_view_shows_the_approval_and_its_decision(workspace):
    from mewrk_jupyter.engine.render import card_markdown

    s = paused(workspace)
    shown = card_markdown(s.pending_approval)
    assert "waiting for your decision" in shown and "`write`" in shown and '"content": "hello"' in shown
    s.reject("no")
    approval = [c for c in s.cards if c.kind == "approval"][0]
    assert "rejected: no" in card_markdown(approval)
    assert "rejected" in card_markdown(s.card(approval.tool_card_id))


def test_deciding_while_this_process_still_streams_waits_for_the_pause(workspace):
    s = mw.Session.new(model="offline/slow")
    s.send(f"long: 30\n{WRITE}", wait=False)
    assert s.state == "running"
    s.approve()
    assert (workspace / "notes.txt").read_text() == "hello" and s.state == "idle"


def test_a_waiting_approval_cannot_be_deleted_but_its_tool_call_can(workspace):
    s = paused(workspace)
    approval = s.pending_approval
    with pytest.raises(mw.NotEditable, match="waiting for your decision"):
        s.delete(approval.id)
    s.delete(approval.tool_card_id)  # the person removed the call: approving runs nothing
    s.approve()
    assert not (workspace / "notes.txt").exists() and s.state == "idle"
    assert s.cards[-1].kind == "model_reply"
