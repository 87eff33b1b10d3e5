"""Subagents and background work with the offline models (T15, T13, T14): spawn, wait, an uncollected
result as a host message, async results as the call's output, background bash, stop cascading, an
approval inside a subagent answered on the parent, and the refusals while background work runs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.assembly.assemble import NOTIFICATION_MARK
from mewrk_jupyter.engine.background.tasks import TASKS, running_background_work
from mewrk_jupyter.engine.subagents import WITHDRAWN, agent_figures
from mewrk_jupyter.engine.subagents.limits import MAX_DEPTH, MAX_RUNNING
from mewrk_jupyter.engine.toolbox.policy import PLAN_OFF, PLAN_ON, plan_withdrawal
from mewrk_jupyter.store import sessions as session_rows

from ..conftest import run_python, wait_for

pytestmark = pytest.mark.both_stores

SPAWN = 'call: agent_spawn {"agent": "helper", "task": "%s"}'
# The helper's own task makes it call bash, which asks first: it waits for the person, so a test
# decides when it ends.
GATED = 'call: bash {\\"command\\": \\"echo from-helper\\"}'


def agents(workspace, main_tools="[ls, read, bash, agent_spawn, task_wait]", helper_model="offline/echo"):
    folder = workspace / ".mewrk" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "main.yaml").write_text(f"model: offline/echo\ntools: {main_tools}\n")
    (folder / "helper.yaml").write_text(
        f"model: {helper_model}\ntools: [ls, read, bash]\nsystem_prompt: You help with one task.\n"
    )
    mw.trust(workspace)


def subagent_cards(s: mw.Session) -> list[mw.Subagent]:
    return [c for c in s.cards if isinstance(c, mw.Subagent)]


def ended(s: mw.Session, index: int = -1) -> mw.Subagent:
    """The subagent card once its task ended (its thread wrote the result)."""
    return wait_for(lambda: (c := subagent_cards(s)[index]).state in ("completed", "failed", "stopped") and c)


def notifications(s: mw.Session) -> list[mw.HostMessage]:
    return [c for c in s.cards if isinstance(c, mw.HostMessage) and c.topic == "task_notification"]


def test_agent_spawn_starts_a_stored_subagent_session_shown_by_a_read_only_card(workspace):
    agents(workspace)
    s = mw.Session.new(safety_level="default", host_container="box_tool_result")
    run = s.send(SPAWN % "say hi")
    assert run.state == "done", run.error
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert call.name == "agent_spawn" and call.status == "done" and not call.is_error
    assert call.result.startswith("Started the subagent `helper` in the background as task `task_")
    card = ended(s)
    assert (card.agent, card.text, card.state) == ("helper", "say hi", "completed")
    child = card.session
    assert child.id == card.session_id and child.title == "helper: say hi"
    row = session_rows.get_session(child.stored_timeline.db.conn(), child.id)
    assert row["parent_id"] == s.id and row["subagent"] == 1
    assert mw.Session.open(child.id).id == child.id
    # The agent's model and system prompt; the parent's safety level and host-message container.
    assert child.settings.agent == "helper" and child.settings.model == "offline/echo"
    assert child.settings.host_container == "box_tool_result"
    assert [c.kind for c in child.cards] == ["system_prompt", "user_input", "model_reply"]
    assert card.result == child.cards[-1].text and "say hi" in card.result
    with pytest.raises(mw.NotEditable, match="read-only"):
        s.edit(card.id, text="something else")


def test_task_wait_collects_the_result_and_no_notification_follows(workspace):
    agents(workspace)
    s = mw.Session.new()
    s.send(SPAWN % GATED)
    task_id = subagent_cards(s)[0].task_id
    wait_for(lambda: s.pending_approval)
    run = s.send('call: task_wait {"timeout": 30}', wait=False)
    wait_for(
        lambda: any(
            c.kind == "tool_call" and c.name == "task_wait" and c.status == "running" for c in s.cards
        )
    )
    s.approve()  # answered on the parent while its own turn waits for the subagent
    run.wait()
    assert run.state == "done", run.error
    wait = [c for c in s.cards if c.kind == "tool_call"][-1]
    assert wait.name == "task_wait" and not wait.is_error
    assert f"<task-id>{task_id}</task-id>" in wait.result and "<status>completed</status>" in wait.result
    assert "from-helper" in wait.result
    s.send("and now?")
    assert notifications(s) == []
    s.send('call: task_wait {"ids": ["task_nope"]}')
    refused = [c for c in s.cards if c.kind == "tool_call"][-1]
    assert refused.is_error and refused.result.startswith("No background task task_nope in this conversation")


def test_an_uncollected_result_reaches_the_next_request_as_a_notification(workspace):
    agents(workspace)
    s = mw.Session.new()
    s.send(SPAWN % GATED)  # it ends once approved: after this turn, before the next
    wait_for(lambda: s.pending_approval)
    s.approve()
    card = ended(s)
    s.send("what did it find?")
    [note] = notifications(s)
    assert note.text.startswith(f"<task-notification>\n<task-id>{card.task_id}</task-id>\n<status>completed")
    last = s.history[-1].request["messages"][-1]
    texts = [p["text"] for p in last["parts"] if p["type"] == "text"]
    assert texts == [
        "what did it find?",
        f"<system-reminder>\n{NOTIFICATION_MARK}\n{note.text}\n</system-reminder>",
    ]


def test_in_the_box_container_the_notification_is_a_bare_box_result(workspace):
    agents(workspace)
    s = mw.Session.new(host_container="box_tool_result")
    s.send(SPAWN % GATED)
    wait_for(lambda: s.pending_approval)
    s.approve()
    ended(s)
    s.send("what did it find?")
    [note] = notifications(s)
    messages = s.history[-1].request["messages"]
    assert messages[-2]["parts"] == [
        {"type": "tool_use", "id": f"toolu_box_{note.id}", "name": "box", "input": {}}
    ]
    [result] = messages[-1]["parts"]
    assert result["content"] == note.text and result["content"].startswith("<task-notification>")
    assert NOTIFICATION_MARK not in json.dumps(messages)


def test_with_async_tool_calls_the_result_becomes_the_spawning_calls_output(workspace):
    agents(workspace)
    s = mw.Session.new()
    with pytest.raises(mw.InvalidInput, match="async_tools needs a model that takes async tool calls"):
        s.configure(async_tools=True)
    s.configure(model="offline/big", async_tools=True)
    s.send(SPAWN % GATED)
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert "its result will replace this output when it ends" in call.result
    wait_for(lambda: s.pending_approval)
    s.approve()
    card = ended(s)
    s.send("go on")
    call = s.card(call.id)
    assert call.result == card.result and "from-helper" in call.result
    assert notifications(s) == []
    sent = s.history[-1].request["messages"]
    assert any(p.get("content") == card.result for m in sent for p in m["parts"])


def test_a_background_bash_reports_like_a_subagent(workspace):
    agents(workspace)
    s = mw.Session.new()
    assert "background" in next(t for t in s.tool_specs() if t.name == "bash").input_schema["properties"]
    s.send('call: bash {"command": "sleep 0.2; echo done-in-background", "background": true}')
    s.approve()  # bash asks first, in the background as in the foreground
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert call.result.startswith(
        "Started the command `sleep 0.2; echo done-in-background` in the background"
    )
    s.send('call: task_wait {"timeout": 30}')
    wait = [c for c in s.cards if c.kind == "tool_call"][-1]
    assert "done-in-background" in wait.result and "<status>completed</status>" in wait.result


def waiting_helper(workspace) -> tuple[mw.Session, mw.Approval, mw.Session, mw.Approval]:
    """A session whose helper waits for the approval of its bash call: the session, the approval as shown
    on it, the helper's session and its own approval."""
    agents(workspace)
    s = mw.Session.new()
    s.send(SPAWN % GATED)
    mirror = wait_for(lambda: s.pending_approval)
    child = subagent_cards(s)[0].session
    return s, mirror, child, child.pending_approval


def test_an_approval_inside_a_subagent_shows_on_the_parent_and_is_answered_there(workspace):
    agents(workspace)
    s = mw.Session.new()
    s.send(SPAWN % GATED)
    mirror = wait_for(lambda: s.pending_approval)
    assert mirror.name == "bash" and mirror.params == {"command": "echo from-helper"}
    child = subagent_cards(s)[0].session
    assert mirror.session_id == child.id and child.state == "awaiting_approval"
    assert wait_for(lambda: subagent_cards(s)[0].state == "awaiting_approval")
    # The parent's own turn waits for nothing (it may go on meanwhile), but its state says what waits.
    assert s.state == "subagent_awaiting_approval"
    assert running_background_work(s.id) == [
        f"subagent `helper` ({subagent_cards(s)[0].task_id}, waiting for an approval)"
    ]
    s.approve()
    card = ended(s)
    assert card.state == "completed" and "from-helper" in card.result
    assert s.card(mirror.id).decision == "approved"
    assert s.pending_approval is None and s.state == "idle"


def test_a_rejection_on_the_parent_reaches_the_subagent(workspace):
    agents(workspace)
    s = mw.Session.new()
    s.send(SPAWN % GATED)
    wait_for(lambda: s.pending_approval)
    s.reject("not now")
    card = ended(s)
    child = card.session
    call = next(c for c in child.cards if c.kind == "tool_call")
    assert call.status == "rejected" and "not now" in call.result


def test_stopping_the_parent_stops_its_subagents(workspace):
    agents(workspace, helper_model="offline/slow")
    s = mw.Session.new()
    s.send(SPAWN % "long: 4000")
    child = subagent_cards(s)[0].session
    wait_for(lambda: child.state == "running")
    assert s.stop()
    card = ended(s)
    assert card.state == "stopped" and card.result.endswith("(The subagent was stopped before it finished.)")
    assert child.runs()[-1].state == "stopped"
    s.send("and?")
    [note] = notifications(s)
    assert "<status>stopped</status>" in note.text


def test_stopping_a_parent_whose_subagent_waits_for_an_approval_closes_that_approval(workspace):
    s, mirror, child, own = waiting_helper(workspace)
    s.stop()
    assert ended(s).state == "stopped"
    assert s.card(mirror.id).decision == "expired" and s.pending_approval is None
    # The subagent's own approval is closed too: nobody can approve it later and run the call.
    assert child.card(own.id).decision == "expired" and child.state == "idle"
    call = child.card(own.tool_card_id)
    assert call.status == "denied" and call.result == WITHDRAWN
    with pytest.raises(mw.InvalidInput, match="No approval is waiting in this session"):
        child.approve()
    assert "from-helper" not in call.result


def test_compact_now_and_handoff_refuse_while_a_subagent_runs(workspace):
    agents(workspace)
    s = mw.Session.new()
    s.send(SPAWN % GATED)
    wait_for(lambda: s.pending_approval)
    task_id = subagent_cards(s)[0].task_id
    with pytest.raises(
        mw.MewrkError, match=rf"Background work is still running \(subagent `helper` \({task_id}"
    ):
        s.compact_now()
    s.reject()
    ended(s)


def test_a_spawn_needs_a_known_agent(workspace):
    agents(workspace)
    s = mw.Session.new()
    s.send('call: agent_spawn {"agent": "nobody", "task": "x"}')
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert call.is_error and call.result == (
        "No subagent was started: There is no agent `nobody`; the agents are: `helper`, `main`."
    )
    assert subagent_cards(s) == [] and TASKS.of(s.id) == []


def test_without_agent_spawn_in_the_agents_tools_nothing_is_offered(workspace):
    agents(workspace, main_tools="[ls, read, bash]")
    s = mw.Session.new()
    names = [t.name for t in s.tool_specs()]
    assert names == ["ls", "read", "bash"]
    assert "background" not in s.tool_specs()[-1].input_schema["properties"]


def test_a_subagent_of_a_planning_conversation_plans_too(workspace):
    agents(workspace)
    s = mw.Session.new(plan_mode=True)
    s.send(SPAWN % "look around")
    child = ended(s).session
    assert child.settings.plan_mode
    assert [c.kind for c in child.cards][:2] == ["system_prompt", "host_message"]
    assert "bash" not in [t.name for t in child.tool_specs()]


def test_a_background_command_in_plan_mode_is_answered_and_not_started(workspace):
    agents(workspace)
    s = mw.Session.new(plan_mode=True)
    assert "bash" not in [t.name for t in s.tool_specs()]
    run = s.send('call: bash {"command": "touch made-in-background", "background": true}')
    assert run.state == "done", run.error  # no approval asked: plan mode answers the call itself
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert call.status == "denied" and call.result.startswith("Plan mode is on, so `bash` is not offered")
    assert running_background_work(s.id) == [] and TASKS.of(s.id) == []
    assert not (workspace / "made-in-background").exists()


def test_a_safety_level_that_denies_agent_spawn_refuses_it(workspace):
    agents(workspace)
    folder = workspace / ".mewrk" / "policy"
    folder.mkdir(parents=True)
    (folder / "default.yaml").write_text(
        "safety_level: default\nallow: [read]\nask: [bash]\ndeny: [agent_spawn]\n"
    )
    mw.trust(workspace)
    s = mw.Session.new()
    s.send(SPAWN % "anything")
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert call.result.startswith("The tool `agent_spawn` is not allowed at the safety level `default`")
    assert subagent_cards(s) == []


def test_one_figure_per_agent_lists_the_conversation_and_its_subagents(workspace):
    agents(workspace)
    s = mw.Session.new()
    assert agent_figures(s) == []  # one agent: the dashboard's own figure is all there is
    s.send(SPAWN % "first")
    s.send(SPAWN % "second")
    children = [ended(s, i).session for i in (0, 1)]
    figures = agent_figures(s)
    assert [(f.agent, f.session_id, f.current) for f in figures] == [
        ("main", s.id, True),
        ("helper", children[0].id, False),
        ("helper", children[1].id, False),
    ]
    assert figures[1].line == children[0].context.line() and figures[1].cost_line.startswith("Cost:")
    seen_from_child = agent_figures(children[1])
    assert [f.session_id for f in seen_from_child] == [f.session_id for f in figures]
    assert [f.current for f in seen_from_child] == [False, False, True]


def test_stopping_the_session_kills_its_background_command(workspace):
    agents(workspace)
    s = mw.Session.new()
    s.configure(safety_level="default")
    s.send('call: bash {"command": "sleep 30; echo never", "background": true}')
    s.approve()
    [task] = TASKS.of(s.id)
    assert running_background_work(s.id) == [f"command `sleep 30; echo never` ({task.id})"]
    assert s.stop()
    assert task.done.wait(10) and task.state == "stopped"
    assert "[stopped: the command was stopped before it finished]" in task.result


def nested(workspace, command: str) -> mw.Session:
    """A session whose helper spawned a worker of its own, which calls bash with `command` (it asks)."""
    agents(workspace)
    folder = workspace / ".mewrk" / "agents"
    (folder / "helper.yaml").write_text("model: offline/echo\ntools: [bash, agent_spawn, task_wait]\n")
    (folder / "worker.yaml").write_text("model: offline/echo\ntools: [bash]\n")
    mw.trust(workspace)
    s = mw.Session.new()
    worker_task = "call: bash " + json.dumps({"command": command})
    helper_task = "call: agent_spawn " + json.dumps({"agent": "worker", "task": worker_task})
    s.send("call: agent_spawn " + json.dumps({"agent": "helper", "task": helper_task}))
    return s


def test_an_approval_of_a_subagents_own_subagent_is_answered_from_the_top(workspace):
    s = nested(workspace, "echo deep")
    waiting = wait_for(lambda: s.pending_approval)
    assert waiting.params == {"command": "echo deep"}
    helper = subagent_cards(s)[0].session
    worker = wait_for(lambda: subagent_cards(helper) and subagent_cards(helper)[0].session)
    # The card is on the top conversation's own timeline (the one the person looks at), and on the helper's.
    assert s.card(waiting.id) == waiting and waiting.session_id == worker.id
    on_helper = helper.pending_approval
    assert on_helper.id != waiting.id and helper.card(on_helper.id).session_id == worker.id
    assert s.state == helper.state == "subagent_awaiting_approval"
    assert s.status_line.startswith("A subagent waits for your approval of `bash`")
    s.approve()
    assert s.card(waiting.id).decision == helper.card(on_helper.id).decision == "approved"
    worker_card = wait_for(
        lambda: [c for c in helper.cards if c.kind == "subagent" and c.state == "completed"]
    )
    assert "deep" in worker_card[0].result
    # The helper's turn ended with its worker still out: it read the worker's result before its own ended.
    top = ended(s)
    assert top.state == "completed" and "deep" in top.result


def test_a_subagent_left_behind_by_a_process_that_ended_is_settled_at_the_next_request(workspace):
    agents(workspace)
    spawn = "call: agent_spawn " + json.dumps({"agent": "helper", "task": 'call: bash {"command": "echo x"}'})
    code = "\n".join(
        [
            "import time",
            "import mewrk_jupyter as mw",
            "s = mw.Session.new(title='left')",
            f"s.send({spawn!r})",
            "deadline = time.monotonic() + 30",
            # The helper waits for a decision: its approval is shown here, then its card says so (a moment
            # later, under load); then this process ends.
            "def waiting():",
            "    cards = [c for c in s.cards if c.kind == 'subagent']",
            "    return s.pending_approval is not None and cards[0].state == 'awaiting_approval'",
            "while not waiting() and time.monotonic() < deadline:",
            "    time.sleep(0.01)",
            "print(s.id)",
        ]
    )
    done = run_python(code, workspace)
    assert done.returncode == 0, done.stderr
    s = mw.Session.open(done.stdout.split()[-1])
    assert subagent_cards(s)[0].state == "awaiting_approval"
    assert s.status_line is not None  # its copy of the approval still reads as waiting
    s.send("what happened?")
    card = subagent_cards(s)[0]
    assert card.state == "stopped" and card.result.endswith("its own session keeps what it did.)")
    # Nobody follows the subagent any more: its approval's copy here is closed, and the line goes.
    assert next(c for c in s.cards if c.kind == "approval").decision == "expired"
    assert s.status_line is None and s.pending_approval is None
    [note] = notifications(s)
    assert "<status>stopped</status>" in note.text and card.task_id in note.text


def test_stop_reaches_a_subagent_that_another_process_drives(workspace):
    agents(workspace, helper_model="offline/slow")
    code = "\n".join(
        [
            "import sys, time",
            "import mewrk_jupyter as mw",
            "s = mw.Session.new(title='elsewhere')",
            "s.send(" + repr(SPAWN % "long: 4000") + ")",
            "print(s.id, flush=True)",
            "card = [c for c in s.cards if c.kind == 'subagent'][0]",
            "deadline = time.monotonic() + 60",  # this process follows its subagent until it ends
            "while s.card(card.id).state == 'running' and time.monotonic() < deadline:",
            "    time.sleep(0.05)",
            "print(s.card(card.id).state, flush=True)",
        ]
    )
    process = subprocess.Popen([sys.executable, "-c", code], cwd=workspace, stdout=subprocess.PIPE, text=True)
    try:
        parent_id = process.stdout.readline().split()[0]
        s = mw.Session.open(parent_id)
        child = mw.Session.open(subagent_cards(s)[0].session_id)
        wait_for(lambda: child.state == "running")
        conn = s.stored_timeline.db.conn()
        task_id = subagent_cards(s)[0].task_id
        assert running_background_work(s.id, conn) == [f"subagent `helper` ({task_id}, in another process)"]
        assert s.state == "idle" and s.stop()  # the parent's own turn has ended: only its subagent runs
        assert process.stdout.readline().strip() == "stopped"
        assert child.runs()[-1].state == "stopped"
    finally:
        process.kill()
        process.wait()


def test_with_async_tool_calls_a_background_commands_output_becomes_its_calls_output(workspace):
    agents(workspace)
    s = mw.Session.new(model="offline/big", async_tools=True)
    s.send('call: bash {"command": "echo late-output", "background": true}')
    s.approve()
    [task] = TASKS.of(s.id)
    assert task.done.wait(10) and task.state == "completed"
    s.send("go on")
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert call.result.strip() == "late-output" and notifications(s) == []


def follow_elsewhere(workspace, start: str, until: str = "running"):
    """A second process that starts background work with `start` (on `s`), prints the session's id once
    its task has left the state `until` (a subagent waiting for its approval), then follows the task
    until it ends and prints how it ended."""
    code = "\n".join(
        [
            "import sys, time",
            "import mewrk_jupyter as mw",
            "from mewrk_jupyter.engine.background.tasks import TASKS",
            "s = mw.Session.new(title='elsewhere')",
            start,
            "[task] = TASKS.of(s.id)",
            "deadline = time.monotonic() + 30",
            f"while task.state == {until!r} and time.monotonic() < deadline:",
            "    time.sleep(0.01)",
            "print(s.id, flush=True)",
            "task.done.wait(60)",
            "print(task.state, flush=True)",
        ]
    )
    return subprocess.Popen([sys.executable, "-c", code], cwd=workspace, stdout=subprocess.PIPE, text=True)


def test_handoff_and_compact_now_see_a_subagent_that_another_process_follows(workspace):
    agents(workspace)
    start = "s.send(" + repr(SPAWN % GATED) + ")"  # its approval waits: the process follows it meanwhile
    process = follow_elsewhere(workspace, start)
    try:
        s = mw.Session.open(process.stdout.readline().split()[0])
        task_id = subagent_cards(s)[0].task_id
        conn = s.stored_timeline.db.conn()
        expected = f"subagent `helper` ({task_id}, waiting for an approval, in another process)"
        assert running_background_work(s.id, conn) == [expected]
        assert TASKS.of(s.id) == []  # nothing of it in this process
        with pytest.raises(mw.MewrkError, match=r"Background work is still running \(subagent `helper` \("):
            s.compact_now()
        assert s.status_line is not None  # its copy of the approval is here, from the store
        with pytest.raises(
            mw.InvalidInput, match=r"^This approval belongs to a subagent that another process"
        ):
            s.approve()  # its supervisor is there: deciding here would run the call with nobody to follow it
        # It plans from now on; its approval stays for the process that follows it, where deciding it
        # answers the call under plan mode without running it.
        s.configure(plan_mode=True)
        child = subagent_cards(s)[0].session
        assert child.settings.plan_mode and child.pending_approval.decision == "pending"
        assert s.status_line is not None
        assert s.stop()  # asked through the store; the process that follows it stops it at its next beat
        assert process.stdout.readline().strip() == "stopped"
        assert running_background_work(s.id, conn) == []
        child = mw.Session.open(subagent_cards(s)[0].session_id)
        assert child.state == "idle" and child.pending_approval is None  # its approval was closed there
        mirror = next(c for c in s.cards if c.kind == "approval")
        assert mirror.decision == "expired"
    finally:
        process.kill()
        process.wait()


def test_a_background_command_of_another_process_is_seen_and_stopped_from_here(workspace):
    agents(workspace)
    start = 's.send(\'call: bash {"command": "sleep 30", "background": true}\'); s.approve()'
    process = follow_elsewhere(workspace, start, until="")
    try:
        s = mw.Session.open(process.stdout.readline().split()[0])
        conn = s.stored_timeline.db.conn()
        [work] = running_background_work(s.id, conn)
        assert work.startswith("command `sleep 30` (task_") and work.endswith(", in another process)")
        with pytest.raises(mw.MewrkError, match=r"Background work is still running \(command `sleep 30`"):
            s.compact_now()
        assert s.stop()
        assert process.stdout.readline().strip() == "stopped"
        assert running_background_work(s.id, conn) == []
    finally:
        process.kill()
        process.wait()


def test_stopping_a_subagent_itself_while_its_approval_waits_ends_it_as_stopped(workspace):
    s, mirror, child, own = waiting_helper(workspace)
    assert child.stop()  # in its own session: its approval closes and its supervisor ends it
    card = ended(s)
    assert card.state == "stopped" and s.card(mirror.id).decision == "expired"
    assert child.card(own.id).decision == "expired" and child.card(own.tool_card_id).result == WITHDRAWN
    assert s.status_line is None and running_background_work(s.id, s.stored_timeline.db.conn()) == []


def test_subagents_nest_only_so_deep_and_only_so_many_run_at_once(workspace):
    agents(workspace)
    (workspace / ".mewrk" / "agents" / "loop.yaml").write_text(
        "model: offline/echo\ntools: [agent_spawn, task_wait]\n"
    )
    mw.trust(workspace)
    # A task that makes each subagent spawn the next one, deeper than the limit allows.
    task = "done"
    for _ in range(MAX_DEPTH + 1):
        task = "call: agent_spawn " + json.dumps({"agent": "loop", "task": task})
    s = mw.Session.new()
    s.send(task)
    session, depth = s, 0
    while True:
        card = wait_for(lambda session=session: subagent_cards(session) and ended(session))
        depth += 1
        child = card.session
        calls = [c for c in child.cards if c.kind == "tool_call" and c.name == "agent_spawn"]
        if calls and calls[0].is_error:
            break
        session = child
    assert depth == MAX_DEPTH
    assert calls[0].result == (
        f"No subagent was started: a subagent {MAX_DEPTH} levels deep may not start subagents of its "
        "own; do this task yourself."
    )
    # Too many at once: the ninth spawn of one response is refused while the eight wait for the person.
    many = "\n".join(SPAWN % GATED for _ in range(MAX_RUNNING + 1))
    t = mw.Session.new()
    t.send(many)
    spawned = [c for c in t.cards if c.kind == "tool_call" and c.name == "agent_spawn"]
    assert [c.is_error for c in spawned] == [False] * MAX_RUNNING + [True]
    assert spawned[-1].result.startswith(f"No subagent was started: {MAX_RUNNING} subagents already run")
    t.stop()
    wait_for(lambda: all(c.state == "stopped" for c in subagent_cards(t)))


def test_plan_mode_turned_on_reaches_the_subagents_at_work_and_theirs(workspace):
    s = nested(workspace, "touch made-by-worker")
    mirror = wait_for(lambda: s.pending_approval)  # the worker's bash asks: its turn paused for the person
    helper = subagent_cards(s)[0].session
    worker = subagent_cards(helper)[0].session
    # Its turn ended with its worker still out, whose approval waits on its timeline too.
    wait_for(lambda: helper.state == "subagent_awaiting_approval")
    on_helper = helper.pending_approval
    own = worker.pending_approval
    assert not worker.settings.plan_mode and worker.state == "awaiting_approval"

    s.configure(plan_mode=True)
    for sub in (helper, worker):
        assert sub.settings.plan_mode
    # The worker's approval of bash is withdrawn: shown as expired on every timeline above it, its call
    # answered in a sentence, and nothing is left to approve — the worker goes on under plan mode.
    assert s.card(mirror.id).decision == "expired" and helper.card(on_helper.id).decision == "expired"
    assert worker.card(own.id).decision == "expired"
    assert s.pending_approval is None and helper.pending_approval is None and s.status_line is None
    with pytest.raises(mw.InvalidInput, match="No approval is waiting in this session"):
        s.approve()
    top = ended(s)
    assert top.state == "completed"
    call = worker.card(own.tool_card_id)
    assert call.status == "denied" and call.result == plan_withdrawal("bash")
    assert not (workspace / "made-by-worker").exists()
    for sub in (helper, worker):  # told once: the turns that went on found it already said
        assert [c.text for c in sub.cards if c.kind == "host_message" and c.topic == "plan_mode"] == [PLAN_ON]
    # The worker read the answer and the host message in the request it went on with.
    kinds = [c.kind for c in worker.cards]
    assert kinds.index("host_message") < len(kinds) - 1 and worker.cards[-1].kind == "model_reply"

    s.configure(plan_mode=False)  # they ended: conversations of their own now, left as they are
    assert helper.settings.plan_mode and worker.settings.plan_mode
    assert s.cards[-1].text == PLAN_OFF and helper.cards[-1].kind != "host_message"


def test_a_subagent_configured_into_plan_mode_while_its_approval_waits_goes_on(workspace):
    s, mirror, child, own = waiting_helper(workspace)
    child.configure(plan_mode=True)  # on the subagent itself (its widget, or %mewrk set in it)
    assert s.card(mirror.id).decision == "expired" and child.card(own.id).decision == "expired"
    card = ended(s)
    assert card.state == "completed" and "from-helper" not in card.result
    assert child.card(own.tool_card_id).result == plan_withdrawal("bash")


def test_plan_mode_leaves_a_subagents_approval_of_a_tool_it_offers(workspace):
    agents(workspace)
    (workspace / ".mewrk" / "policy").mkdir(parents=True, exist_ok=True)
    (workspace / ".mewrk" / "policy" / "default.yaml").write_text(
        "safety_level: default\nallow: [ls]\nask: [read, bash, write, edit, python]\n"
    )
    mw.trust(workspace)
    (workspace / "notes.txt").write_text("read me")
    s = mw.Session.new()
    s.send(SPAWN % 'call: read {\\"path\\": \\"notes.txt\\"}')
    mirror = wait_for(lambda: s.pending_approval)
    assert mirror.name == "read"
    s.configure(plan_mode=True)  # reading is a planner's work: the approval stays for the person
    assert s.pending_approval == mirror and s.card(mirror.id).decision == "pending"
    s.approve()
    card = ended(s)
    assert card.state == "completed" and "read me" in card.result


def test_a_subagent_that_ended_is_a_conversation_whose_approval_plan_mode_withdraws(workspace):
    s, _, child, own = waiting_helper(workspace)
    s.approve()
    assert ended(s).state == "completed"
    child.send(GATED.replace('\\"', '"'))  # the person goes on with it: nobody follows it but them
    waiting = child.pending_approval
    assert waiting is not None and waiting.id != own.id and child.state == "awaiting_approval"
    child.configure(plan_mode=True)
    assert child.card(waiting.id).decision == "expired" and child.state == "idle"
    assert child.card(waiting.tool_card_id).result == plan_withdrawal("bash")


def test_a_subagent_card_put_back_by_undo_after_the_subagent_ended_says_how_it_ended(workspace):
    agents(workspace)
    s = mw.Session.new()
    s.send(SPAWN % GATED)
    wait_for(lambda: s.pending_approval)
    # The card says so a moment after the approval shows: delete it once it does.
    card = wait_for(lambda: next((c for c in subagent_cards(s) if c.state == "awaiting_approval"), None))
    s.delete(card.id)
    s.stop()
    wait_for(lambda: running_background_work(s.id) == [])
    s.undo()
    assert subagent_cards(s)[0].state == "awaiting_approval"  # as it was when it was deleted
    s.send("and?")
    back = subagent_cards(s)[0]
    assert back.state == "stopped" and back.result.endswith("(The subagent was stopped before it finished.)")
    assert len(notifications(s)) == 1
