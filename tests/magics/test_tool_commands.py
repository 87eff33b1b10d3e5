"""`%mewrk approve | reject | tools | tool | rerun` (A1–A4, T5, T6) in a plain IPython shell."""

from __future__ import annotations

from mewrk_jupyter import magics

WRITE = 'call: write {"path": "n.txt", "content": "hi"}'


def test_a_paused_turn_shows_the_call_and_how_to_decide(mewrk, workspace):
    mewrk("new")
    out = mewrk(f"send {WRITE}")
    assert "Approval needed" in out and "`write`" in out and '"content": "hi"' in out
    assert "%mewrk approve" in out and "%mewrk reject" in out
    assert magics.current_session().state == "awaiting_approval"


def test_approve_runs_the_call_and_shows_the_rest_of_the_turn(mewrk, workspace):
    mewrk("new")
    mewrk(f"send {WRITE}")
    out = mewrk("approve")
    s = magics.current_session()
    assert s.state == "idle" and (workspace / "n.txt").read_text() == "hi"
    assert "returned" in out


def test_approve_always_and_reject_with_a_reason(mewrk, workspace):
    mewrk("new")
    mewrk(f"send {WRITE}")
    mewrk("approve always looks fine")
    s = magics.current_session()
    assert s.settings.approved_always == ["write"]
    assert [c for c in s.cards if c.kind == "approval"][0].reason == "looks fine"
    mewrk('send call: bash {"command": "touch b"}')
    mewrk("reject use python instead")
    call = [c for c in s.cards if c.kind == "tool_call"][-1]
    assert call.status == "rejected" and "Their reason: use python instead" in call.result
    assert not (workspace / "b").exists()


def test_approve_always_like_this_command_says_the_rule_it_added(mewrk, workspace):
    mewrk("new")
    mewrk('send call: bash {"command": "echo a && echo b"}')
    out = mewrk("approve always like fine by me")
    s = magics.current_session()
    assert "from now on `bash(echo *)` run without asking (this session)" in out
    assert s.settings.approved_always == ["bash(echo *)"]
    assert [c for c in s.cards if c.kind == "approval"][0].reason == "fine by me"
    mewrk('send call: bash {"command": "echo c"}')
    assert s.state == "idle"
    mewrk('send call: bash {"command": "touch c"}')
    out = mewrk("approve always bash(touch c) --policy")
    assert "`bash(touch c)` run without asking (policy/default.yaml)" in out
    assert "bash(touch c)" in (workspace / ".mewrk" / "policy" / "default.yaml").read_text()


def test_deciding_with_nothing_pending_is_one_readable_line(mewrk):
    mewrk("new")
    out = mewrk("approve")
    assert out.startswith("**mewrk:** No approval is waiting") and "Traceback" not in out


def test_tools_lists_each_tool_with_its_tier(mewrk):
    mewrk("new")
    out = mewrk("tools")
    assert "Safety level `default`" in out
    assert "| `read` | allow |" in out and "| `bash` | ask |" in out


def test_tool_executes_and_adds_and_rerun_runs_it_again(mewrk, workspace):
    (workspace / "a.txt").write_text("A\n")
    mewrk("new")
    out = mewrk('tool ls {"path": "."}')
    s = magics.current_session()
    assert "a.txt" in s.cards[-1].result and "a.txt" in out
    (workspace / "b.txt").write_text("B\n")
    mewrk("rerun -1")
    assert "b.txt" in s.cards[-1].result
    bad = mewrk("tool ls {path}")
    assert bad.startswith("**mewrk:** The parameters are a JSON object") and len(s.cards) == 1


def test_a_call_run_by_hand_that_asks_first_says_the_person_asked(mewrk, workspace):
    mewrk("new")
    out = mewrk('tool bash {"command": "echo by-hand"}')
    assert "Approval needed:** you asked to run `bash`" in out and "the model wants" not in out
    s = magics.current_session()
    assert s.state == "awaiting_approval" and s.pending_approval.title_line() == "You asked to run bash"
    mewrk("approve")
    assert s.state == "idle" and "by-hand" in s.cards[0].result
    mewrk("new")
    out = mewrk('send call: bash {"command": "echo by-model"}')
    assert "Approval needed:** the model wants to run `bash`" in out
    assert magics.current_session().pending_approval.title_line() == "The model asks to run bash"
