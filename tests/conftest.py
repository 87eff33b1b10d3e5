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


STORES = ("sqlite", "postgres")


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """A test marked `both_stores` runs on each store: the workspace's SQLite file, and a database of its
    own on the run's PostgreSQL server (the team store, #37); one that reads the file itself does not."""
    definition = metafunc.definition
    if (
        definition.get_closest_marker("both_stores")
        and not definition.get_closest_marker("sqlite_file")
        and "store_kind" in metafunc.fixturenames
    ):
        metafunc.parametrize("store_kind", STORES, indirect=True)


@pytest.fixture
def store_kind(request: pytest.FixtureRequest) -> str:
    """Which store the workspace keeps its sessions in: SQLite unless the test runs on both."""
    return str(getattr(request, "param", "sqlite"))


@pytest.fixture
def workspace(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest, store_kind: str
) -> Path:
    """A fresh workspace as the current directory, with a private HOME (so a private ~/.config/mewrk, where
    trust is kept) and no MEWRK_HOME; its sessions in SQLite, or in PostgreSQL for a test on both stores."""
    root = tmp_path / "ws"
    home = tmp_path / "home"
    root.mkdir()
    home.mkdir()
    monkeypatch.chdir(root)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("MEWRK_HOME", raising=False)
    monkeypatch.delenv("MEWRK_USER_CONFIG", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    monkeypatch.delenv("MEWRK_STORE_URL", raising=False)
    monkeypatch.delenv("MEWRK_WORKSPACE", raising=False)
    if store_kind == "postgres":
        monkeypatch.setenv("MEWRK_STORE_URL", request.getfixturevalue("postgres_url"))
    UNDO.clear()
    forget_process_state()
    yield root
    UNDO.clear()
    forget_process_state()


@pytest.fixture(scope="session")
def postgres():
    """One real PostgreSQL server for the run, started when a test first asks for it (tests/postgres.py).
    One that cannot start fails the test with the reason: the test command requires every part."""
    from .postgres import start_postgres

    with start_postgres() as server:
        yield server


@pytest.fixture
def postgres_url(postgres):
    """The URL of a new, empty database on the run's PostgreSQL server, with its password; dropped after
    the test (each takes some megabytes of disk)."""
    url = postgres.new_database()
    yield url
    forget_process_state()  # the test's connections go first
    postgres.drop_database(url)


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
    """The store markers; and room for browser assertions on a loaded two-core CI machine (a wait, not a
    timing assertion)."""
    config.addinivalue_line("markers", "both_stores: runs on the SQLite store and on the PostgreSQL one")
    config.addinivalue_line("markers", "sqlite_file: reads the SQLite file itself, so runs on SQLite alone")
    try:
        from playwright.sync_api import expect
    except ImportError:
        return
    expect.set_options(timeout=30_000)
