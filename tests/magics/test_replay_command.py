"""`%mewrk replay` (#38): the current session's messages asked again on a branch, the report in the cell,
the branch one `%mewrk use` away; bad input refused with the engine's sentence, nothing made; `%mewrk stop`
stops it; and in a real ipykernel the cell returns at once while its output follows the replay."""

from __future__ import annotations

from typing import Any

import mewrk_jupyter as mw
from mewrk_jupyter import magics
from mewrk_jupyter.commands import replay as replays
from tests.conftest import wait_for
from tests.magics import test_kernel

kernel = test_kernel.kernel  # the same real-kernel fixture
markdown_of = test_kernel.markdown_of

RECORD = [
    "%mewrk new recorded",
    "%mewrk send hello there",
    '%mewrk send call: bash {"command": "echo ran >> ran.txt; cat ran.txt"}',
    "%mewrk approve",
]


def _record(mewrk) -> mw.Session:
    """A session on offline/echo: a greeting, then a command that appends to a file, approved."""
    for line in RECORD:
        mewrk(line.removeprefix("%mewrk "))
        run = magics.current_session().last_run
        if run is not None:
            run.wait()
    return magics.current_session()


def test_replay_shows_the_report_and_says_how_to_open_the_branch(mewrk, workspace):
    s = _record(mewrk)
    before = [c.model_dump() for c in s.cards]
    (workspace / "ran.txt").unlink()
    out = mewrk("replay --model offline/thinker")
    branch = next(x for x in mw.list_sessions() if x.parent == s.id)
    assert out.startswith(
        f"Replaying 2 messages on `offline/thinker` with recorded tools, in the branch `{branch.id}`: "
        f"`%mewrk use {branch.id}` opens it; `%mewrk stop` stops the replay."
    )
    assert "recorded on `offline/echo`, replayed on `offline/thinker` with recorded tools" in out
    assert "done, 2 of 2 messages asked. The same tool calls in 2 of 2" in out
    assert "| 1 | hello there | same |" in out and "<details open><summary>Turn 2:" in out
    assert out.rstrip().endswith(
        f"The branch `{branch.id}` keeps the replay's cards: `%mewrk use {branch.id}` opens it."
    )
    assert not (workspace / "ran.txt").exists()  # the recorded result was given; nothing ran again
    assert magics.current_session().id == s.id  # the recording stays current, exactly as it was
    assert [c.model_dump() for c in s.cards] == before
    assert mewrk(f"use {branch.id}").startswith(
        f"Switched to “recorded (replay on offline/thinker)” (id {branch.id})"
    )
    assert magics.current_session().settings.model == "offline/thinker"


def test_upto_agent_and_live_reach_the_replay(mewrk, workspace):
    s = _record(mewrk)
    first = mewrk("replay --upto 1")
    assert "Replaying 1 message on `offline/echo`" in first and "1 of 1 messages asked" in first
    second = s.cards[[c.kind for c in s.cards].index("user_input", 1)]
    assert "2 of 2 messages asked" in mewrk(f"replay --upto={second.id[:8]} --agent main")
    # Live tools run the command again: its approval waits on the branch, where the person decides it.
    (workspace / "ran.txt").unlink()
    replay = replays.start(s, tools="live")
    wait_for(lambda: replay.branch.pending_approval)
    mewrk(f"use {replay.branch.id}")
    mewrk("approve")
    assert replay.wait(60).state == "done" and (workspace / "ran.txt").read_text() == "ran\n"


def test_bad_input_gets_the_engine_s_sentence_and_makes_nothing(mewrk):
    _record(mewrk)
    count = len(mw.list_sessions())
    assert mewrk("replay --model offline/nothing").startswith("**mewrk:** The model `offline/nothing`")
    assert mewrk("replay --upto 0").strip() == (
        "**mewrk:** upto must be 1 or more messages (this session has 2), not 0."
    )
    assert mewrk("replay --upto c_nope").startswith("**mewrk:** No card `c_nope`")
    assert mewrk("replay --agent nobody").startswith("**mewrk:** ")
    for line in ("replay --model", "replay --fast", "replay now"):
        assert mewrk(line).startswith(
            "Usage: `%mewrk replay [--model M] [--agent A] [--upto N/CARD] [--live]` — "
        )
    mewrk("new --fresh empty")
    assert mewrk("replay").strip() == "**mewrk:** This session has no message of the person to replay."
    assert len(mw.list_sessions()) == count + 1  # only the empty session


def test_stop_stops_the_replay_of_the_current_session(mewrk):
    mewrk("new")
    s = magics.current_session()
    s.send("long: 2000")  # quick on offline/echo, about 100 s on offline/slow
    s.send("and then?")
    replay = replays.start(s, "offline/slow")
    wait_for(lambda: any(isinstance(c, mw.ModelReply) for c in replay.branch.cards))  # its first turn streams
    assert mewrk("stop").strip() == "Stopping the replay: it asks no more messages."
    assert replay.wait(60).state == "stopped" and len(replay.turns) <= 1
    assert mewrk("stop").strip() == "Nothing is running."


def _outputs(kernel: test_kernel.Kernel, cell_id: str) -> list[dict[str, Any]]:
    return [m for m in kernel.iopub if m["parent_header"].get("msg_id") == cell_id]


def test_in_a_kernel_the_cell_returns_at_once_and_its_output_follows_the_replay(kernel):
    kernel.execute("%load_ext mewrk_jupyter")
    for line in RECORD:
        kernel.execute(line)
        kernel.execute(
            "from mewrk_jupyter.magics import current_session as _c\n_c().last_run and _c().last_run.wait()"
        )
    cell_id, _ = kernel.execute("%mewrk replay --model offline/slow")

    def final(msg: dict[str, Any]) -> bool:
        return msg["msg_type"] == "update_display_data" and "keeps the replay's cards" in markdown_of(msg)

    last = kernel.wait_for_message(final)
    assert "done, 2 of 2 messages asked" in markdown_of(last)
    shown = [m for m in _outputs(kernel, cell_id) if m["msg_type"] == "display_data"]
    assert markdown_of(shown[0]).startswith("Replaying 2 messages on `offline/slow`")
    assert "_Replaying… 0 of 2 messages asked; `%mewrk stop` stops it._" in markdown_of(shown[1])
    # The updates carry the cell that started the replay, so they reach its output, turn by turn.
    display_id = shown[1]["content"]["transient"]["display_id"]
    updates = [
        m
        for m in kernel.iopub
        if m["msg_type"] == "update_display_data" and m["content"]["transient"]["display_id"] == display_id
    ]
    assert last in updates and all(m["parent_header"].get("msg_id") == cell_id for m in updates)
    assert any("1 of 2 messages asked" in markdown_of(m) for m in updates)
    assert not [m for m in kernel.iopub if m["msg_type"] == "error" or m["content"].get("name") == "stderr"]


def test_in_the_composer_replay_offers_the_branch_and_stop_there_stops_it(mewrk):
    from tests.widget.recording import RecordingWidget

    mewrk("new")
    s = magics.current_session()
    s.send("long: 2000")
    s.send("and then?")
    view = RecordingWidget(s)
    view.hello()
    answer = view.do("command", text="/replay --model offline/slow")
    replay = replays.replay_of(answer["data"]["session_id"])
    assert answer["ok"] and replay is not None and answer["data"]["offer_open"] is True
    assert answer["message"] == (
        f"Replaying 2 messages on offline/slow with recorded tools, in the branch {replay.branch.id}; "
        "open it to follow the replay, and Stop there stops it."
    )
    view.close()
    wait_for(lambda: any(isinstance(c, mw.ModelReply) for c in replay.branch.cards))
    on_branch = RecordingWidget(mw.Session.open(replay.branch.id))
    on_branch.hello()
    assert on_branch.do("stop")["message"] == "Stopping the replay: it asks no more messages."
    on_branch.close()
    assert replay.wait(60).state == "stopped"
