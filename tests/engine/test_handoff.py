"""Handoff into a new session with the offline models (C1–C3, C5): the thresholds, the armed notice and
tool (once), the handover's naming and links, the summary in place winning when both are due, every
refusal of compact now, the prompt profile's wording and the commands."""

from __future__ import annotations

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.assembly.context import request_size
from mewrk_jupyter.engine.background.tasks import running_background_work
from mewrk_jupyter.engine.compaction.handoff import ARMED_NOTICE, START_MESSAGE
from mewrk_jupyter.engine.compaction.now import APPROVAL_WAITS, NO_REPLY_SINCE, NO_REPLY_YET, TURN_RUNS
from mewrk_jupyter.engine.history_summary import summarise
from mewrk_jupyter.engine.toolbox.handoff_tool import ARMED_TOPIC
from mewrk_jupyter.store import sessions as session_rows
from mewrk_jupyter.widget.commands import run_command

from ..conftest import run_python, wait_for

TINY = 2_000  # offline/tiny's window: 80 % (the default handoff threshold) is 1,600 tokens
WORDS = "word " * 60  # about 75 tokens more in each request


def armed_notices(s: mw.Session) -> int:
    return sum(c.kind == "host_message" and c.topic == ARMED_TOPIC for c in s.cards)


def offers_handoff(entry) -> bool:
    return any(tool["name"] == "handoff" for tool in entry.request.get("tools", []))


def settled(handover_id: str) -> mw.Session:
    """The handover session once the turn it started with has ended (its thread too: a test's store is
    closed after it, and no run may still write then)."""
    h = mw.Session.open(handover_id)
    if h.last_run is not None:  # None: the object was made again, after its run and thread were gone
        h.last_run.wait()
    wait_for(lambda: h.state == "idle")
    return h


def talk_until_handed_over(s: mw.Session, most: int = 30) -> int:
    """Send messages until the conversation hands over and the handover's first turn ended; returns how
    many were sent."""
    for i in range(most):
        s.send(f"message {i} {WORDS}")
        if s.handovers:
            settled(s.handovers[-1])
            return i + 1
    raise AssertionError("the conversation never handed over")


def store_of(s: mw.Session) -> tuple:
    """Everything a refusal must leave as it was: the card rows, the session row, the history, handovers."""
    conn = s.stored_timeline.db.conn()
    cards = conn.execute("SELECT * FROM cards WHERE session_id = ? ORDER BY order_key", (s.id,)).fetchall()
    row = conn.execute("SELECT * FROM sessions WHERE id = ?", (s.id,)).fetchone()
    history = conn.execute("SELECT COUNT(*) FROM history WHERE session_id = ?", (s.id,)).fetchone()[0]
    return [tuple(r) for r in cards], tuple(row), history, s.handovers


def new_session(model: str = "offline/tiny", title: str = "demo") -> mw.Session:
    s = mw.Session.new(model, title=title, compaction="handoff")  # offline/echo would compact natively
    s.insert(mw.SystemPrompt(text="Answer briefly."))
    return s


def test_below_the_threshold_nothing_at_it_the_model_is_asked_once_and_hands_over(workspace):
    s = new_session()
    talk_until_handed_over(s)
    turns = [e for e in s.history if not e.model.startswith("tool:")]
    first_armed = next(i for i, e in enumerate(turns) if offers_handoff(e))
    sizes = [request_size(e.response["usage"]) for e in turns]
    assert all(size < 0.8 * TINY for size in sizes[: first_armed - 1])  # below: nothing
    assert sizes[first_armed - 1] >= 0.8 * TINY  # the request before the armed one reached it
    assert not any(offers_handoff(e) for e in turns[:first_armed])
    assert armed_notices(s) == 1
    kinds = [c.kind for c in s.cards]
    assert kinds[-5:] == ["user_input", "host_message", "model_reply", "tool_call", "handoff"]
    assert s.cards[-4].text == ARMED_NOTICE
    assert s.cards[-1].text.startswith("# Handoff documents\n\n## Goal\n- message 0")

    h = settled(s.handovers[0])
    assert (h.title, h.handover_of, h.handovers) == ("demo-handover-1", s.id, [])
    assert [c.kind for c in h.cards] == ["system_prompt", "handoff", "user_input", "model_reply"]
    assert h.cards[0].text == s.cards[0].text and h.cards[1].text == s.cards[-1].text
    assert h.cards[2].text == START_MESSAGE
    (only,) = h.history[0].request["messages"]
    assert [p["text"] for p in only["parts"]] == [s.cards[-1].text, START_MESSAGE]
    assert request_size(h.history[0].response["usage"]) < sizes[-1]


def test_the_original_is_asked_once_and_each_handover_is_numbered(workspace):
    mw.set_preferences(handoff_threshold=20)  # 6,400 tokens of offline/echo's 32k: room to go on after
    s = new_session("offline/echo")
    for i in range(12):
        s.send(f"question {i}\nlong: 900")
        if s.handovers:
            break
    settled(s.handovers[0])
    s.send("one more thing")  # the offline model hands off again; the engine does not ask again
    assert armed_notices(s) == 1
    settled(s.handovers[1])
    with pytest.raises(mw.NothingToCompact):
        s.compact_now()  # stopped at its handoff card again: nothing new to compact
    s.send("and another")
    settled(s.handovers[2])
    titles = [mw.Session.open(i).title for i in s.handovers]
    assert titles == ["demo-handover-1", "demo-handover-2", "demo-handover-3"]
    assert {mw.Session.open(i).handover_of for i in s.handovers} == {s.id}


def test_the_links_are_stored_and_read_in_another_process(workspace):
    s = new_session()
    talk_until_handed_over(s)
    h = settled(s.handovers[0])
    done = run_python(
        f"""
        import mewrk_jupyter as mw
        h = mw.Session.open("{h.id}")
        print(h.handover_of, mw.Session.open(h.handover_of).handovers, h.title)
        """,
        workspace,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == [s.id, f"['{h.id}']", "demo-handover-1"]


def test_auto_compaction_off_or_a_subagent_never_hands_over(workspace):
    mw.set_preferences(auto_compaction=False, handoff_threshold=20)
    s = mw.Session.new("offline/echo")
    for i in range(9):
        s.send(f"question {i}\nlong: 900")
    assert s.context.last_request >= 0.2 * 32_000 and armed_notices(s) == 0 and s.handovers == []

    mw.set_preferences(auto_compaction=True)
    sub = mw.Session.new("offline/echo")
    with sub.stored_timeline.db.tx() as conn:
        session_rows.set_subagent(conn, sub.id)
    for i in range(9):
        sub.send(f"question {i}\nlong: 900")
    assert armed_notices(sub) == 0 and sub.handovers == []


def test_a_lower_threshold_hands_off_earlier(workspace):
    mw.set_preferences(handoff_threshold=50)
    s = mw.Session.new("offline/tiny")
    talk_until_handed_over(s)
    turns = [e for e in s.history if not e.model.startswith("tool:")]
    first_armed = next(i for i, e in enumerate(turns) if offers_handoff(e))
    assert 0.5 * TINY <= request_size(turns[first_armed - 1].response["usage"]) < 0.8 * TINY


def test_when_the_summary_and_the_handoff_are_due_at_once_the_summary_acts(workspace):
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True)
    (agents / "main.yaml").write_text("model: offline/echo\nsummarize_at: 20\n")
    mw.set_preferences(handoff_threshold=20)  # both at 6,400 tokens of offline/echo's 32k
    s = mw.Session.new()
    for i in range(8):
        s.send(f"question {i}\nlong: 900")
    kinds = [c.kind for c in s.cards]
    assert "summary_divider" in kinds and ARMED_TOPIC not in [getattr(c, "topic", "") for c in s.cards]
    assert s.handovers == []


def test_the_prompt_profile_words_the_notice_and_the_start_message(workspace):
    prompts = workspace / ".mewrk" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "default.yaml").write_text(
        "handoff:\n  armed_notice: Pack up and hand off.\n  start_message: Carry on, please.\n"
    )
    s = new_session()
    talk_until_handed_over(s)
    assert s.cards[-4].text == "Pack up and hand off."
    h = settled(s.handovers[0])
    assert h.cards[2].text == "Carry on, please."


def test_compact_now_opens_the_handover_waiting_and_ignores_the_toggle(workspace):
    mw.set_preferences(auto_compaction=False)
    s = new_session("offline/echo", "plan")
    s.send("first question")
    h = s.compact_now()
    assert (h.title, h.handover_of, h.state, h.history) == ("plan-handover-1", s.id, "idle", [])
    assert [c.kind for c in h.cards] == ["system_prompt", "handoff"]
    assert s.cards[-1].kind == "handoff" and s.cards[-1].text.startswith("# Handoff documents")
    assert s.history[-1].response["compaction"] == "handoff"
    assert summarise(s.history[-1], None).title.endswith(" · handoff documents")  # the history says so
    assert "“first question”" in h.cards[-1].text
    h.send("next")
    (only,) = h.history[0].request["messages"]
    assert [p["text"] for p in only["parts"]] == [h.cards[1].text, "next"]


def test_compact_now_is_refused_without_a_reply_since_the_last_compaction(workspace):
    s = mw.Session.new("offline/echo", compaction="handoff")
    before = store_of(s)
    with pytest.raises(mw.NothingToCompact, match=f"^{NO_REPLY_YET}$"):
        s.compact_now()
    assert store_of(s) == before
    s.send("hello")
    h = s.compact_now()
    before = store_of(h)
    with pytest.raises(mw.NothingToCompact, match=f"^{NO_REPLY_SINCE}$"):
        h.compact_now()
    assert store_of(h) == before
    with pytest.raises(mw.NothingToCompact, match=f"^{NO_REPLY_SINCE}$"):
        s.compact_now()  # the original stopped at its handoff card too


def test_compact_now_is_refused_while_a_turn_runs(workspace):
    s = mw.Session.new("offline/echo", compaction="handoff")
    s.send("hello")
    s.configure(model="offline/slow")
    run = s.send("long: 400", wait=False)
    # Running, its request recorded: from here the turn only streams (the cards move, nothing compared).
    wait_for(lambda: s.state == "running" and len(s.history) == 2)
    before = store_of(s)[2:]
    with pytest.raises(mw.SessionBusy, match=f"^{TURN_RUNS}$"):
        s.compact_now()
    assert store_of(s)[2:] == before
    s.stop()
    run.wait()


def test_compact_now_is_refused_while_an_approval_waits(workspace):
    s = mw.Session.new("offline/echo")
    s.send('call: bash {"command": "echo hi"}')
    assert s.state == "awaiting_approval"
    before = store_of(s)
    with pytest.raises(mw.SessionBusy, match=f"^{APPROVAL_WAITS}$"):
        s.compact_now()
    assert store_of(s) == before


def test_compact_now_is_refused_while_background_work_runs(workspace):
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True)
    (agents / "main.yaml").write_text("model: offline/echo\ntools: [ls, read, bash, task_wait]\n")
    mw.trust(workspace)  # an agent whose bash may run a command in the background
    s = mw.Session.new()
    s.send('call: bash {"command": "sleep 30", "background": true}')
    s.approve()
    try:
        [work] = running_background_work(s.id)
        before = store_of(s)
        with pytest.raises(mw.SessionBusy) as err:
            s.compact_now()
        assert str(err.value) == (
            f"Background work is still running ({work}), and a new session would leave it behind: wait for "
            "it to finish, then compact."
        )
        assert store_of(s) == before
    finally:
        assert s.stop()
    wait_for(lambda: running_background_work(s.id) == [])
    assert s.compact_now().handover_of == s.id  # once it has ended, compact now goes through


def test_compact_now_from_the_composer_and_its_usage(workspace):
    s = mw.Session.new("offline/echo", title="plan")
    s.send("hello")
    answer = run_command(s, "/compact now")
    message, data = answer.message, answer.data
    (handover_id,) = s.handovers
    assert message == (
        f"Handed over to the new session “plan-handover-1” (`{handover_id}`); it waits for your next message."
    )
    assert data["session_id"] == handover_id and data["offer_open"] is True
    with pytest.raises(mw.NothingToCompact):  # words after /compact are the summary's instructions
        run_command(s, "/compact later")
