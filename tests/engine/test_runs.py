"""One turn per session across processes (R1–R3), stop, and a crash mid-turn that loses nothing committed."""

import json
import os
import signal
import subprocess
import sys
import textwrap

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.store import runs as run_rows
from tests.conftest import forget_process_state, run_python, wait_for

pytestmark = pytest.mark.both_stores

SLOW_TURN = """
import mewrk_jupyter as mw, sys
s = mw.Session.open(sys.argv[1])
print("started", flush=True)
s.send("long: 400", wait=True)
print("ended", flush=True)
"""


def start_slow_turn(workspace, session_id):
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(SLOW_TURN), session_id],
        cwd=workspace,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "started"
    return proc


def streamed_reply(session_id, after: int):
    """Wait for a reply card with some text beyond the first `after` cards, read as a new process would."""

    def check():
        forget_process_state()
        cards = mw.Session.open(session_id).cards
        if len(cards) > after + 1 and cards[-1].kind == "model_reply" and cards[-1].text:
            return cards[-1]
        return None

    return check


def test_another_process_is_refused_while_a_turn_runs_and_loses_nothing(workspace):
    s = mw.Session.new(model="offline/slow")
    s.send("hello")
    proc = start_slow_turn(workspace, s.id)
    try:
        wait_for(lambda: s.state == "running")
        with pytest.raises(mw.SessionBusy) as refused:
            s.send("a second window speaks")
        assert str(refused.value) == "This session is running in another window — stop it to take over"
        assert all(getattr(c, "text", "") != "a second window speaks" for c in s.cards)
        assert [x.state for x in mw.list_sessions()] == ["running"]
        # Stop is the takeover: it stops the turn that the other process owns (R3).
        assert s.stop()
        proc.wait(timeout=30)
    finally:
        proc.kill()
    assert s.state == "idle"
    runs = run_rows.list_runs(s.stored_timeline.db.conn(), s.id)
    assert [r["state"] for r in runs] == ["done", "stopped"]
    reply = s.cards[-1]
    assert reply.kind == "model_reply" and reply.interrupted and reply.text
    s.send("now it is my turn")
    assert s.cards[-1].text.startswith("You said: “now it is my turn”")


def test_a_process_killed_mid_turn_loses_nothing_committed(workspace):
    s = mw.Session.new(model="offline/slow")
    s.send("before the crash")
    s.edit(s.cards[-1].id, text="an edit that was committed")
    committed = [c.model_dump() for c in s.cards]
    proc = start_slow_turn(workspace, s.id)
    partial = wait_for(streamed_reply(s.id, after=len(committed)))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)

    forget_process_state()  # this process now reads the store as a new one would
    reopened = mw.Session.open(s.id)
    cards = reopened.cards
    assert [c.model_dump() for c in cards[:2]] == committed
    assert cards[2].text == "long: 400"
    crashed = cards[3]
    assert crashed.kind == "model_reply" and crashed.interrupted and crashed.complete
    assert crashed.text.startswith(partial.text)
    assert reopened.state == "idle"
    assert [r["state"] for r in run_rows.list_runs(reopened.stored_timeline.db.conn(), s.id)] == [
        "done",
        "interrupted",
    ]
    reopened.send()  # the session can continue after the crash
    assert reopened.cards[-1].text.startswith("Continuing from the timeline")


def test_stop_from_this_process_keeps_the_partial_reply(workspace):
    s = mw.Session.new(model="offline/slow")
    run = s.send("long: 300", wait=False)
    wait_for(lambda: s.cards[-1].kind == "model_reply" and s.cards[-1].text)
    assert s.stop()
    run.wait()
    assert run.state == "stopped"
    reply = s.cards[-1]
    assert reply.interrupted and 0 < len(reply.text.split()) < 300
    assert s.history[-1].response["stop"] == "stopped"
    assert not s.stop()  # nothing runs any more


def test_run_events_are_stored_coalesced(workspace):
    s = mw.Session.new()
    run = s.send("long: 500")
    rows = run_rows.load_events(s.stored_timeline.db.conn(), run.id)
    text = "".join(json.loads(r["data"])["text"] for r in rows if r["kind"] == "text")
    assert text == s.cards[-1].text
    assert len(rows) < 50  # coalesced, not one row per token (500 tokens streamed)


def test_streamed_text_is_logged_by_card_across_the_stores_flushes(workspace):
    # offline/slow takes 50 ms a token: the text reaches the store in several flushes while it streams.
    s = mw.Session.new(model="offline/slow")
    run = s.send("long: 14")
    texts = [e.data for e in s.run_events(run.id) if e.kind == "text"]
    assert len(texts) > 1  # one event per flush, not one per token
    assert {t["card_id"] for t in texts} == {s.cards[-1].id}
    assert "".join(t["text"] for t in texts) == s.cards[-1].text


def test_thinking_and_reply_text_are_logged_each_under_its_card(workspace):
    s = mw.Session.new(model="offline/thinker")
    run = s.send("think: weigh it\nhello")
    thinking, reply = s.cards[-2], s.cards[-1]
    assert (thinking.kind, reply.kind) == ("thinking", "model_reply")
    events = [e.data for e in s.run_events(run.id) if e.kind == "text"]
    assert [e["card_id"] for e in events] == [thinking.id, reply.id]
    assert [e["text"] for e in events] == [thinking.text, reply.text]
    s.edit(reply.id, text="changed afterwards")  # an edit is no streamed text: the log stays as it was
    assert [e.data for e in s.run_events(run.id) if e.kind == "text"] == events


def test_persistence_across_processes(workspace):
    s = mw.Session.new(title="persisted")
    s.insert(mw.SystemPrompt(text="be kind"))
    s.send("hello")
    s.insert(mw.Thinking(text="a note"), after=s.cards[0].id)
    expected = [c.model_dump() for c in s.cards]
    out = run_python(
        f"""
        import json, mewrk_jupyter as mw
        s = mw.Session.open({s.id!r})
        print(json.dumps({{"title": s.title, "cards": [c.model_dump() for c in s.cards],
                           "history": len(s.history)}}))
        """,
        cwd=workspace,
    )
    assert out.returncode == 0, out.stderr
    seen = json.loads(out.stdout)
    assert seen == {"title": "persisted", "cards": expected, "history": 1}


def test_a_change_made_by_another_process_is_seen_here(workspace):
    s = mw.Session.new()
    s.insert(mw.UserInput(text="mine"))
    assert len(s.cards) == 1
    out = run_python(
        f"""
        import mewrk_jupyter as mw
        s = mw.Session.open({s.id!r})
        s.edit(s.cards[0].id, text="theirs")
        s.insert(mw.UserInput(text="added elsewhere"))
        """,
        cwd=workspace,
    )
    assert out.returncode == 0, out.stderr
    assert [c.text for c in s.cards] == ["theirs", "added elsewhere"]


def test_open_unknown_session_is_a_clear_error(workspace):
    mw.Session.new()
    with pytest.raises(mw.SessionNotFound, match="No session `nope`"):
        mw.Session.open("nope")


def test_open_accepts_an_unambiguous_id_prefix_and_returns_the_live_object(workspace):
    s = mw.Session.new()
    assert mw.Session.open(s.id[:6]) is s


def test_runs_and_their_events_read_from_python(workspace):
    s = mw.Session.new()
    first = s.send("hello")
    second = s.send("long: 30")
    runs = s.runs()
    assert [(r.id, r.state, r.running) for r in runs] == [
        (first.id, "done", False),
        (second.id, "done", False),
    ]
    assert all(r.session_id == s.id and r.started_at <= r.ended_at for r in runs)
    events = s.run_events(second.id)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    assert "".join(e.data["text"] for e in events if e.kind == "text") == s.cards[-1].text
    assert s.run_events(second.id, after=events[-1].seq) == []
    assert s.run_info(second.id) == runs[1]
    with pytest.raises(mw.RunNotFound, match="No run `run_nope` in session"):
        s.run_events("run_nope")
    other = mw.Session.new()
    with pytest.raises(mw.RunNotFound):  # a run of another session is not this session's
        other.run_events(first.id)


def test_a_run_whose_process_died_reads_as_ended(workspace):
    s = mw.Session.new(model="offline/slow")
    proc = start_slow_turn(workspace, s.id)
    wait_for(lambda: any(r.running for r in s.runs()))
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait(timeout=30)
    forget_process_state()
    runs = mw.Session.open(s.id).runs()
    assert [(r.state, r.running) for r in runs] == [("interrupted", False)]
