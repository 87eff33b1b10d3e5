"""Plan mode against the local wire server, with a real MCP server (tests/tools/mcp_server.py): the request
offers the read-only built-ins and the MCP tools its server marks read-only (`readOnlyHint`), nothing
else; a read-only MCP tool still runs; a held MCP tool that changes things is answered without running;
a subagent started in plan mode plans too, its own requests offering the same narrowed list; one at work
when plan mode turns on follows it at its next request (the tool lock holds no subagent at work), and one
that waits for the approval of a withheld call has it withdrawn and goes on planning."""

from __future__ import annotations

import sys
import threading
from pathlib import Path

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.toolbox.policy import PLAN_ON, plan_withdrawal

from ..conftest import alive, wait_for
from .three import Wire
from .wire import responses_function_call, responses_reply

SERVER = Path(__file__).resolve().parents[1] / "tools" / "mcp_server.py"
# The server's tools in its order; `add` and `env` are annotated read-only, `sleep` and `crash` are not.
MCP_TOOLS = ["mcp__calc__add", "mcp__calc__env", "mcp__calc__sleep", "mcp__calc__crash"]
READ_ONLY_BUILT_INS = ["ls", "read", "grep", "find", "lsp"]
ONE_PROTOCOL = pytest.mark.parametrize("wire", ["responses"], indirect=True)


def helper_on_the_wire(workspace: Path, wire: Wire, tools: str, allow: str = "[ls, read]") -> None:
    """Agents whose parent is an offline model (it spawns when told to) and whose `helper`, with `tools`,
    talks to the wire server alone; the safety level allows `allow`, and asks for the rest."""
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    (agents / "main.yaml").write_text("model: offline/echo\ntools: [read, agent_spawn, task_wait]\n")
    (agents / "helper.yaml").write_text(f"model: {wire.model}\ntools: {tools}\n")
    (workspace / ".mewrk" / "policy").mkdir(parents=True, exist_ok=True)
    (workspace / ".mewrk" / "policy" / "default.yaml").write_text(f"safety_level: default\nallow: {allow}\n")
    mw.trust(workspace)


def calc(workspace: Path) -> Path:
    """The test MCP server as `calc`, all its tools allowed by the safety level (so only plan mode stops
    one); returns the file its process id is written to."""
    pid_file = workspace / "calc.pid"
    home = workspace / ".mewrk"
    (home / "mcp").mkdir(parents=True, exist_ok=True)
    (home / "mcp" / "calc.yaml").write_text(
        f"command: {sys.executable}\nargs: [{SERVER}]\nenv: {{PID_FILE: '{pid_file}'}}\n"
    )
    (home / "policy").mkdir(parents=True, exist_ok=True)
    (home / "policy" / "default.yaml").write_text("safety_level: default\nallow: [ls, read, mcp__calc]\n")
    mw.trust(workspace)
    return pid_file


@ONE_PROTOCOL
def test_plan_mode_sends_the_read_only_tools_and_a_read_only_mcp_tool_still_runs(
    wire: Wire, wire_server, workspace
):
    calc(workspace)
    s = mw.Session.new(model=wire.model, plan_mode=True)
    wire_server.enqueue(wire.call("mcp__calc__add", {"a": 2, "b": 3}), wire.reply("It is 5; the plan: …"))
    run = s.send("what is 2 + 3, and plan the rest")
    assert run.state == "done", run.error
    first = wire_server.json_bodies()[0]
    assert wire.tools(first) == [*READ_ONLY_BUILT_INS, "mcp__calc__add", "mcp__calc__env"]
    [call] = [c for c in s.cards if c.kind == "tool_call"]
    assert (call.name, call.status, call.result, call.is_error) == ("mcp__calc__add", "done", "5", False)
    assert ("user", "result:5") in wire.turns(wire_server.json_bodies()[1])

    s.configure(plan_mode=False)
    s.accept_tool_change()
    wire_server.enqueue(wire.reply("Carrying it out."))
    s.send("go ahead")
    assert wire.tools(wire_server.json_bodies()[-1]) == [
        "ls", "read", "grep", "find", "write", "edit", "bash", "lsp", *MCP_TOOLS
    ]  # fmt: skip


@ONE_PROTOCOL
def test_a_held_mcp_tool_that_changes_things_is_answered_without_running(wire: Wire, wire_server, workspace):
    pid_file = calc(workspace)
    s = mw.Session.new(model=wire.model)
    wire_server.enqueue(wire.reply("Hello."))
    s.send("hello")
    s.configure(plan_mode=True)
    lock = s.tool_lock  # the prompt cache is warm: the last request's list is held
    assert (
        lock is not None
        and "still offered: write, edit, bash, mcp__calc__sleep, mcp__calc__crash" in lock.text
    )
    # `crash` ends the server's process when it runs: a server still alive after the call shows it did not.
    wire_server.enqueue(wire.call("mcp__calc__crash", {}), wire.reply("A plan instead."))
    run = s.send("crash the server")
    assert run.state == "done", run.error
    body = wire_server.json_bodies()[1]
    assert "mcp__calc__crash" in wire.tools(body)  # still declared: the lock holds it
    [call] = [c for c in s.cards if c.kind == "tool_call"]
    assert call.status == "denied" and not call.is_error
    assert call.result == (
        "Plan mode is on, so `mcp__calc__crash` is not offered and this call was not run. Present your "
        "plan; the person turns plan mode off when it is time to carry it out."
    )
    assert ("user", f"result:{call.result}") in wire.turns(wire_server.json_bodies()[2])
    assert alive(pid_file) and [m.state for m in s.mcp_servers()] == ["running"]
    assert not [c for c in s.cards if c.kind == "host_message" and c.topic == "mcp"]


@ONE_PROTOCOL
def test_a_subagent_started_in_plan_mode_plans_too(wire: Wire, wire_server, workspace):
    calc(workspace)
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    # The parent is an offline model (it spawns when told to); only the helper talks to the wire server.
    (agents / "main.yaml").write_text("model: offline/echo\ntools: [read, agent_spawn, task_wait]\n")
    (agents / "helper.yaml").write_text(f"model: {wire.model}\ntools: [read, write, bash, mcp__calc]\n")
    mw.trust(workspace)
    wire_server.enqueue(
        wire.call("write", {"path": "plan.txt", "content": "changed"}), wire.reply("My plan.")
    )
    s = mw.Session.new(plan_mode=True)
    s.send('call: agent_spawn {"agent": "helper", "task": "tidy up"}')
    card = wait_for(lambda: (c := next(c for c in s.cards if c.kind == "subagent")).state != "running" and c)
    assert card.state == "completed" and card.result == "My plan."
    child = card.session
    assert child.settings.plan_mode
    first = wire_server.json_bodies()[0]
    assert wire.tools(first) == ["read", "mcp__calc__add", "mcp__calc__env"]
    assert wire.turns(first) == [
        ("user", f"<system-reminder>\n{PLAN_ON}\n</system-reminder>"),
        ("user", "tidy up"),
    ]
    [call] = [c for c in child.cards if c.kind == "tool_call"]
    assert call.status == "denied" and call.result.startswith("Plan mode is on, so `write` is not offered")
    assert not (workspace / "plan.txt").exists()


def command_tools(workspace: Path) -> None:
    """Two command tools, both allowed by the safety level: `look` declared read-only, `mark` (which
    creates `made.txt`) not."""
    home = workspace / ".mewrk"
    (home / "tools").mkdir(parents=True, exist_ok=True)
    (home / "tools" / "look.yaml").write_text(
        "name: look\ndescription: Say what is there.\ncommand: echo looked\n"
        "parameters: {type: object}\nread_only: true\n"
    )
    (home / "tools" / "mark.yaml").write_text(
        "name: mark\ndescription: Mark the folder.\ncommand: touch made.txt\nparameters: {type: object}\n"
    )
    (home / "policy").mkdir(parents=True, exist_ok=True)
    (home / "policy" / "default.yaml").write_text("safety_level: default\nallow: [ls, read, look, mark]\n")
    mw.trust(workspace)


@ONE_PROTOCOL
def test_plan_mode_offers_a_command_tool_only_when_its_file_says_it_is_read_only(
    wire: Wire, wire_server, workspace
):
    command_tools(workspace)
    s = mw.Session.new(model=wire.model)
    wire_server.enqueue(wire.reply("Hello."))
    s.send("hello")
    assert wire.tools(wire_server.json_bodies()[0]) == [
        "ls", "read", "grep", "find", "write", "edit", "bash", "lsp", "look", "mark"
    ]  # fmt: skip
    s.configure(plan_mode=True)
    lock = s.tool_lock  # the prompt cache is warm: the last request's list is held
    assert lock is not None and "still offered: write, edit, bash, mark" in lock.text

    # A call of `mark` still arrives under the lock: answered without running (`made.txt` is not made).
    wire_server.enqueue(wire.call("mark", {}), wire.reply("A plan instead."))
    run = s.send("mark the folder")
    assert run.state == "done", run.error
    assert "mark" in wire.tools(wire_server.json_bodies()[1])
    [call] = [c for c in s.cards if c.kind == "tool_call"]
    assert (call.name, call.status, call.is_error) == ("mark", "denied", False)
    assert call.result == (
        "Plan mode is on, so `mark` is not offered and this call was not run. Present your plan; the "
        "person turns plan mode off when it is time to carry it out."
    )
    assert ("user", f"result:{call.result}") in wire.turns(wire_server.json_bodies()[2])
    assert not (workspace / "made.txt").exists()

    # Once the new list is accepted: the read-only built-ins and `look`, which still runs.
    s.accept_tool_change()
    wire_server.enqueue(wire.call("look", {}), wire.reply("Looked; the plan: …"))
    run = s.send("look first")
    assert run.state == "done", run.error
    assert wire.tools(wire_server.json_bodies()[3]) == [*READ_ONLY_BUILT_INS, "look"]
    looked = [c for c in s.cards if c.kind == "tool_call"][-1]
    assert (looked.name, looked.status, looked.result, looked.is_error) == ("look", "done", "looked\n", False)
    assert not (workspace / "made.txt").exists()


@ONE_PROTOCOL
def test_plan_mode_turned_on_reaches_a_subagent_whose_turn_waits_on_a_slow_reply(
    wire: Wire, wire_server, workspace
):
    helper_on_the_wire(workspace, wire, "[read, write]", allow="[read, write]")
    # The helper's first reply, a `write` (which the safety level lets run), waits until the gate opens.
    gate = threading.Event()
    wire_server.enqueue(
        responses_reply(responses_function_call("write", {"path": "plan.txt", "content": "x"}), gate=gate),
        wire.reply("My plan."),
    )
    s = mw.Session.new()
    s.send('call: agent_spawn {"agent": "helper", "task": "tidy up"}')
    child = next(c for c in s.cards if c.kind == "subagent").session
    wait_for(lambda: len(wire_server.requests) == 1)  # the helper's turn waits on its reply
    assert child.state == "running" and not child.settings.plan_mode

    s.configure(plan_mode=True)  # the parent is idle: its subagent works on
    assert s.cards[-1].kind == "host_message" and s.cards[-1].text == PLAN_ON
    assert child.settings.plan_mode  # stored now; its turn tells the model before its next request
    assert [c.kind for c in child.cards] == ["user_input"]
    gate.set()

    card = wait_for(lambda: (c := next(c for c in s.cards if c.kind == "subagent")).state != "running" and c)
    assert card.state == "completed" and card.result == "My plan."
    # The `write` arrived after plan mode began: answered without running.
    [call] = [c for c in child.cards if c.kind == "tool_call"]
    assert (call.name, call.status, call.is_error) == ("write", "denied", False)
    assert call.result.startswith("Plan mode is on, so `write` is not offered and this call was not run.")
    assert not (workspace / "plan.txt").exists()
    assert [c.kind for c in child.cards] == ["user_input", "tool_call", "host_message", "model_reply"]
    # Its next request goes with the parent's host message after the answer, and with the narrowed list:
    # its prompt cache is warm, but a subagent at work is not held (nobody is there to accept the loss).
    second = wire_server.json_bodies()[1]
    assert wire.turns(second) == [
        ("user", "tidy up"),
        ("assistant", "call:write"),
        ("user", f"result:{call.result}"),
        ("user", f"<system-reminder>\n{PLAN_ON}\n</system-reminder>"),
    ]
    assert wire.tools(wire_server.json_bodies()[0]) == ["read", "write"]
    assert wire.tools(second) == ["read"]


def test_a_subagent_waiting_for_a_withheld_call_goes_on_planning_its_tools_not_held(
    wire: Wire, wire_server, workspace
):
    helper_on_the_wire(workspace, wire, "[read, bash]")
    # The helper calls bash (it asks), then answers once it goes on.
    wire_server.enqueue(wire.call("bash", {"command": "touch made-by-helper"}), wire.reply("A plan."))
    s = mw.Session.new()
    s.send('call: agent_spawn {"agent": "helper", "task": "tidy up"}')
    mirror = wait_for(lambda: s.pending_approval)
    helper = next(c for c in s.cards if c.kind == "subagent").session
    assert wire.tools(wire_server.json_bodies()[0]) == ["read", "bash"]

    # The approval is withdrawn; the helper's prompt cache is warm, yet nobody is asked to accept its
    # loss: the subagent is nobody's to watch, and plan mode reaches its next request as it is.
    s.configure(plan_mode=True)
    assert s.card(mirror.id).decision == "expired" and s.pending_approval is None
    card = wait_for(
        lambda: (c := next(c for c in s.cards if c.kind == "subagent")).state == "completed" and c
    )
    assert card.result == "A plan." and not (workspace / "made-by-helper").exists()
    second = wire_server.json_bodies()[1]
    assert wire.tools(second) == ["read"]
    assert wire.turns(second) == [
        ("user", "tidy up"),
        ("assistant", "call:bash"),
        ("user", f"result:{plan_withdrawal('bash')}"),
        ("user", f"<system-reminder>\n{PLAN_ON}\n</system-reminder>"),
    ]
    # It ended: a conversation of its own now, held like any other; its list is its last request's.
    assert helper.tool_lock is None
