"""Summary compaction in place (C6) with the offline models: the divider, what requests carry after it,
every refusal, undo, a second compaction, the agent's `summarize_at` threshold, and the surfaces."""

from __future__ import annotations

import time

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.assembly.cut import SUMMARY_OPENING
from mewrk_jupyter.engine.compaction import COMPACTING
from mewrk_jupyter.engine.compaction.prompt import INSTRUCTION
from mewrk_jupyter.engine.compaction.summary import APPROVAL_WAITS, CHANGED, STARTED, TURN_RUNS
from mewrk_jupyter.engine.events import StatusChanged
from mewrk_jupyter.engine.history_summary import summarise
from mewrk_jupyter.store import runs as run_rows
from mewrk_jupyter.widget.commands import run_command

LONG = "long: 900"  # each reply about 900 tokens: five exchanges make a context worth compacting


def chat(s: mw.Session, n: int = 5, start: int = 0) -> None:
    for i in range(start, start + n):
        s.send(f"question {i}\n{LONG}")


def store_of(s: mw.Session) -> tuple:
    """Everything a refusal must leave as it was: the card rows, the revision, the history."""
    conn = s.stored_timeline.db.conn()
    cards = conn.execute("SELECT * FROM cards WHERE session_id = ? ORDER BY order_key", (s.id,)).fetchall()
    rev = conn.execute("SELECT * FROM sessions WHERE id = ?", (s.id,)).fetchone()
    history = conn.execute("SELECT COUNT(*) FROM history WHERE session_id = ?", (s.id,)).fetchone()[0]
    return [tuple(r) for r in cards], tuple(rev), history


def texts(message: dict) -> list[str]:
    return [p["text"] for p in message["parts"] if p["type"] == "text"]


def test_compact_places_a_divider_and_later_requests_carry_the_summary_instead_of_the_cards(workspace):
    s = mw.Session.new("offline/echo")
    s.insert(mw.SystemPrompt(text="Answer briefly."))
    chat(s)
    above = [c.id for c in s.cards]
    statuses = []
    s.subscribe(lambda e: statuses.append(e.text) if isinstance(e, StatusChanged) else None)
    divider = s.compact()

    assert statuses == [COMPACTING, None]  # the composer's status line, while the call runs
    assert s.cards[-1].id == divider.id and [c.id for c in s.cards[:-1]] == above  # nothing above moved
    assert divider.covered == 10 and divider.tokens_saved > 3000
    text = mw.cards.words.divider_text(10, divider.tokens_saved)
    assert divider.title_line() == text
    assert text.startswith("10 earlier messages · compacted into a summary · ≈") and text.endswith(
        "k tokens saved"
    )
    assert divider.summary.startswith("## Goal\n- question 0 long: 900")
    assert "## Next step" in divider.summary and "“question 4 long: 900”" in divider.summary

    # The summary call: the conversation as the next request would carry it, with the question at its end.
    call = s.history[-1]
    assert call.response["compaction"] == "summary"
    assert summarise(call, None).title == f"Request {call.number} · compaction summary"  # the history says so
    assert call.request["system"][-1] == "Answer briefly."
    assert texts(call.request["messages"][-1])[-1] == INSTRUCTION
    assert len(call.request["messages"]) == 11

    s.send("and now?")
    sent = s.history[-1].request
    assert sent["system"][-1] == "Answer briefly."  # a system prompt above the cut is still sent
    (only,) = sent["messages"]  # the summary and the new question, one user message
    assert only["role"] == "user"
    summary, question = texts(only)
    assert summary == f"{SUMMARY_OPENING}\n\n<summary>\n{divider.summary}\n</summary>"
    assert question == "and now?"
    assert s.cards[-1].text.startswith("You said: “and now?”")  # the offline echo leaves the summary out
    assert s.context.next_request < 1500  # the dashboard's next request shrank with it


def test_the_context_figures_pass_over_the_summary_call(workspace):
    s = mw.Session.new("offline/echo")
    chat(s)
    last = s.context.last_request
    s.compact()
    assert s.context.last_request == last  # the summary call is not the conversation's last request


@pytest.mark.parametrize(
    ("messages", "long", "why"),
    [
        (1, LONG, "the conversation has 2 messages so far, and a summary needs at least 4."),
        (3, "", "the context is about"),
    ],
)
def test_too_little_is_refused_and_nothing_changes_or_is_sent(workspace, messages, long, why):
    s = mw.Session.new("offline/echo")
    for i in range(messages):
        s.send(f"question {i}\n{long}")
    before = store_of(s)
    with pytest.raises(mw.NothingToCompact) as err:
        s.compact()
    assert str(err.value).startswith("Nothing worth compacting: ")
    assert why in str(err.value)
    if not long:
        assert str(err.value).endswith("tokens, under the 4k or so a summary needs to save anything.")
    assert store_of(s) == before


def test_a_compaction_is_refused_while_a_turn_runs(workspace):
    s = mw.Session.new("offline/echo")
    chat(s)
    s.configure(model="offline/slow")
    run = s.send("long: 400", wait=False)
    try:
        with pytest.raises(mw.SessionBusy) as err:
            s.compact()
        assert str(err.value) == TURN_RUNS
    finally:
        s.stop()
        run.wait()
    assert all(INSTRUCTION not in str(h.request) for h in s.history)  # no summary was asked for
    assert not any(c.kind == "summary_divider" for c in s.cards)


def test_a_compaction_is_refused_while_an_approval_waits(workspace):
    s = mw.Session.new("offline/echo")
    chat(s)
    s.send('call: write {"path": "notes.txt", "content": "hello"}')
    assert s.state == "awaiting_approval"
    before = store_of(s)
    with pytest.raises(mw.SessionBusy) as err:
        s.compact()
    assert str(err.value) == APPROVAL_WAITS
    assert store_of(s) == before


def test_undo_takes_the_divider_away_and_the_old_context_comes_back(workspace):
    s = mw.Session.new("offline/echo")
    chat(s)
    s.send("before")
    without = s.history[-1].request["messages"]
    divider = s.compact()
    assert s.undo() == "Undid: compacted the conversation"
    assert divider.id not in [c.id for c in s.cards]
    s.send("after")
    assert s.history[-1].request["messages"][: len(without)] == without  # every card is sent again
    assert s.redo() == "Redid: compacted the conversation"
    assert divider.id in [c.id for c in s.cards]


def test_a_second_compaction_summarises_from_the_last_divider_on(workspace):
    s = mw.Session.new("offline/echo")
    chat(s)
    first = s.compact()
    chat(s, 6, start=5)
    second = s.compact()

    request = s.history[-1].request["messages"]
    assert texts(request[0])[0] == f"{SUMMARY_OPENING}\n\n<summary>\n{first.summary}\n</summary>"
    assert "question 0" not in str(request[1:])  # the cards above the first divider are not sent
    assert len(request) == 1 + 12  # the first summary, then the six exchanges since
    assert second.covered == 22  # every message above it: the summary stands for them all
    assert "“question 0 long: 900”" in second.summary and "“question 10 long: 900”" in second.summary
    s.send("next")
    (only,) = s.history[-1].request["messages"]
    assert texts(only)[0] == f"{SUMMARY_OPENING}\n\n<summary>\n{second.summary}\n</summary>"


def test_three_messages_since_the_last_summary_are_too_few(workspace):
    s = mw.Session.new("offline/echo")
    chat(s)
    s.compact()
    s.send(f"one\n{LONG}")
    s.insert(mw.UserInput(text="two"))
    before = store_of(s)
    with pytest.raises(mw.NothingToCompact) as err:
        s.compact()
    assert str(err.value) == (
        "Nothing worth compacting: the conversation has 3 messages since the last summary, "
        "and a summary needs at least 4."
    )
    assert store_of(s) == before


def test_the_offline_summary_is_the_same_for_the_same_conversation(workspace):
    a, b = mw.Session.new("offline/echo"), mw.Session.new("offline/echo")
    chat(a)
    chat(b)
    assert a.compact().summary == b.compact().summary


def write_agent(workspace, summarize_at: float) -> None:
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    (agents / "main.yaml").write_text(f"model: offline/echo\nsummarize_at: {summarize_at}\n")


def test_at_summarize_at_the_turn_compacts_before_its_request(workspace):
    write_agent(workspace, 0.14)  # 14 % of offline/echo's 32k window: 4,480 tokens
    s = mw.Session.new()
    chat(s, 4)
    assert s.context.last_request < 4480 and not any(c.kind == "summary_divider" for c in s.cards)
    chat(s, 1, start=4)
    assert s.context.last_request >= 4480 and not any(c.kind == "summary_divider" for c in s.cards)
    run = s.send("go on")  # the check before this request finds the last one past the threshold
    kinds = [c.kind for c in s.cards]
    assert kinds[-3:] == ["user_input", "summary_divider", "model_reply"]  # cut after the new question
    assert s.cards[-1].text == "Going on from the summary of the earlier conversation."  # the offline echo
    divider = s.cards[-2]
    assert divider.covered == 11 and divider.tokens_saved > 3000  # with its numbers at once
    summary_call, request = s.history[-2], s.history[-1]
    assert summary_call.run_id == run.id and summary_call.response["compaction"] == "summary"
    assert "“go on”" in divider.summary  # the question the turn is answering is in the summary
    (only,) = request.request["messages"]
    assert texts(only) == [f"{SUMMARY_OPENING}\n\n<summary>\n{divider.summary}\n</summary>"]
    s.send("more")  # the last request is small again: no second compaction
    assert [c.kind for c in s.cards].count("summary_divider") == 1


def test_summarize_at_0_never_compacts_by_itself(workspace):
    write_agent(workspace, 0)
    s = mw.Session.new()
    chat(s, 7)
    assert s.context.last_request > 4800
    assert not any(c.kind == "summary_divider" for c in s.cards)
    assert s.compact().kind == "summary_divider"  # by hand it still works


def test_the_built_in_agent_never_compacts_by_itself(workspace):
    s = mw.Session.new("offline/echo")
    chat(s, 8)
    assert s.context.last_request > 0.2 * 32_000
    assert not any(c.kind == "summary_divider" for c in s.cards)


def test_compact_from_the_composer_and_the_magic_says_what_it_did(workspace):
    s = mw.Session.new("offline/echo")
    chat(s)
    message = run_command(s, "/compact").message
    assert message == f"Compacted: {s.cards[-1].title_line()}."
    with pytest.raises(
        mw.NothingToCompact, match="^Nothing worth compacting: the conversation has 0 messages"
    ):
        run_command(s, "/compact")


def test_stop_during_a_turns_summary_ends_the_turn_stopped_and_places_no_divider(workspace):
    write_agent(workspace, 0.14)
    s = mw.Session.new()
    chat(s)
    s.configure(model="offline/slow")  # the summary is written word by word: there is time to stop it
    statuses = []
    s.subscribe(lambda e: statuses.append(e.text) if isinstance(e, StatusChanged) else None)
    run = s.send("go on", wait=False)
    deadline = time.monotonic() + 10
    while COMPACTING not in statuses and time.monotonic() < deadline:
        time.sleep(0.01)
    assert s.stop()
    run.wait()
    assert run.state == "stopped" and run.error is None
    assert statuses == [COMPACTING, None]
    assert [c.kind for c in s.cards].count("summary_divider") == 0
    assert s.history[-1].response["compaction"] == "summary"  # what was sent is in the history


def on_compacting(s: mw.Session, act) -> None:
    """Call `act` once, while the summary is being written."""
    done = []

    def listener(event) -> None:
        if isinstance(event, StatusChanged) and event.text == COMPACTING and not done:
            done.append(True)
            act()

    s.subscribe(listener)


def test_a_change_while_the_summary_is_written_places_no_divider(workspace):
    s = mw.Session.new("offline/echo")
    chat(s)
    on_compacting(s, lambda: s.insert(mw.UserInput(text="typed meanwhile")))
    with pytest.raises(mw.SessionBusy) as err:
        s.compact()
    assert str(err.value) == CHANGED
    assert [c.kind for c in s.cards].count("summary_divider") == 0
    assert s.cards[-1].text == "typed meanwhile"  # what changed meanwhile is kept


def test_a_turn_started_elsewhere_while_the_summary_is_written_places_no_divider(workspace):
    s = mw.Session.new("offline/echo")
    chat(s)

    def another_window_starts_a_turn() -> None:
        with s.stored_timeline.db.tx() as conn:
            run_rows.claim_turn(conn, s.id, "run_elsewhere", "elsewhere:1")

    on_compacting(s, another_window_starts_a_turn)
    with pytest.raises(mw.SessionBusy) as err:
        s.compact()
    assert str(err.value) == STARTED
    assert [c.kind for c in s.cards].count("summary_divider") == 0
    with s.stored_timeline.db.tx() as conn:
        run_rows.end_run(conn, "run_elsewhere", "done", None)


def test_the_cards_above_the_divider_stay_readable_and_editable_and_the_summary_still_stands_for_them(
    workspace,
):
    s = mw.Session.new("offline/echo")
    chat(s)
    divider = s.compact()
    first = s.cards[0]
    assert first.text == f"question 0\n{LONG}"  # readable, as it was
    s.edit(first.id, text="question 0, reworded")
    assert s.card(first.id).text == "question 0, reworded" and s.cards[-1].id == divider.id
    s.send("and now?")
    sent = s.history[-1].request
    assert "reworded" not in str(sent)  # above the divider the model reads the summary, not the cards
    assert texts(sent["messages"][0])[0] == f"{SUMMARY_OPENING}\n\n<summary>\n{divider.summary}\n</summary>"
    assert texts(s.history[0].request["messages"][0]) == [
        f"question 0\n{LONG}"
    ]  # the history keeps it as sent
