"""One MCP server process per workspace and process: the sessions of a kernel share the real test server,
a changed file or a lost trust ends it for all of them, and the last session to let it go stops it."""

from __future__ import annotations

import gc
import os
import sys
from pathlib import Path

import nbformat
from nbclient import NotebookClient

import mewrk_jupyter as mw
from tests.conftest import forget_process_state, processes_with, wait_for

from .test_mcp import SERVER, mcp_file

ADD = "mcp__calc__add"


def counted_server(workspace: Path, extra: str = "") -> Path:
    """The test server over stdio, writing a line to the returned file each time a process of it starts."""
    log = workspace / "starts.log"
    mcp_file(
        workspace,
        "calc",
        f"command: {sys.executable}\nargs: [{SERVER}]\nenv: {{START_LOG: '{log}'{extra}}}\n",
    )
    return log


def starts(log: Path) -> list[int]:
    return [int(line) for line in log.read_text().split()] if log.exists() else []


def running(log: Path) -> list[int]:
    """The server processes of `log` running now (their ids outside their sandbox)."""
    return processes_with("START_LOG", str(log))


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def gone_once_collected(pid: int) -> bool:
    """Whether the process `pid` ended, once the sessions nothing uses are collected (a run's thread may
    still hold its session for a moment after the run ended)."""
    gc.collect()
    return not alive(pid)


def added(s: mw.Session, a: int, b: int) -> str | None:
    """Run the server's `add` by hand in `s`, approve it, and return its result."""
    assert s.execute(ADD, {"a": a, "b": b}).state == "awaiting_approval"  # the safety level asks
    assert s.approve().wait().state == "done"
    return [c.result for c in s.cards if c.kind == "tool_call"][-1]


def test_the_sessions_of_a_notebook_kernel_share_one_server_process(workspace: Path):
    log = counted_server(workspace)
    cells = ["%load_ext mewrk_jupyter", "%mewrk new first", "%mewrk mcp", "%mewrk new second", "%mewrk mcp"]
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(line) for line in cells])
    NotebookClient(
        nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(workspace)}}
    ).execute(env=dict(os.environ))
    for cell in (nb.cells[2], nb.cells[4]):
        shown = "".join(out.get("data", {}).get("text/markdown", "") for out in cell.outputs)
        assert "running, 4 tools" in shown
    assert len(starts(log)) == 1
    wait_for(lambda: not running(log))  # the kernel is gone, and so is its server


def test_two_sessions_call_one_process_which_ends_with_the_last_of_them(workspace: Path):
    log = counted_server(workspace)
    first, second = mw.Session.new(title="first"), mw.Session.new(title="second")
    assert [x.state for x in first.mcp_servers()] == [x.state for x in second.mcp_servers()] == ["running"]
    assert len(starts(log)) == 1
    [pid] = running(log)
    assert added(first, 1, 2) == "3" and added(second, 20, 22) == "42"

    del first
    forget_process_state()  # its finished runs go too; `second` is still held here
    gc.collect()
    assert alive(pid)  # the second session still uses it
    assert added(second, 2, 2) == "4"
    assert len(starts(log)) == 1 and running(log) == [pid]

    del second
    forget_process_state()
    wait_for(lambda: gone_once_collected(pid))
    third = mw.Session.new(title="third")  # nobody held it: a new session starts it again
    assert [x.state for x in third.mcp_servers()] == ["running"]
    assert len(starts(log)) == 2


def test_a_changed_file_ends_the_old_server_for_every_session_and_a_lost_trust_ends_it(workspace: Path):
    log = counted_server(workspace)
    first, second = mw.Session.new(title="first"), mw.Session.new(title="second")
    first.mcp_servers(), second.mcp_servers()
    assert len(starts(log)) == 1
    [old] = running(log)

    counted_server(workspace, ", GREETING: changed")  # the person edits the file, and trusts it again
    assert [x.state for x in first.mcp_servers()] == ["running"]
    wait_for(lambda: not alive(old))
    assert len(starts(log)) == 2
    [new] = running(log)
    assert [x.state for x in second.mcp_servers()] == ["running"]  # the same new process, not a third
    assert added(second, 1, 1) == "2" and len(starts(log)) == 2 and running(log) == [new]

    # An edit without trusting again: the folder is not trusted, and its server ends for both sessions.
    (workspace / ".mewrk" / "mcp" / "calc.yaml").write_text(
        f"command: {sys.executable}\nargs: [{SERVER}]\nenv: {{START_LOG: '{log}'}}\n"
    )
    [status] = second.mcp_servers()
    assert status.state == "stopped" and "not trusted" in status.reason
    wait_for(lambda: not alive(new))
    assert not any(spec.name.startswith("mcp__") for spec in first.tool_specs())
    forget_process_state()
