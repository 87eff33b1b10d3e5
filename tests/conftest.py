"""Shared fixtures: every test runs in its own workspace folder with its own HOME and an empty undo stack."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mewrk_jupyter.cards.undo import UNDO
from mewrk_jupyter.engine import session as session_module
from mewrk_jupyter.engine.background.tasks import TASKS
from mewrk_jupyter.store.db import forget_databases


def forget_process_state() -> None:
    """Stop background work, drop live sessions and open databases, as if this were a new process (the
    store stays on disk)."""
    for task in TASKS.forget_all():
        task.done.wait(10)  # its thread writes its result to the store, which closes next
    session_module.forget_open_sessions()
    forget_databases()


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh workspace as the current directory, with a private HOME (so a private ~/.config/mewrk, where
    trust is kept) and no MEWRK_HOME."""
    root = tmp_path / "ws"
    home = tmp_path / "home"
    root.mkdir()
    home.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("MEWRK_HOME", raising=False)
    monkeypatch.delenv("MEWRK_USER_CONFIG", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    UNDO.clear()
    forget_process_state()
    yield root
    UNDO.clear()
    forget_process_state()


def run_python(code: str, cwd: Path, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run a snippet in a new Python process (a real second process on the same store)."""
    env = dict(os.environ)
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=False,
    )


def wait_for(predicate, timeout: float = 30.0, every: float = 0.01):
    """Poll until `predicate()` is true (a wait, not a timing assertion); fails the test on timeout."""
    import time

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    raise AssertionError(f"condition not met within {timeout} s: {predicate}")


def processes_with(name: str, value: str) -> list[int]:
    """The ids of the running processes (not zombies) whose environment holds `name=value`, leaving out
    the sandbox around one. A server in a sandbox knows only the id its PID namespace gave it, so a test
    finds it by a variable of its own."""
    mark = f"{name}={value}".encode()
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            if mark not in (entry / "environ").read_bytes().split(b"\0"):
                continue
            if (entry / "cmdline").read_bytes().startswith((b"bwrap", b"unshare")):
                continue  # the sandbox around it, not the server
            if "State:\tZ" not in (entry / "status").read_text():
                found.append(int(entry.name))
        except OSError:
            continue
    return found


def sleeping(seconds: str) -> bool:
    """Whether a `sleep <seconds>` runs (not a zombie) anywhere on the machine. A command's own process
    ids are those of its sandbox's PID namespace, so a test names its sleep by a length of its own."""
    for entry in Path("/proc").iterdir():
        try:
            if (entry / "cmdline").read_bytes().split(b"\0")[:2] != [b"sleep", seconds.encode()]:
                continue
            if "State:\tZ" not in (entry / "status").read_text():
                return True
        except OSError:
            continue
    return False


def alive(pid_file: Path) -> bool:
    """Whether the server that wrote its process id to `pid_file` (it started) still runs."""
    pid_file.read_text()
    return bool(processes_with("PID_FILE", str(pid_file)))


def pytest_configure(config) -> None:
    """Give browser assertions room on a loaded two-core CI machine (a wait, not a timing assertion)."""
    try:
        from playwright.sync_api import expect
    except ImportError:
        return
    expect.set_options(timeout=30_000)
