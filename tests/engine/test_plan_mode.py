"""Plan mode: the model plans without `write`, `edit` and `bash`; the guidance is a host message on the
timeline (so branch and fork carry it), a call to a withheld tool is answered without running, and
turning it off gives the tools back."""

from __future__ import annotations

from pathlib import Path

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.navigation import branched_sentence, forked_sentence
from mewrk_jupyter.engine.toolbox.policy import PLAN_OFF, PLAN_ON, PLAN_TURN_ENDED, plan_withdrawal
from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.vendors import write_vendor
from tests.providers.wire import WireServer, anthropic_reply, anthropic_tool_use


@pytest.fixture
def vendor(workspace: Path, wire_server: WireServer) -> WireServer:  # noqa: F811
    write_vendor(
        workspace, "a", "anthropic-messages", wire_server.url, "  m: {context_window: 100000}\n", "PLAN_KEY"
    )
    return wire_server


@pytest.fixture(autouse=True)
def key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLAN_KEY", "plan-key-0123456789")


def offered(request) -> list[str]:
    return [t["name"] for t in request.json.get("tools", [])]


def test_plan_mode_withholds_the_changing_tools_and_tells_the_model(workspace, vendor):
    s = mw.Session.new(model="a/m")
    vendor.enqueue(anthropic_reply("Before."))
    s.send("hello")
    assert {"write", "edit", "bash"} <= set(offered(vendor.requests[0]))

    s.configure(plan_mode=True)
    assert s.cards[-1].kind == "host_message" and s.cards[-1].text == PLAN_ON
    s.accept_tool_change()  # the prompt cache is warm: without this the tool lock keeps the list
    vendor.enqueue(anthropic_reply("1. Read the notes. 2. Rewrite them."))
    s.send("tidy the notes folder")
    tools = offered(vendor.requests[1])
    assert "read" in tools and not {"write", "edit", "bash"} & set(tools)
    assert "Plan mode is on" in vendor.requests[1].raw_body.decode()

    s.configure(plan_mode=False)
    assert s.cards[-1].text == PLAN_OFF
    s.accept_tool_change()
    vendor.enqueue(anthropic_reply("Done."))
    s.send("go ahead")
    assert {"write", "edit", "bash"} <= set(offered(vendor.requests[2]))


def test_a_call_to_a_withheld_tool_is_answered_and_not_run(workspace, vendor):
    s = mw.Session.new(model="a/m", plan_mode=True)
    vendor.enqueue(anthropic_reply(anthropic_tool_use("write", {"path": "x.txt", "content": "no"})))
    vendor.enqueue(anthropic_reply("Here is the plan instead."))
    run = s.send("write x.txt")
    assert run.state == "done", run.error  # no approval asked: the call is answered at once
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert call.status == "denied" and call.result.startswith("Plan mode is on, so `write` is not offered")
    assert not (workspace / "x.txt").exists()
    assert s.cards[-1].text == "Here is the plan instead."


def test_a_session_made_in_plan_mode_starts_with_the_guidance_and_a_branch_carries_it(workspace):
    s = mw.Session.new(plan_mode=True)
    assert [(c.kind, c.text) for c in s.cards] == [("host_message", PLAN_ON)]
    s.send("plan it")
    b = s.branch(at=s.cards[-1])
    assert b.settings.plan_mode and b.cards[0].text == PLAN_ON
    assert "write" not in [t.name for t in b.tool_specs()]


def asking_to_read(workspace: Path) -> mw.Session:
    """A session on the wire's model whose safety level asks before `read` too, with notes.txt to read."""
    policy = workspace / ".mewrk" / "policy"
    policy.mkdir(parents=True, exist_ok=True)
    (policy / "default.yaml").write_text("safety_level: default\nallow: [ls]\nask: [read, write, bash]\n")
    mw.trust(workspace)
    (workspace / "notes.txt").write_text("the notes")
    return mw.Session.new(model="a/m")


def test_plan_mode_turned_on_withdraws_the_waiting_approval_of_a_withheld_call(workspace, vendor):
    s = asking_to_read(workspace)
    write = anthropic_tool_use("write", {"path": "x.txt", "content": "no"})
    read = anthropic_tool_use("read", {"path": "notes.txt"})
    vendor.enqueue(anthropic_reply(write, read))
    run = s.send("write x.txt, then read the notes")
    assert run.state == "awaiting_approval" and s.pending_approval.name == "write"
    approval = s.pending_approval

    s.configure(plan_mode=True)  # nobody may approve a change now: the approval is withdrawn
    assert s.card(approval.id).decision == "expired" and s.pending_approval is None
    assert s.state == "idle" and s.withdraw_withheld_approval() is None  # nothing is left to withdraw
    with pytest.raises(mw.InvalidInput, match="No approval is waiting in this session"):
        s.approve()
    calls = [c for c in s.cards if c.kind == "tool_call"]
    assert [c.status for c in calls] == ["denied", "denied"]
    assert calls[0].result == plan_withdrawal("write")
    assert calls[1].result == PLAN_TURN_ENDED  # the turn ended there: the model may call it again
    assert not (workspace / "x.txt").exists()
    assert s.cards[-1].kind == "host_message" and s.cards[-1].text == PLAN_ON

    s.accept_tool_change()
    vendor.enqueue(anthropic_reply("The plan: read the notes, then write x.txt."))
    s.send("then plan it")  # the next message goes on, and the model reads why nothing ran
    body = vendor.requests[1].raw_body.decode()
    assert "Plan mode was turned on while this call of `write` waited" in body
    assert s.cards[-1].text == "The plan: read the notes, then write x.txt."


def test_plan_mode_leaves_the_approval_of_a_call_it_offers(workspace, vendor):
    s = asking_to_read(workspace)
    vendor.enqueue(anthropic_reply(anthropic_tool_use("read", {"path": "notes.txt"})))
    s.send("read the notes")
    approval = s.pending_approval
    s.configure(plan_mode=True)  # reading is a planner's work: the person still decides it
    assert s.pending_approval == approval and s.state == "awaiting_approval"
    vendor.enqueue(anthropic_reply("Read."))
    s.approve()
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert call.status == "done" and "the notes" in call.result


def test_a_copy_cut_where_its_context_says_otherwise_tells_the_model_the_copys_plan_mode(workspace):
    """A copy keeps the original's settings (T11); where the cards it copies announce another plan mode
    (cut before the guidance, or after it while plan mode is now off), a host message after them says
    how the copy stands, so the tools it is offered and what it was told agree."""
    s = mw.Session.new()
    s.send("first")
    s.configure(plan_mode=True)
    s.send("second")  # user, reply, guidance, user, reply
    before_guidance = s.fork(s.cards[1])
    assert before_guidance.settings.plan_mode
    assert [(c.kind, c.text) for c in before_guidance.cards] == [
        ("user_input", "first"),
        ("host_message", PLAN_ON),
    ]
    said = forked_sentence(s, s.cards[1], before_guidance)
    assert said.endswith(": the 1 card above it. Plan mode is on in the copy: its guidance follows them.")
    before_guidance.send("go on")
    assert "write" not in [t["name"] for t in before_guidance.history[-1].request["tools"]]
    assert PLAN_ON in str(before_guidance.history[-1].request["messages"])
    s.configure(plan_mode=False)
    planning = s.branch(s.cards[2])  # the guidance is its last card, and plan mode is off now
    assert not planning.settings.plan_mode
    assert [c.text for c in planning.cards[-2:]] == [PLAN_ON, PLAN_OFF]
    assert branched_sentence(s, s.cards[2], planning).endswith(
        ": 3 cards, up to and including that one. Plan mode is off in the copy: the model is told after them."
    )
    agreeing = s.branch(s.cards[-1])  # the cards end with plan mode off, as the settings are
    assert [c.id for c in agreeing.cards] == [c.id for c in s.cards]
