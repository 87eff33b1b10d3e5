"""bash: output, exit codes, timeouts and stops that kill the whole process group, long output."""

from __future__ import annotations

import threading
from pathlib import Path

from mewrk_jupyter.tools import ToolRegistry, ToolResult
from tests.conftest import sleeping, wait_for


def _gone(seconds: str) -> bool:
    """True once no `sleep <seconds>` runs (reaped, or a zombie waiting to be)."""
    return not sleeping(seconds)


def test_bash_runs_in_the_workspace_root(registry: ToolRegistry, ws: Path):
    result = registry.run("bash", {"command": "pwd"})
    assert (result.is_error, result.text) == (False, f"{ws.resolve()}\n")


def test_bash_combines_stdout_and_stderr_and_reports_a_failing_exit_code(registry: ToolRegistry):
    result = registry.run("bash", {"command": "echo out; echo err >&2; exit 3"})
    assert result == ToolResult(text="out\nerr\n[exit code 3]", is_error=True)


def test_bash_with_no_output(registry: ToolRegistry):
    assert registry.run("bash", {"command": "true"}) == ToolResult(text="(no output)")
    assert registry.run("bash", {"command": "exit 1"}) == ToolResult(text="[exit code 1]", is_error=True)


def test_bash_timeout_kills_the_whole_process_group(registry: ToolRegistry, ws: Path):
    result = registry.run("bash", {"command": "sleep 300.01 & echo started; wait", "timeout": 1})
    assert result == ToolResult(
        text="started\n[timed out: the command was stopped after 1 seconds]", is_error=True
    )
    wait_for(lambda: _gone("300.01"))


def test_bash_stops_promptly_when_cancelled(registry: ToolRegistry, ws: Path):
    cancel = threading.Event()
    results: list[ToolResult] = []
    command = "sleep 300.02 & touch started; wait"
    worker = threading.Thread(
        target=lambda: results.append(registry.run("bash", {"command": command}, cancel))
    )
    worker.start()
    wait_for(lambda: (ws / "started").exists())
    cancel.set()
    worker.join(timeout=60)
    assert results == [
        ToolResult(text="[stopped: the command was stopped before it finished]", is_error=True)
    ]
    wait_for(lambda: _gone("300.02"))


def test_bash_does_not_wait_for_background_children(registry: ToolRegistry, ws: Path):
    # The background sleep holds the output pipe open; the call must still end when bash does.
    result = registry.run("bash", {"command": "(sleep 300.03; echo late) & echo done"})
    assert result == ToolResult(text="done\n")
    wait_for(lambda: _gone("300.03"))


def test_long_output_is_cut_by_lines_with_a_note(registry: ToolRegistry):
    result = registry.run("bash", {"command": "seq 1 5000"})
    assert result.truncated and not result.is_error
    lines = result.text.splitlines()
    assert lines[:2] == ["1", "2"]
    assert lines[1999] == "2000"
    shown = sum(len(str(n)) + 1 for n in range(1, 2001))
    assert lines[2000] == (
        "[output truncated: 23,893 characters, 5,000 lines; "
        f"showing the first {shown:,} characters (2,000 lines)]"
    )
    assert len(lines) == 2001


def test_huge_output_is_counted_not_kept(registry: ToolRegistry):
    result = registry.run("bash", {"command": "seq 1 100000; exit 2"})
    assert result.truncated and result.is_error
    assert "[output truncated: 588,895 characters, 100,000 lines; showing the first" in result.text
    assert result.text.endswith("(2,000 lines)]\n[exit code 2]")


def test_a_single_huge_line_is_cut_by_characters(registry: ToolRegistry):
    result = registry.run("bash", {"command": "head -c 50000 /dev/zero | tr '\\0' a"})
    assert result.truncated
    assert (
        result.text
        == "a" * 30_000
        + "\n[output truncated: 50,000 characters, 1 line; showing the first 30,000 characters (1 line)]"
    )


def test_bash_timeout_must_be_positive(registry: ToolRegistry):
    result = registry.run("bash", {"command": "true", "timeout": 0})
    assert result == ToolResult(
        text="Invalid parameters for `bash`: `timeout` must be at least 1; got 0.", is_error=True
    )


def test_a_command_that_closes_its_output_still_runs_to_the_end(registry: ToolRegistry, ws: Path):
    result = registry.run("bash", {"command": "echo early; exec >&- 2>&-; sleep 0.2; touch finished"})
    assert result == ToolResult(text="early\n")
    assert (ws / "finished").exists()
