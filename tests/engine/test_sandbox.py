"""A session's commands in their sandbox: the session says at its start where there is none, a policy
can require one, a folder not trusted yet cannot turn it off, and hooks and stdio MCP servers run in it
as bash does."""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator
from pathlib import Path

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.tools import sandbox as sandbox_module
from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.vendors import write_vendor
from tests.providers.wire import WireServer, anthropic_reply, anthropic_tool_use

SERVER = Path(__file__).resolve().parents[1] / "tools" / "mcp_server.py"


@pytest.fixture
def confinement(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """This process's sandbox as `request.param` names it (bubblewrap, or the lesser unshare / none)."""
    wanted = getattr(request, "param", "bubblewrap")
    if wanted == "bubblewrap":
        monkeypatch.delenv("MEWRK_SANDBOX", raising=False)
    else:
        monkeypatch.setenv("MEWRK_SANDBOX", wanted)
    sandbox_module.available.cache_clear()
    have = sandbox_module.available()
    if have.kind != wanted:
        message = f"the tests need a {wanted} sandbox on this machine: {have.why}"
        pytest.fail(message) if os.environ.get("MEWRK_REQUIRE_GATES") else pytest.skip(message)
    yield wanted
    sandbox_module.available.cache_clear()


def policy(workspace: Path, text: str) -> None:
    folder = workspace / ".mewrk" / "policy"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "default.yaml").write_text(f"safety_level: default\nallow: [bash]\n{text}")


def notices_of_new_session(**kwargs: object) -> tuple[mw.Session, list[str]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        session = mw.Session.new(**kwargs)  # type: ignore[arg-type]
    return session, [str(w.message) for w in caught if issubclass(w.category, mw.ConfigNotice)]


def parent_of_bash(s: mw.Session) -> str:
    s.send('call: bash {"command": "echo parent=$PPID"}')
    return [c.result for c in s.cards if c.kind == "tool_call"][-1]


@pytest.mark.parametrize("confinement", ["none"], indirect=True)
def test_a_session_says_when_it_starts_that_its_commands_run_without_a_sandbox(workspace, confinement):
    _, notices = notices_of_new_session()
    said = [n for n in notices if n.startswith("Commands run without a sandbox here")]
    assert len(said) == 1
    assert "MEWRK_SANDBOX=none" in said[0] and "apt install bubblewrap" in said[0]
    assert "`sandbox: required` in policy/default.yaml" in said[0]


@pytest.mark.parametrize("confinement", ["unshare"], indirect=True)
def test_a_session_says_when_its_commands_are_out_of_sight_of_the_kernel_but_not_of_its_files(
    workspace, confinement
):
    _, notices = notices_of_new_session()
    assert any(n.startswith("Commands run in a PID namespace of their own (unshare)") for n in notices)


def test_in_bubblewrap_s_sandbox_a_session_says_nothing_of_it(workspace, confinement):
    _, notices = notices_of_new_session()
    assert not any("sandbox" in n or "namespace" in n for n in notices)


def test_an_agent_that_runs_no_command_is_told_nothing_of_the_sandbox(workspace, monkeypatch):
    monkeypatch.setenv("MEWRK_SANDBOX", "none")
    sandbox_module.available.cache_clear()
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True)
    (agents / "main.yaml").write_text("model: offline/echo\ntools: [ls, read, grep]\n")
    try:
        _, notices = notices_of_new_session()
    finally:
        sandbox_module.available.cache_clear()
    assert not any("sandbox" in n for n in notices)


@pytest.mark.parametrize("confinement", ["none"], indirect=True)
def test_a_policy_that_requires_a_sandbox_refuses_bash_where_there_is_none(workspace, confinement):
    policy(workspace, "sandbox: required\n")
    s, notices = notices_of_new_session()
    assert any("requires one (`sandbox: required` in policy/default.yaml)" in n for n in notices)
    s.send('call: bash {"command": "touch ran"}')
    call = [c for c in s.cards if c.kind == "tool_call"][-1]
    assert call.is_error and call.result.startswith("`bash` was not run: the safety level requires a sandbox")
    assert not (workspace / "ran").exists()


def test_a_folder_not_trusted_yet_cannot_turn_the_sandbox_off(workspace, confinement):
    policy(workspace, "sandbox: off\n")
    s, notices = notices_of_new_session()
    # The folder asks for it, so it waits for trust, and says what it would do.
    assert any(
        "let the commands it runs run outside the sandbox (policy/default.yaml, sandbox: off)" in n
        for n in notices
    )
    assert parent_of_bash(s) in ("parent=1\n", "parent=0\n")  # still in its PID namespace
    mw.trust(workspace)
    trusted = mw.Session.new()
    assert parent_of_bash(trusted) == f"parent={os.getpid()}\n"  # the person turned it off


def test_a_hook_runs_in_the_sandbox(workspace, confinement):
    hooks = workspace / ".mewrk" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "who.yaml").write_text("event: session_start\ncommand: echo hook-parent=$PPID; ls ~ | wc -l\n")
    mw.trust(workspace)
    s = mw.Session.new()
    said = [c.text for c in s.cards if c.kind == "host_message"]
    assert said == ["Hook `who` (session_start):\nhook-parent=1\n0\n"]


def test_a_stdio_mcp_server_runs_in_the_sandbox(workspace, confinement, wire_server: WireServer, monkeypatch):  # noqa: F811
    monkeypatch.setenv("SBX_CRED", "cred-sandbox-0099887766")
    write_vendor(
        workspace, "a", "anthropic-messages", wire_server.url, "  m: {context_window: 100000}\n", "SBX_CRED"
    )
    (workspace / ".mewrk" / "mcp").mkdir(parents=True)
    (workspace / ".mewrk" / "mcp" / "calc.yaml").write_text(f"command: {sys.executable}\nargs: [{SERVER}]\n")
    policy(workspace, "")
    mw.trust(workspace)
    wire_server.enqueue(anthropic_reply(anthropic_tool_use("mcp__calc__env", {"name": "HOME"})))
    wire_server.enqueue(anthropic_reply(anthropic_tool_use("mcp__calc__add", {"a": 2, "b": 3})))
    wire_server.enqueue(anthropic_reply("Done."))
    s = mw.Session.new(model="a/m")
    s.send("look")
    if s.state == "awaiting_approval":
        s.approve()
    if s.state == "awaiting_approval":
        s.approve()
    results = [c.result for c in s.cards if c.kind == "tool_call"]
    assert results[-1] == "5"
    # The server was started by bubblewrap, not by the kernel: its parent is not this process.
    servers = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and str(SERVER).encode() in (entry / "cmdline").read_bytes():
                servers.append((entry / "cmdline").read_bytes().split(b"\0")[0])
        except OSError:
            continue
    assert b"bwrap" in servers
