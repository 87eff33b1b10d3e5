"""Conversation settings changed after a session was made: validated, stored, seen by every process."""

from __future__ import annotations

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.session import forget_open_sessions
from mewrk_jupyter.engine.settings.change import describe_change
from mewrk_jupyter.store.db import forget_databases
from tests.conftest import run_python, wait_for
from tests.providers.vendors import write_vendor
from tests.widget.recording import RecordingWidget


def test_a_changed_model_is_stored_used_by_the_next_turn_and_seen_by_a_new_process(workspace):
    s = mw.Session.new()
    s.send("hello")
    after = s.configure(model="offline/thinker", reasoning="high")
    assert after.model == s.settings.model == "offline/thinker" and s.settings.reasoning == "high"
    s.send("again")
    assert s.history[-1].model == "offline/thinker"
    assert any(c.kind == "thinking" for c in s.cards)  # the thinker thinks: the new model answered
    out = run_python(
        f"import mewrk_jupyter as mw; s = mw.Session.open({s.id!r}); print(s.settings.model, s.settings.reasoning)",
        workspace,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["offline/thinker", "high"]


def test_assigning_to_a_setting_is_refused_with_a_sentence_and_nothing_changes(workspace):
    """`s.settings.model = …` would change what this process shows without storing it: refused, pointing
    to configure, which checks and stores the change."""
    s = mw.Session.new()
    with pytest.raises(mw.InvalidInput, match=r"s\.configure\(model=\.\.\.\).*nothing changed"):
        s.settings.model = "offline/thinker"
    with pytest.raises(mw.InvalidInput, match=r"s\.configure\(plan_mode=\.\.\.\)"):
        s.settings.plan_mode = True
    assert s.settings.model == mw.Session.open(s.id).settings.model != "offline/thinker"
    s.configure(model="offline/thinker")
    assert s.settings.model == "offline/thinker"


def test_a_change_made_by_another_process_is_seen_by_an_open_session(workspace):
    s = mw.Session.new()
    out = run_python(
        f"import mewrk_jupyter as mw; mw.Session.open({s.id!r}).configure(safety_level='default', model='offline/tiny')",
        workspace,
    )
    assert out.returncode == 0, out.stderr
    assert s.settings.model == "offline/tiny"
    s.send("hello")
    assert s.history[-1].model == "offline/tiny"


@pytest.mark.parametrize(
    ("changes", "sentence"),
    [
        (
            {"colour": "red"},
            r"^There is no conversation setting 'colour'; the settings are: model, safety_level",
        ),
        ({"agent": "other"}, r"^agent cannot be changed here: the agent is chosen when a session is made"),
        ({"reasoning": "max"}, r"reasoning: Input should be 'off', 'low', 'medium' or 'high'"),
        ({"model": "nowhere/m"}, r"nowhere"),
        ({"safety_level": "lax"}, r"^There is no safety level `lax`"),
        (
            {"host_container": "envelope"},
            r"host_container: Input should be 'user_message' or 'box_tool_result'",
        ),
        ({"async_tools": True}, r"^async_tools needs a model that takes async tool calls"),
        (  # offline/echo does not think
            {"reasoning": "high"},
            r"^reasoning 'high' cannot act on `offline/echo`, which does not think\. Keep 'off'",
        ),
        (  # offline/tiny is an offline model without a native compaction (offline/echo has one)
            {"model": "offline/tiny", "compaction": "native"},
            r"^compaction 'native' needs a model with a compaction of its own",
        ),
    ],
)
def test_a_value_that_cannot_act_is_refused_with_a_sentence_and_nothing_changes(workspace, changes, sentence):
    s = mw.Session.new()
    before = s.settings
    with pytest.raises(mw.MewrkError, match=sentence):
        s.configure(**changes)
    assert s.settings == before
    forget_open_sessions()
    forget_databases()
    assert mw.Session.open(s.id).settings == before


def test_a_change_while_a_turn_runs_is_refused_like_an_edit(workspace):
    s = mw.Session.new(model="offline/slow")
    run = s.send("long: 2000", wait=False)
    wait_for(lambda: s.state == "running")
    try:
        with pytest.raises(mw.SessionBusy):
            s.configure(model="offline/echo")
        assert s.settings.model == "offline/slow"
    finally:
        s.stop()
        run.wait(timeout=30)  # the turn's thread ends before the test's store is closed
    assert s.configure(model="offline/echo").model == "offline/echo"  # once it ended, the change is taken


def test_branch_and_fork_copy_the_changed_settings(workspace):
    s = mw.Session.new()
    s.send("hello")
    s.configure(model="offline/thinker", reasoning="low")
    for copy in (s.branch(s.cards[-1]), s.fork(s.cards[-1])):
        assert (copy.settings.model, copy.settings.reasoning) == ("offline/thinker", "low")


def test_an_open_view_shows_the_new_model(workspace):
    s = mw.Session.new()
    view = RecordingWidget(s)
    view.hello()
    s.configure(model="offline/tiny")
    assert view.of("snapshot")[-1]["session"]["model"] == "offline/tiny"
    assert view.of("snapshot")[-1]["context"]["window"] == 2_000


def test_switching_to_another_protocol_leaves_its_signed_blocks_out_and_the_cards_say_so(
    workspace, monkeypatch
):
    monkeypatch.setenv("V_KEY", "v-key-0123456789")
    write_vendor(
        workspace, "v", "anthropic-messages", "http://127.0.0.1:9", "  m: {context_window: 100000}\n", "V_KEY"
    )
    s = mw.Session.new(model="offline/thinker")
    s.send("hello")
    thinking = next(c for c in s.cards if c.kind == "thinking")
    assert s.not_sent() == {}
    s.configure(model="v/m")
    assert s.not_sent() == {
        thinking.id: "signed on offline, which `v/m` (anthropic-messages) cannot take; "
        "switch back to a model of that protocol to send it again"
    }
    view = RecordingWidget(s)
    card = next(row["card"] for row in view.hello()["cards"] if row["card"]["id"] == thinking.id)
    assert card["not_sent"].startswith("signed on offline")
    s.configure(model="offline/thinker")
    assert s.not_sent() == {}


def test_compaction_mode_is_the_design_name_of_the_compaction_setting(workspace):
    s = mw.Session.new("offline/echo", compaction_mode="handoff")  # echo would compact natively
    assert s.settings.compaction == s.settings.compaction_mode == "handoff"
    assert s.configure(compaction_mode="native").compaction == "native"
    assert mw.Session.open(s.id).settings.compaction_mode == "native"  # stored under its one name
    with pytest.raises(mw.InvalidInput) as err:
        s.configure(compaction_mode="handoff", compaction="native")
    assert str(err.value) == (
        "compaction_mode and compaction are one setting, given two values ('handoff' and 'native'): give one."
    )
    before = len(mw.list_sessions())
    for name in ("compaction", "compaction_mode"):  # a mode that could not act is refused when made too
        with pytest.raises(mw.InvalidInput) as err:
            mw.Session.new("offline/tiny", **{name: "native"})
        assert str(err.value) == (
            "compaction 'native' needs a model with a compaction of its own, and `offline/tiny` has none; "
            "keep 'handoff' (a summary handed to a new session) or choose such a model."
        )
    assert len(mw.list_sessions()) == before


REASONING_REFUSED = (
    "reasoning 'high' cannot act on `offline/echo`, which does not think. Keep 'off', or choose a model "
    "that thinks (`thinking: signed` under it in llm/<vendor>.yaml for anthropic-messages, `plain` or "
    "`signed` for openai-responses; offline: offline/thinker)."
)


def test_reasoning_on_a_model_without_thinking_is_refused_when_made_and_turned_off_with_its_model(workspace):
    with pytest.raises(mw.InvalidInput) as refused:
        mw.Session.new(reasoning="high")
    assert str(refused.value) == REASONING_REFUSED and mw.list_sessions() == []
    s = mw.Session.new(model="offline/thinker", reasoning="high")
    before = s.settings
    after = s.configure(model="offline/echo")  # a model that cannot think: reasoning goes off, and says so
    assert after.reasoning == "off"
    assert describe_change(before, after) == (
        "Changed model 'offline/thinker' → 'offline/echo'; reasoning 'high' → 'off'."
    )


def test_reasoning_is_refused_where_the_protocol_cannot_set_it(workspace, monkeypatch):
    monkeypatch.setenv("V_KEY", "v-key-0123456789")
    write_vendor(
        workspace,
        "v",
        "openai-chat",
        "http://127.0.0.1:9",
        "  r1: {context_window: 64000, thinking: plain}\n",
        "V_KEY",
    )
    write_vendor(
        workspace,
        "a",
        "anthropic-messages",
        "http://127.0.0.1:9",
        "  m: {context_window: 100000, thinking: plain}\n",
        "V_KEY",
    )
    s = mw.Session.new(model="v/r1")
    with pytest.raises(
        mw.InvalidInput, match=r"^reasoning 'low' cannot act on `v/r1`: openai-chat requests "
    ):
        s.configure(reasoning="low")
    with pytest.raises(mw.InvalidInput, match=r"^reasoning 'low' cannot act on `a/m`: anthropic-messages "):
        s.configure(model="a/m", reasoning="low")
    assert (s.settings.model, s.settings.reasoning) == ("v/r1", "off")
