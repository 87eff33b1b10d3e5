"""The sandbox a command runs in: out of sight of the kernel's processes, ending everything it started,
and (with bubblewrap) seeing only the system, the kernel's Python and the workspace.

Each test names the confinement it needs; `MEWRK_SANDBOX` takes the lesser ones on this machine, as a
machine without bubblewrap (or without either) would have them.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from mewrk_jupyter.tools import ToolRegistry, ToolResult
from mewrk_jupyter.tools import sandbox as sandbox_module
from mewrk_jupyter.tools.sandbox import SYSTEM_FOLDERS, Sandbox
from mewrk_jupyter.tools.shell import run_process
from tests.conftest import sleeping, wait_for

KINDS = ("bubblewrap", "unshare", "none")
KEY = "sk-ant-kernel-0123456789abcdef"


@pytest.fixture
def kind(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """The confinement `request.param` names, made the one this process probes (then probed again)."""
    wanted = request.param
    if wanted != "bubblewrap":
        monkeypatch.setenv("MEWRK_SANDBOX", wanted)
    else:
        monkeypatch.delenv("MEWRK_SANDBOX", raising=False)
    sandbox_module.available.cache_clear()
    have = sandbox_module.available()
    if have.kind != wanted and os.environ.get("MEWRK_REQUIRE_GATES"):
        pytest.fail(f"the tests need a {wanted} sandbox on this machine: {have.why}")
    if have.kind != wanted:
        pytest.skip(f"no {wanted} sandbox here: {have.why}")
    yield wanted
    sandbox_module.available.cache_clear()


def tools_in(ws: Path, **policy: object) -> ToolRegistry:
    """The built-in tools over `ws`, their commands in a sandbox of `policy` (Sandbox's fields)."""
    confined = Sandbox(ws, protected=(ws / ".mewrk",), **policy)  # type: ignore[arg-type]
    return ToolRegistry.build(ws, protected=[ws / ".mewrk"], sandbox=lambda: confined)


@pytest.mark.parametrize("kind", ["bubblewrap", "unshare"], indirect=True)
def test_the_kernel_s_environment_is_out_of_a_command_s_sight(kind, ws, monkeypatch):
    # The attacker's command: the kernel is the parent, so its environment as it started is in /proc.
    monkeypatch.setenv("ANTHROPIC_API_KEY", KEY)
    with tools_in(ws) as tools:
        own = tools.run("bash", {"command": "tr '\\0' '\\n' < /proc/$PPID/environ; echo parent=$PPID"})
        every = tools.run("bash", {"command": "cat /proc/[0-9]*/environ | base64 -w0"})
        listed = tools.run("bash", {"command": "ls /proc | grep -c '^[0-9]'"})
    # The namespace's own first process (bubblewrap's), or none: bash is the first (unshare's).
    assert "parent=1\n" in own.text or "parent=0\n" in own.text
    assert KEY not in own.text and "ANTHROPIC_API_KEY" not in own.text
    assert not every.is_error and "ANTHROPIC" not in __import__("base64").b64decode(every.text).decode()
    # Only the command's own processes: the namespace's first, bash, ls and grep at most.
    assert int(listed.text) <= 4


@pytest.mark.parametrize("kind", KINDS, indirect=True)
def test_stop_ends_a_setsid_grandchild(kind, ws):
    cancel = threading.Event()
    results: list[ToolResult] = []
    command = "setsid sleep 300.11 & (setsid sh -c 'sleep 300.12' &); touch started; wait"
    with tools_in(ws) as tools:
        worker = threading.Thread(
            target=lambda: results.append(tools.run("bash", {"command": command}, cancel))
        )
        worker.start()
        wait_for(lambda: (ws / "started").exists())
        wait_for(lambda: sleeping("300.11") and sleeping("300.12"))
        cancel.set()
        worker.join(timeout=60)
    assert results == [
        ToolResult(text="[stopped: the command was stopped before it finished]", is_error=True)
    ]
    wait_for(lambda: not sleeping("300.11") and not sleeping("300.12"))


@pytest.mark.parametrize("kind", KINDS, indirect=True)
def test_a_daemon_a_finished_command_left_behind_is_ended(kind, ws):
    with tools_in(ws) as tools:
        result = tools.run("bash", {"command": "(setsid sleep 300.13 > /dev/null 2>&1 &); echo done"})
    assert result == ToolResult(text="done\n")
    wait_for(lambda: not sleeping("300.13"))


@pytest.mark.parametrize("kind", ["bubblewrap"], indirect=True)
def test_a_command_sees_the_workspace_and_the_system_and_nothing_of_the_person_s(
    kind, ws, tmp_path, monkeypatch
):
    home = tmp_path / "home"
    (home / ".aws").mkdir(parents=True)
    (home / ".aws" / "credentials").write_text("aws_secret_access_key = AKIAWORKSPACE0000SECRET\n")
    monkeypatch.setenv("HOME", str(home))
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text("outside the workspace\n")
    (ws / ".mewrk" / "policy").mkdir(parents=True)
    (ws / "data.csv").write_text("a,b\n1,2\n")
    with tools_in(ws) as tools:
        run = lambda command: tools.run("bash", {"command": command})  # noqa: E731
        assert run("cat data.csv; echo new > made.txt").text == "a,b\n1,2\n"
        assert (ws / "made.txt").read_text() == "new\n"
        assert run("ls -A ~; cat ~/.aws/credentials").is_error  # an empty home
        assert "No such file" in run(f"cat {outside / 'notes.txt'}").text
        assert "Read-only file system" in run("echo x > .mewrk/policy/default.yaml").text
        refused = run("touch /usr/mewrk-was-here").text
        assert "Read-only file system" in refused
        assert refused.endswith(
            "[exit code 1]\n[sandbox: only the workspace is writable (its .mewrk/ is not); "
            "the person can open more folders with `sandbox: {write: [...]}` in the safety level's policy file]"
        )
        assert run("python -c 'import sys; print(sys.executable)'").text.strip().startswith(os.sys.prefix)
        assert run("echo scratch > /tmp/x && cat /tmp/x").text == "scratch\n"
    assert not (ws / ".mewrk" / "policy" / "default.yaml").exists()


@pytest.mark.parametrize("kind", ["bubblewrap"], indirect=True)
def test_secret_files_and_jupyter_s_runtime_folder_are_hidden_even_in_the_workspace(kind, ws):
    (ws / "token.txt").write_text("file-secret-0f1e2d3c4b5a\n")
    runtime = ws / "runtime"
    runtime.mkdir()
    (runtime / "kernel-1.json").write_text('{"key": "hmac-of-the-kernel"}')
    (ws / "link.txt").symlink_to(ws / "token.txt")
    with tools_in(ws, hidden=(ws / "token.txt", runtime)) as tools:
        shown = tools.run("bash", {"command": "cat token.txt link.txt runtime/*; ls runtime; echo end"})
    assert "file-secret" not in shown.text and "hmac" not in shown.text
    assert shown.text.endswith("end\n")


@pytest.mark.parametrize("kind", ["bubblewrap"], indirect=True)
def test_the_policy_s_read_and_write_folders_are_opened(kind, ws, tmp_path):
    data, cache = tmp_path / "data", tmp_path / "cache"
    data.mkdir()
    cache.mkdir()
    (data / "big.csv").write_text("x\n")
    with tools_in(ws, read=(data,), write=(cache,)) as tools:
        assert tools.run("bash", {"command": f"cat {data}/big.csv"}).text == "x\n"
        assert "Read-only file system" in tools.run("bash", {"command": f"touch {data}/y"}).text
        assert not tools.run("bash", {"command": f"echo c > {cache}/c"}).is_error
    assert (cache / "c").read_text() == "c\n"


@pytest.mark.parametrize("kind", ["none"], indirect=True)
def test_a_required_sandbox_where_there_is_none_refuses_the_command_with_a_sentence(kind, ws):
    with tools_in(ws, mode="required") as tools:
        result = tools.run("bash", {"command": "touch ran"})
    assert result.is_error and not (ws / "ran").exists()
    assert result.text.startswith("`bash` was not run: the safety level requires a sandbox for commands")
    assert "apt install bubblewrap" in result.text


@pytest.mark.parametrize("kind", KINDS, indirect=True)
def test_a_missing_program_is_said_as_without_a_sandbox(kind, ws):
    with tools_in(ws) as tools:
        tools_result = tools.run("bash", {"command": "no-such-program-for-mewrk"})
    assert "no-such-program-for-mewrk: command not found" in tools_result.text


@pytest.mark.parametrize("kind", KINDS, indirect=True)
def test_each_confinement_has_its_sentence(kind, ws):
    notice = Sandbox(ws).notice("default")
    if kind == "bubblewrap":
        assert notice is None
    elif kind == "unshare":
        assert notice is not None and notice.startswith("Commands run in a PID namespace of their own")
    else:
        assert notice is not None and notice.startswith("Commands run without a sandbox here")
        required = Sandbox(ws, mode="required").notice("strict")
        assert required is not None and "`sandbox: required` in policy/strict.yaml" in required
    assert Sandbox(ws, mode="off").notice() is None


@pytest.mark.parametrize("kind", ["bubblewrap"], indirect=True)
def test_a_second_command_on_the_same_path_asks_the_filesystem_for_no_system_or_path_folder(
    kind, ws, tmp_path, monkeypatch
):
    tools = tmp_path / "tools" / "bin"
    tools.mkdir(parents=True)
    env = {"PATH": f"{tools}:/usr/bin:/bin"}
    sandbox = Sandbox(ws, protected=(ws / ".mewrk",))
    first = sandbox.command(["true"], ws, env)
    resolved: list[Path] = []
    resolve = Path.resolve

    def recording(path: Path, strict: bool = False) -> Path:
        resolved.append(path)
        return resolve(path, strict=strict)

    monkeypatch.setattr(Path, "resolve", recording)
    # Another command, as the next bash call makes it: a sandbox of the same policy, made again.
    second = Sandbox(ws, protected=(ws / ".mewrk",)).command(["true"], ws, env)
    assert second == first and str(tools) in second
    read_only = {tools, *map(Path, SYSTEM_FOLDERS)}
    assert not read_only & set(resolved), f"resolved again: {sorted(read_only & set(resolved))}"


@pytest.mark.parametrize("kind", ["bubblewrap"], indirect=True)
def test_a_changed_path_or_a_folder_made_since_gives_a_fresh_view(kind, ws, tmp_path):
    made, other = tmp_path / "made" / "bin", tmp_path / "other" / "bin"
    other.mkdir(parents=True)
    sandbox = Sandbox(ws)
    env = {"PATH": f"{made}:/usr/bin:/bin"}
    assert str(made) not in sandbox.command(["true"], ws, env)
    made.mkdir(parents=True)  # a venv made by the last command, say
    assert str(made) in sandbox.command(["true"], ws, env)
    changed = sandbox.command(["true"], ws, {"PATH": f"{other}:/usr/bin:/bin"})
    assert str(other) in changed and str(made) not in changed


@pytest.mark.parametrize("kind", ["bubblewrap"], indirect=True)
def test_a_path_folder_removed_since_the_last_command_leaves_the_next_one_running(kind, ws, tmp_path):
    gone = tmp_path / "gone" / "bin"
    gone.mkdir(parents=True)
    env = {"PATH": f"{gone}:/usr/bin:/bin"}
    assert run_process(["sh", "-c", "echo one"], ws, 30.0, env=env, sandbox=Sandbox(ws)).text == "one\n"
    gone.rmdir()
    assert run_process(["sh", "-c", "echo two"], ws, 30.0, env=env, sandbox=Sandbox(ws)).text == "two\n"
