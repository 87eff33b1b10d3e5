"""Moving in (#37): `python -m mewrk_jupyter store copy SRC DST` copies a workspace's store from SQLite into
PostgreSQL and back, every row as it was, once; a second run copies nothing, a target that holds other data
and a source whose turn runs are refused with nothing written, and bad input is one sentence."""

from __future__ import annotations

import os
import pty
import signal
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import psycopg
import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.notebook_memory import NotebookPlace, recall, remember
from mewrk_jupyter.store.address import PostgresPlace, postgres_place
from mewrk_jupyter.store.copy import SKIPPED, TABLES, tables_of
from mewrk_jupyter.store.db import Database
from mewrk_jupyter.store.postgres import PgDatabase
from tests.conftest import forget_process_state, wait_for
from tests.ports import free_port
from tests.store.test_postgres_store import tables_of as tables_in_database

ROOT = Path(__file__).resolve().parents[2]
SPAWN = 'call: agent_spawn {"agent": "helper", "task": "say hi"}'
NOTEBOOK = NotebookPlace("analysis.ipynb", "cell-7")


def store_copy(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """The command as a person runs it, in a new process (stdout and stderr are pipes, not a terminal)."""
    return subprocess.run(
        [sys.executable, "-m", "mewrk_jupyter", "store", "copy", *args],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), **env},
        capture_output=True,
        text=True,
        timeout=180,
    )


def fill(workspace: Path) -> None:
    """What a person leaves in a workspace: edits, a card put first, a file sent, a grant used, a branch, a
    subagent's task and session, an approval waiting, and the session a notebook's cell showed."""
    (workspace / ".mewrk" / "agents").mkdir(parents=True)
    (workspace / ".mewrk" / "agents" / "main.yaml").write_text(
        "model: offline/echo\ntools: [ls, read, bash, agent_spawn, task_wait]\n"
    )
    (workspace / ".mewrk" / "agents" / "helper.yaml").write_text("model: offline/echo\ntools: [ls, read]\n")
    mw.trust(workspace)
    (workspace / "notes.txt").write_text("notes to read\n")
    s = mw.Session.new(title="planning ✓")
    s.send("hello", attachments=["notes.txt"])
    s.edit(s.cards[-1].id, text="an edited reply, 50% shorter")
    s.insert(mw.UserInput(text="put first: nul \x00 inside, ä"), before=s.cards[0].id)
    s.send('call: bash {"command": "echo granted"}')
    s.approve(always=True)
    s.send('call: bash {"command": "echo without asking"}')
    s.branch(s.cards[2].id).send("on the branch")
    s.send(SPAWN)
    wait_for(lambda: [c.state for c in s.cards if isinstance(c, mw.Subagent)] == ["completed"])
    waiting = mw.Session.new(title="waiting")
    waiting.send('call: bash {"command": "echo later"}')
    assert waiting.state == "awaiting_approval" and s.settings.approved_always == ["bash"]
    remember(NOTEBOOK, waiting.id)
    forget_process_state()


def seen(workspace: Path) -> dict[str, Any]:
    """Everything the public API shows of a workspace's sessions, read as a new process would."""
    forget_process_state()
    found: dict[str, Any] = {}
    for info in mw.list_sessions(workspace):
        s = mw.Session.open(info.id, workspace=workspace)
        runs = s.runs()
        found[info.id] = {
            "info": info.model_dump(),
            "settings": s.settings.model_dump(),
            "cards": [card.model_dump() for card in s.cards],
            "history": [entry.model_dump() for entry in s.history],
            "runs": [run.model_dump() for run in runs],
            "events": [[event.model_dump() for event in s.run_events(run.id)] for run in runs],
            "state": s.state,
        }
    found["notebook"] = recall(NOTEBOOK, cell=True, workspace=workspace)
    forget_process_state()
    return found


def opened(place: Path | PostgresPlace) -> Database | PgDatabase:
    return PgDatabase(place, create=False) if isinstance(place, PostgresPlace) else Database(place)


def rows_of(place: Path | PostgresPlace) -> dict[str, list[dict[str, Any]]]:
    """Every row of every table, as stored (without PostgreSQL's row_seq), in the order of each table's key."""
    store = opened(place)
    try:
        found = {}
        for table in TABLES:
            rows = [
                {k: v for k, v in zip(row.keys(), row, strict=True) if k != "row_seq"}
                for row in store.read(f"SELECT * FROM {table.name}")
            ]
            found[table.name] = sorted(rows, key=lambda r, t=table: tuple(r[k] for k in t.key))
        return found
    finally:
        store.close()


@pytest.fixture
def team(postgres_url: str) -> PostgresPlace:
    """The team store the workspace `ws` moves into (nothing in it yet)."""
    return postgres_place(postgres_url, "ws")


def test_every_table_of_the_schema_is_copied_or_left_out_with_a_reason(tmp_path, team):
    sqlite = Database(tmp_path / "fresh.db")
    pg = PgDatabase(team)
    try:
        copied = {table.name for table in TABLES}
        assert len(copied) == len(TABLES) and not copied & set(SKIPPED)
        assert all(reason.strip() for reason in SKIPPED.values())
        assert tables_of(sqlite) == copied | set(SKIPPED)
        assert tables_of(pg) == copied | set(SKIPPED)
    finally:
        sqlite.close()
        pg.close()


def test_a_workspace_moves_into_postgresql_and_back_exactly(workspace, team, postgres, monkeypatch):
    fill(workspace)
    before, rows_before = seen(workspace), rows_of(workspace / ".mewrk" / "mewrk.db")
    assert len(before) == 4 + 1  # three sessions, a subagent's, and the notebook's link

    done = store_copy(".", postgres_url := team.url.replace("@", f":{postgres.password}@", 1), cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Copied 4 sessions, 1 grant, {len(rows_before['cards'])} cards, ")
    assert "2 approvals waiting" not in done.stdout and "1 approval waiting" in done.stdout
    assert ", 1 task and 2 notebook links to " in done.stdout  # the notebook's and its cell's
    assert done.stdout.rstrip().endswith(f"to {team}.")
    assert f"the name of the workspace folder {workspace}" in done.stderr
    assert f"copying cards {len(rows_before['cards'])}/{len(rows_before['cards'])}\n" in done.stderr
    assert postgres.password not in done.stdout + done.stderr

    assert rows_of(team) == rows_before
    monkeypatch.setenv("MEWRK_STORE_URL", postgres_url)
    assert seen(workspace) == before  # the grant is used here too: the same folder gave it

    again = store_copy(".", postgres_url, cwd=workspace)
    assert again.returncode == 0, again.stderr
    assert again.stdout.startswith("Nothing new to copy: 4 sessions, 1 grant, ")
    assert "already there in" in again.stdout and rows_of(team) == rows_before

    back = workspace.parent / "back"
    home = store_copy(postgres_url, str(back / "mewrk.db"), "--workspace", "ws", cwd=workspace.parent)
    assert home.returncode == 0, home.stderr
    assert "given by --workspace" in home.stderr
    assert rows_of(back / "mewrk.db") == rows_before
    monkeypatch.delenv("MEWRK_STORE_URL")
    monkeypatch.setenv("MEWRK_HOME", str(back))  # the copy as this folder's store
    assert seen(workspace) == before

    # The team store goes on where the source stopped: the approval waiting, a new request's number.
    monkeypatch.delenv("MEWRK_HOME")
    monkeypatch.setenv("MEWRK_STORE_URL", postgres_url)
    waiting = next(info.id for info in mw.list_sessions() if info.title == "waiting")
    s = mw.Session.open(waiting)
    s.approve()
    s.send("after the move")
    moved = sum(1 for row in rows_before["history"] if row["session_id"] == waiting)
    history = s.history
    assert [entry.number for entry in history] == list(range(1, len(history) + 1)) and len(
        history
    ) > moved + 1
    assert min(entry.id for entry in history[moved:]) == max(row["id"] for row in rows_before["history"]) + 1
    assert "later" in next(c for c in s.cards if isinstance(c, mw.ToolCall)).result


def test_a_target_with_other_sessions_is_refused_and_left_as_it_was(workspace, team, postgres, monkeypatch):
    fill(workspace)
    url = team.url.replace("@", f":{postgres.password}@", 1)
    elsewhere = workspace.parent / "other" / "ws"  # another clone named alike, with its own sessions
    elsewhere.mkdir(parents=True)
    monkeypatch.setenv("MEWRK_STORE_URL", url)
    theirs = mw.Session.new(title="their own", workspace=elsewhere)
    theirs.send("hi")
    forget_process_state()
    monkeypatch.delenv("MEWRK_STORE_URL")
    kept = rows_of(team)

    done = store_copy(".", url, cwd=workspace)
    assert done.returncode == 1 and done.stdout == ""
    sentence = done.stderr.strip().splitlines()[-1]
    assert sentence == (
        f"The target {team} holds the session 'their own' ({theirs.id}), which the source does not have, "
        "so nothing was copied: copy into an empty database, or under another workspace name (--workspace)."
    )
    assert "copying cards" not in done.stderr  # refused at the sessions, the first table
    assert postgres.password not in done.stdout + done.stderr
    assert rows_of(team) == kept


def copied_once(workspace: Path, target: Path) -> mw.Session:
    """A session `first` with one exchange, copied into `target`."""
    first = mw.Session.new(title="first")
    first.send("hello")
    forget_process_state()
    assert store_copy(".", str(target), cwd=workspace).returncode == 0
    return first


def test_a_source_changed_since_the_copy_is_refused_and_the_target_keeps_the_first_copy(workspace, tmp_path):
    target = tmp_path / "moved.db"
    first = copied_once(workspace, target)
    kept = rows_of(target)
    mw.Session.open(first.id).send("and more")
    mw.Session.new(title="second")  # refused with the rest: the copy is all or nothing
    forget_process_state()

    done = store_copy(".", str(target), cwd=workspace)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines()[-1] == (
        f"The target {target} holds the session 'first' ({first.id}), and it differs from the source's, so "
        "nothing was copied: copy into a new .db file, or a folder without a store."
    )
    assert rows_of(target) == kept


def test_new_sessions_of_the_source_are_added_and_the_rest_is_already_there(workspace, tmp_path):
    target = tmp_path / "moved.db"
    copied_once(workspace, target)
    mw.Session.new(title="second").send("more")
    forget_process_state()

    done = store_copy(".", str(target), cwd=workspace)
    assert done.returncode == 0, done.stderr
    assert (
        done.stdout
        == (
            f"Copied 1 session, 2 cards, 1 history row, 1 run and 1 run event to {target}; 1 session, 2 cards, "
            "1 history row, 1 run, 1 run event and 1 stored part already there.\n"  # the part: both sent the tools
        )
    )
    assert rows_of(target) == rows_of(workspace / ".mewrk" / "mewrk.db")


def test_a_copy_interrupted_half_way_writes_nothing_and_runs_again(workspace, team, postgres):
    mw.Session.new(title="one").send("hello")
    forget_process_state()
    PgDatabase(team).close()  # the workspace's tables, made, so that the test can lock one
    url = team.url.replace("@", f":{postgres.password}@", 1)
    with psycopg.connect(url) as blocker:  # its cards locked: the copy waits there, its sessions written
        schema = blocker.execute("SELECT schema_name FROM public.mewrk_workspaces").fetchone()[0]
        blocker.execute(f"LOCK TABLE {schema}.cards IN ACCESS EXCLUSIVE MODE")
        copy = subprocess.Popen(
            [sys.executable, "-m", "mewrk_jupyter", "store", "copy", ".", url],
            cwd=workspace,
            env={**os.environ, "PYTHONPATH": str(ROOT)},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        assert copy.stderr is not None and copy.stderr.readline().startswith("Copying ")
        assert copy.stderr.readline() == "copying sessions 1/1\n"
        wait_for(lambda: blocker.execute(
            "SELECT count(*) FROM pg_locks WHERE NOT granted AND relation = %s::regclass", (f"{schema}.cards",)
        ).fetchone()[0])  # fmt: skip
        copy.send_signal(signal.SIGINT)  # Ctrl-C
        out, err = copy.communicate(timeout=60)
    assert copy.returncode == 130 and out == ""
    assert (
        err.strip().splitlines()[-1]
        == f"The copy was interrupted, so nothing was written to {team}: run it again."
    )
    assert rows_of(team)["sessions"] == []
    done = store_copy(".", url, cwd=workspace)
    assert done.returncode == 0 and done.stdout.startswith("Copied 1 session, 2 cards"), done.stderr


SLOW_TURN = """
import mewrk_jupyter as mw, sys
s = mw.Session.open(sys.argv[1])
print("started", flush=True)
s.send("long: 400", wait=True)
"""


def test_a_running_turn_refuses_the_copy_and_one_whose_process_died_is_copied_as_interrupted(
    workspace, tmp_path, monkeypatch
):
    s = mw.Session.new(title="busy", model="offline/slow")
    turn = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(SLOW_TURN), s.id],
        cwd=workspace,
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert turn.stdout is not None and turn.stdout.readline().strip() == "started"
        wait_for(lambda: any(run.running for run in s.runs()))
        target = tmp_path / "moved.db"
        done = store_copy(".", str(target), cwd=workspace)
        assert done.returncode == 1
        assert done.stderr.strip().splitlines()[-1] == (
            f"The session 'busy' ({s.id}) of {workspace / '.mewrk' / 'mewrk.db'} runs a turn, so nothing was "
            "copied: wait for it to end (or stop it), then copy again."
        )
        assert not target.exists()
    finally:
        turn.kill()
        turn.wait(30)
    forget_process_state()
    done = store_copy(".", str(target), cwd=workspace)
    assert done.returncode == 0, done.stderr
    (tmp_path / "copy-home").mkdir()
    target.rename(tmp_path / "copy-home" / "mewrk.db")
    monkeypatch.setenv("MEWRK_HOME", str(tmp_path / "copy-home"))  # the copy as this folder's store
    forget_process_state()
    assert [run.state for run in mw.Session.open(s.id).runs()] == ["interrupted"]


def test_bad_input_is_one_sentence_and_nothing_is_written(workspace, tmp_path, team, postgres):
    mw.Session.new(title="one").send("hello")
    forget_process_state()
    target = tmp_path / "never.db"
    url = team.url.replace("@", f":{postgres.password}@", 1)
    wrong = team.url.replace("@", ":not-the-password@", 1)
    port = free_port()
    away = f"postgresql://mewrk:secret-word@127.0.0.1:{port}/mewrk"
    cases = {
        (
            "missing",
            str(target),
        ): f"There is no store at {tmp_path / 'ws' / 'missing'}, so nothing was copied",
        (str(tmp_path), str(target)): f"The folder {tmp_path} holds no store (.mewrk/mewrk.db)",
        (".", "newfolder"): f"DST {workspace / 'newfolder'} does not exist, so nothing was copied",
        (".", "postgresql://mewrk:secret-word@/mewrk"): "DST names no host: write it as postgresql://",
        (".", "mysql://mewrk:secret-word@host/db"): "DST must be a workspace folder, an SQLite .db file or a",
        (
            ".",
            away,
        ): f"The team store postgresql://mewrk@127.0.0.1:{port}/mewrk (workspace 'ws') cannot be reached",
        (wrong, str(target)): f"The team store {team} refused to sign in its user",
        (url, str(target)): f"The team store {team} holds no workspace of that name (it holds none)",
        (".", "."): "SRC and DST are the same store",
    }
    for args, start in cases.items():
        done = store_copy(*args, "--workspace", "ws", cwd=workspace)
        lines = done.stderr.strip().splitlines()
        assert (done.returncode, done.stdout) == (1, ""), (args, done.stderr)
        assert lines[-1].startswith(start), (args, lines)
        assert "secret-word" not in done.stderr and postgres.password not in done.stderr
        assert "Traceback" not in done.stderr
    assert not target.exists() and not (workspace / "newfolder").exists()
    assert tables_in_database(url) == []  # the source was only read: no registry made in it

    usage = subprocess.run(
        [sys.executable, "-m", "mewrk_jupyter", "store", "copy", "only-one"],
        cwd=workspace,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert usage.returncode == 2 and "usage: python -m mewrk_jupyter store copy" in usage.stderr


def test_help_lists_the_store_command_and_a_terminal_sees_the_progress_in_place(workspace, tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    listed = subprocess.run(
        [sys.executable, "-m", "mewrk_jupyter", "--help"], env=env, capture_output=True, text=True
    )
    assert listed.returncode == 0 and "store" in listed.stdout and "demo" in listed.stdout
    mw.Session.new(title="one").send("hello")
    forget_process_state()
    main, side = pty.openpty()
    done = subprocess.run(
        [sys.executable, "-m", "mewrk_jupyter", "store", "copy", ".", str(tmp_path / "moved.db")],
        cwd=workspace,
        env=env,
        stdout=subprocess.PIPE,
        stderr=side,
        text=True,
        timeout=120,
    )
    os.close(side)
    shown = os.read(main, 65536).decode()
    os.close(main)
    assert done.returncode == 0 and done.stdout.startswith("Copied 1 session, 2 cards")
    assert "\rcopying cards 2/2" in shown
