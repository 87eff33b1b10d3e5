"""MCP servers (`mcp/<name>.yaml`): a real server written with the official SDK, started by the session
over stdio or reached over streamable HTTP; its tools join a real turn against the wire server under the
safety level, a server that fails to start or dies becomes a host message and the turn goes on, and no
server process outlives its session."""

from __future__ import annotations

import gc
import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

import mewrk_jupyter as mw
from tests.conftest import alive, forget_process_state, processes_with, run_python, wait_for
from tests.magics.conftest import ip, mewrk  # noqa: F401  (the fixtures)
from tests.ports import free_port
from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.vendors import write_vendor
from tests.providers.wire import WireServer, anthropic_reply, anthropic_tool_use

SERVER = Path(__file__).resolve().parents[1] / "tools" / "mcp_server.py"
SECRET = "cred-mcp-99887766554433"
KERNEL_ONLY = "kernel-only-1122334455"


@pytest.fixture
def vendor(workspace: Path, wire_server: WireServer, monkeypatch: pytest.MonkeyPatch) -> WireServer:  # noqa: F811
    """A vendor on the wire server; the kernel also holds a secret the MCP file references, and a
    variable it does not name."""
    monkeypatch.setenv("MCP_CRED", SECRET)
    monkeypatch.setenv("KERNEL_ONLY", KERNEL_ONLY)
    write_vendor(
        workspace, "a", "anthropic-messages", wire_server.url, "  m: {context_window: 100000}\n", "MCP_CRED"
    )
    return wire_server


def mcp_file(workspace: Path, name: str, text: str) -> None:
    """Write `.mewrk/mcp/<name>.yaml` and trust the folder as it now stands."""
    folder = workspace / ".mewrk" / "mcp"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(text)
    mw.trust(workspace)


def stdio_server(workspace: Path, name: str = "calc", extra: str = "") -> Path:
    """The test server over stdio; returns the file its process id is written to."""
    pid_file = workspace / f"{name}.pid"
    mcp_file(
        workspace,
        name,
        f"command: {sys.executable}\nargs: [{SERVER}, --key, '${{MCP_CRED}}']\n"
        f"env: {{PID_FILE: '{pid_file}', TOKEN: '${{MCP_CRED}}', GREETING: hello}}\n{extra}",
    )
    return pid_file


def allow(workspace: Path, *names: str) -> None:
    policy = workspace / ".mewrk" / "policy"
    policy.mkdir(parents=True, exist_ok=True)
    (policy / "default.yaml").write_text(f"safety_level: default\nallow: [{', '.join(names)}]\n")
    mw.trust(workspace)


def hosts(s: mw.Session) -> list[str]:
    return [c.text for c in s.cards if c.kind == "host_message"]


def tool_results(request) -> list[dict]:
    return [
        block
        for message in request.json["messages"]
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]


def test_a_stdio_server_s_tools_join_a_turn_and_its_results_become_tool_cards(workspace, vendor):
    stdio_server(workspace)
    allow(workspace, "ls", "mcp__calc")  # every tool of the server runs without asking
    vendor.enqueue(
        anthropic_reply(
            anthropic_tool_use("mcp__calc__add", {"a": 2, "b": 3}),
            anthropic_tool_use("mcp__calc__env", {"name": "GREETING"}),
        )
    )
    vendor.enqueue(anthropic_reply("Five, and hello."))
    s = mw.Session.new(model="a/m")
    run = s.send("add 2 and 3")
    assert run.state == "done", run.error
    offered = {tool["name"]: tool for tool in vendor.requests[0].json["tools"]}
    assert offered["mcp__calc__add"]["input_schema"]["required"] == ["a", "b"]
    assert "Add two integers." in offered["mcp__calc__add"]["description"]
    calls = [c for c in s.cards if c.kind == "tool_call"]
    assert [(c.name, c.result, c.is_error) for c in calls] == [
        ("mcp__calc__add", "5", False),
        ("mcp__calc__env", "hello", False),
    ]
    assert [r["content"] for r in tool_results(vendor.requests[1])] == ["5", "hello"]
    assert s.cards[-1].text == "Five, and hello."
    assert [h.protocol for h in s.history][1:3] == ["tool", "tool"]  # each call is in the history


def test_a_server_sees_only_the_variables_its_file_names_and_a_secret_never_reaches_a_card(workspace, vendor):
    stdio_server(workspace)
    allow(workspace, "mcp__calc__env")
    vendor.enqueue(
        anthropic_reply(
            anthropic_tool_use("mcp__calc__env", {"name": "KERNEL_ONLY"}),
            anthropic_tool_use("mcp__calc__env", {"name": "TOKEN"}),
            anthropic_tool_use("mcp__calc__env", {"name": "ARGV"}),
        )
    )
    vendor.enqueue(anthropic_reply("Done."))
    s = mw.Session.new(model="a/m")
    assert s.send("look").state == "done"
    results = [c.result for c in s.cards if c.kind == "tool_call"]
    # The kernel's own variable is not passed on; the referenced secret is (as a variable and as an
    # argument), and is hidden in the card.
    assert results == ["<unset>", "[redacted]", "--key [redacted]"]
    assert s.mcp_servers()[0].where.endswith("mcp_server.py --key ${MCP_CRED}")
    stored = json.dumps([h.model_dump(mode="json") for h in s.history], default=str)
    assert SECRET not in stored and SECRET not in vendor.requests[1].raw_body.decode()


def test_a_tool_the_safety_level_does_not_list_asks_before_it_runs(workspace, vendor):
    stdio_server(workspace)
    vendor.enqueue(anthropic_reply(anthropic_tool_use("mcp__calc__add", {"a": 40, "b": 2})))
    vendor.enqueue(anthropic_reply("42."))
    s = mw.Session.new(model="a/m")
    assert s.tool_tier("mcp__calc__add") == "ask"
    run = s.send("add")
    assert run.state == "awaiting_approval"
    approval = s.pending_approval
    assert approval.name == "mcp__calc__add" and approval.params == {"a": 40, "b": 2}
    assert s.approve().wait().state == "done"
    [call] = [c for c in s.cards if c.kind == "tool_call"]
    assert call.result == "42" and s.cards[-1].text == "42."


def test_a_server_that_fails_to_start_is_a_host_message_and_the_turn_goes_on(workspace, vendor):
    mcp_file(workspace, "ghost", "command: /nonexistent/mcp-server\n")
    mcp_file(
        workspace,
        "quits",
        f"command: {sys.executable}\nargs: ['-c', 'import sys; print(\"no database here\", file=sys.stderr); sys.exit(2)']\n",
    )
    mcp_file(
        workspace,
        "mute",
        f"command: {sys.executable}\nargs: ['-c', 'import time; time.sleep(60)']\nstartup_timeout: 1\n",
    )
    vendor.enqueue(anthropic_reply("Fine without them."))
    s = mw.Session.new(model="a/m")
    run = s.send("hi")
    assert run.state == "done", run.error
    said = hosts(s)
    assert sorted(said) == [
        "The MCP server `ghost` failed to start: the command `/nonexistent/mcp-server` was not found. "
        "Its tools are not available in this conversation.",
        "The MCP server `mute` failed to start: it did not start within 1 second. "
        "Its tools are not available in this conversation.",
        "The MCP server `quits` failed to start: it exited before answering — it said: no database here. "
        "Its tools are not available in this conversation.",
    ]
    sent = vendor.requests[0].raw_body.decode()
    assert all(f"`{name}` failed to start" in sent for name in ("ghost", "mute", "quits"))
    assert s.cards[-1].text == "Fine without them."
    assert not any(t["name"].startswith("mcp__") for t in vendor.requests[0].json.get("tools", []))
    # Told once: the next request does not repeat it.
    vendor.enqueue(anthropic_reply("Still fine."))
    assert s.send("again").state == "done"
    assert len(hosts(s)) == 3


def test_a_server_that_dies_during_a_call_is_an_error_result_and_a_host_message(workspace, vendor):
    pid_file = stdio_server(workspace)
    allow(workspace, "mcp__calc")
    vendor.enqueue(anthropic_reply(anthropic_tool_use("mcp__calc__crash", {})))
    vendor.enqueue(anthropic_reply("It crashed."))
    s = mw.Session.new(model="a/m")
    run = s.send("crash it")
    assert run.state == "done", run.error
    [call] = [c for c in s.cards if c.kind == "tool_call"]
    assert call.is_error and "The MCP server `calc` is not running" in call.result
    [said] = hosts(s)
    assert said.startswith("The MCP server `calc` stopped: ")
    # The prompt cache is warm: the tool lock keeps the list the model saw (a call answers as above)…
    assert "mcp__calc__add" in [t["name"] for t in vendor.requests[1].json["tools"]]
    assert s.tool_lock is not None and "mcp__calc__add" in s.tool_lock.text
    assert not alive(pid_file)
    assert [(x.name, x.state) for x in s.mcp_servers()] == [("calc", "failed")]
    # …until the person accepts the cache loss: then the dead server's tools are gone.
    s.accept_tool_change()
    vendor.enqueue(anthropic_reply("Without it."))
    assert s.send("go on").state == "done"
    assert not any(t["name"].startswith("mcp__") for t in vendor.requests[2].json.get("tools", []))


def test_an_untrusted_folder_starts_no_server(workspace):
    folder = workspace / ".mewrk" / "mcp"
    folder.mkdir(parents=True)
    (folder / "calc.yaml").write_text(f"command: {sys.executable}\nargs: [{SERVER}]\n")
    with pytest.warns(mw.ConfigNotice, match=r"run the command `.*mcp_server.py` \(mcp/calc.yaml\)"):
        s = mw.Session.new()
    [status] = s.mcp_servers()
    assert status.state == "stopped" and "not trusted" in status.reason
    assert not any(spec.name.startswith("mcp__") for spec in s.tool_specs())


def test_the_server_stops_when_its_session_is_collected_and_when_the_process_exits(workspace, monkeypatch):
    monkeypatch.setenv("MCP_CRED", SECRET)
    pid_file = stdio_server(workspace)
    s = mw.Session.new()
    assert [x.state for x in s.mcp_servers()] == ["running"]
    assert alive(pid_file)
    del s
    forget_process_state()
    gc.collect()
    wait_for(lambda: not alive(pid_file))

    pid_file.unlink()
    done = run_python(
        """
        import mewrk_jupyter as mw
        s = mw.Session.new()
        print([x.state for x in s.mcp_servers()])
        """,
        workspace,
    )
    assert done.returncode == 0, done.stderr
    assert "['running']" in done.stdout
    wait_for(lambda: not alive(pid_file))


def listening(port: int) -> bool:
    with socket.socket() as probe:
        return probe.connect_ex(("127.0.0.1", port)) == 0


@pytest.fixture
def http_server(workspace: Path):
    """The test server over streamable HTTP, in a process of its own."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVER), "http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    wait_for(lambda: listening(port))
    try:
        yield f"http://127.0.0.1:{port}/mcp", process
    finally:
        process.terminate()
        process.wait(10)


def test_a_streamable_http_server_s_tools_join_a_turn(workspace, vendor, http_server):
    url, _ = http_server
    mcp_file(workspace, "web", f"url: {url}\nheaders: {{Authorization: '${{MCP_CRED}}'}}\n")
    allow(workspace, "mcp__web__add")
    vendor.enqueue(anthropic_reply(anthropic_tool_use("mcp__web__add", {"a": 1, "b": 1})))
    vendor.enqueue(anthropic_reply("Two."))
    s = mw.Session.new(model="a/m")
    run = s.send("1+1")
    assert run.state == "done", run.error
    [call] = [c for c in s.cards if c.kind == "tool_call"]
    assert (call.name, call.result) == ("mcp__web__add", "2")
    [status] = s.mcp_servers()
    assert (status.transport, status.state, status.where) == ("http", "running", url)


def test_an_http_server_that_went_away_is_an_error_result_and_a_host_message(workspace, vendor, http_server):
    url, process = http_server
    mcp_file(workspace, "web", f"url: {url}\n")
    allow(workspace, "mcp__web")
    s = mw.Session.new(model="a/m")
    assert [x.state for x in s.mcp_servers()] == ["running"]
    process.kill()  # the test's own server process
    process.wait(10)
    vendor.enqueue(anthropic_reply(anthropic_tool_use("mcp__web__add", {"a": 1, "b": 1})))
    vendor.enqueue(anthropic_reply("It is gone."))
    run = s.send("1+1")
    assert run.state == "done", run.error
    [call] = [c for c in s.cards if c.kind == "tool_call"]
    assert call.is_error and call.result.startswith("The MCP server `web` is not running")
    [said] = hosts(s)
    assert said.startswith("The MCP server `web` stopped: ")
    assert s.cards[-1].text == "It is gone."


def test_mewrk_mcp_lists_each_server_and_its_state(workspace, mewrk, monkeypatch):  # noqa: F811
    monkeypatch.setenv("MCP_CRED", SECRET)
    stdio_server(workspace)
    mcp_file(workspace, "ghost", "command: /nonexistent/mcp-server\n")
    mewrk("new")
    shown = mewrk("mcp")
    assert "| `calc` | stdio" in shown
    assert (
        "running, 4 tools | `mcp__calc__add`, `mcp__calc__env`, `mcp__calc__sleep`, `mcp__calc__crash` |"
        in shown
    )
    assert (
        "| `ghost` | stdio `/nonexistent/mcp-server` | failed: the command `/nonexistent/mcp-server` was not found |"
        in shown
    )
    assert "| `mcp__calc__add` | ask | Add two integers. |" in mewrk("tools")


def test_a_server_that_dies_between_turns_is_told_before_the_next_request(workspace, vendor):
    pid_file = stdio_server(workspace)
    s = mw.Session.new(model="a/m")
    assert [x.state for x in s.mcp_servers()] == ["running"]
    [pid] = processes_with("PID_FILE", str(pid_file))  # the test's own server process
    os.kill(pid, 9)
    wait_for(lambda: s.mcp_servers()[0].state == "failed")
    vendor.enqueue(anthropic_reply("Noted."))
    assert s.send("still there?").state == "done"
    [said] = hosts(s)
    assert said.startswith("The MCP server `calc` stopped: its process exited")
    assert said in vendor.requests[0].raw_body.decode()
    assert not any(t["name"].startswith("mcp__") for t in vendor.requests[0].json.get("tools", []))


def test_an_agent_with_a_tool_list_gets_only_the_mcp_tools_it_names(workspace, monkeypatch):
    monkeypatch.setenv("MCP_CRED", SECRET)
    stdio_server(workspace)
    stdio_server(workspace, "other")
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir()
    (agents / "main.yaml").write_text("model: offline/echo\ntools: [read, mcp__calc__add, mcp__other]\n")
    s = mw.Session.new()
    assert [x.state for x in s.mcp_servers()] == ["running", "running"]
    assert [spec.name for spec in s.tool_specs()] == [
        "read",
        "mcp__calc__add",
        "mcp__other__add",
        "mcp__other__env",
        "mcp__other__sleep",
        "mcp__other__crash",
    ]


def test_mcp_in_the_composer_says_what_the_notebook_says(workspace, mewrk, monkeypatch):  # noqa: F811
    from mewrk_jupyter import magics
    from tests.widget.recording import RecordingWidget

    monkeypatch.setenv("MCP_CRED", SECRET)
    stdio_server(workspace)
    (workspace / ".mewrk" / "mcp" / "bad.yaml").write_text("url: ftp://nowhere\n")
    mw.trust(workspace)
    with pytest.warns(mw.ConfigNotice):
        mewrk("new")
    view = RecordingWidget(magics.current_session())
    view.hello()
    try:
        answer = view.do("command", text="/mcp")
    finally:
        view.close()
    assert answer["ok"]
    assert answer["message"] == (
        "MCP servers: bad (failed: url must be an http:// or https:// address); calc (running, 4 tools)."
    )


def test_stop_ends_a_long_mcp_call_and_the_turn(workspace, vendor):
    stdio_server(workspace)
    allow(workspace, "mcp__calc")
    vendor.enqueue(anthropic_reply(anthropic_tool_use("mcp__calc__sleep", {"seconds": 60})))
    s = mw.Session.new(model="a/m")
    run = s.send("wait a minute", wait=False)
    wait_for(lambda: any(c.kind == "tool_call" and c.status == "running" for c in s.cards))
    s.stop()
    assert run.wait(30).state == "stopped"
    [call] = [c for c in s.cards if c.kind == "tool_call"]
    assert call.is_error and "stopped before it finished" in call.result
    assert [x.state for x in s.mcp_servers()] == ["running"]  # the server itself goes on


def test_a_call_past_the_server_s_timeout_ends_with_an_error_result(workspace, vendor):
    stdio_server(workspace, extra="timeout: 1\n")
    allow(workspace, "mcp__calc")
    vendor.enqueue(anthropic_reply(anthropic_tool_use("mcp__calc__sleep", {"seconds": 30})))
    vendor.enqueue(anthropic_reply("Too slow."))
    s = mw.Session.new(model="a/m")
    run = s.send("wait")
    assert run.state == "done", run.error
    [call] = [c for c in s.cards if c.kind == "tool_call"]
    assert call.is_error
    assert call.result == "The call to the MCP server `calc` failed: Request 'tools/call' timed out"
    assert [x.state for x in s.mcp_servers()] == ["running"]


def test_a_notebook_kernel_s_servers_end_with_the_kernel(workspace, monkeypatch):
    import nbformat
    from nbclient import NotebookClient

    monkeypatch.setenv("MCP_CRED", SECRET)
    pid_file = stdio_server(workspace)
    nb = nbformat.v4.new_notebook(
        cells=[
            nbformat.v4.new_code_cell(line)
            for line in ("%load_ext mewrk_jupyter", "%mewrk new", "%mewrk mcp")
        ]
    )
    NotebookClient(
        nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(workspace)}}
    ).execute(env=dict(os.environ))
    shown = "".join(out.get("data", {}).get("text/markdown", "") for out in nb.cells[2].outputs)
    assert "running, 4 tools" in shown
    wait_for(lambda: not alive(pid_file))  # the kernel is gone, and so is its server


def test_an_mcp_call_approved_in_a_new_process_or_run_by_hand_starts_its_server_first(workspace, vendor):
    stdio_server(workspace)
    vendor.enqueue(anthropic_reply(anthropic_tool_use("mcp__calc__add", {"a": 20, "b": 22})))
    vendor.enqueue(anthropic_reply("42."))
    s = mw.Session.new(model="a/m")
    assert s.send("add").state == "awaiting_approval"
    session_id = s.id
    del s
    forget_process_state()  # as if the approval came from another process
    gc.collect()
    again = mw.Session.open(session_id)
    assert again.approve().wait().state == "done"
    assert [c.result for c in again.cards if c.kind == "tool_call"] == ["42"]
    fresh = mw.Session.new(model="a/m")
    run = fresh.execute("mcp__calc__add", {"a": 1, "b": 2})
    assert run.state == "awaiting_approval"  # by hand too, an unlisted tool asks
    assert fresh.approve().wait().state == "done"
    assert [c.result for c in fresh.cards if c.kind == "tool_call"] == ["3"]
