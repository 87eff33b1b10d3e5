"""Turns are fenced: a run that lost its claim on the session — its process was frozen past the heartbeat
and another took over, or Stop took over — writes nothing more (R3, R5)."""

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time

import mewrk_jupyter as mw
from mewrk_jupyter.engine.turns import run as turn_run
from mewrk_jupyter.store import fence
from mewrk_jupyter.store import runs as run_rows
from mewrk_jupyter.widget.commands import run_command
from tests.conftest import wait_for

# A turn in another process, with a quick heartbeat so that a short stale timeout fits it.
TURN = """
import sys
import mewrk_jupyter as mw
from mewrk_jupyter.engine.turns import run as turn_run
turn_run.HEARTBEAT_EVERY = 0.2
s = mw.Session.open(sys.argv[1])
print("started", flush=True)
try:
    s.send(sys.argv[2] if len(sys.argv) > 2 else "long: 400", wait=True)
except mw.MewrkError as exc:
    print(f"error: {exc}", flush=True)
print(f"ended: {s.last_run.state}", flush=True)
"""

TABLES = ("sessions", "cards", "history", "runs", "run_events", "resume_points")


def store_rows(conn: sqlite3.Connection) -> dict[str, list[tuple]]:
    """Every row of every table of the store: what "wrote nothing" compares."""
    return {t: [tuple(r) for r in conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2")] for t in TABLES}


def read_store(path) -> dict[str, list[tuple]]:
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return store_rows(conn)
    finally:
        conn.close()


def start_turn(workspace, session_id, *message: str) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(TURN), session_id, *message],
        cwd=workspace,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline().strip() == "started"
    return proc


def freeze(proc: subprocess.Popen, path) -> None:
    """SIGSTOP the process between two of its transactions (frozen inside one, it would hold the store's
    write lock, which no fencing can take back)."""
    probe = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        while True:
            os.kill(proc.pid, signal.SIGSTOP)
            try:
                probe.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:  # it holds the lock: let it finish the transaction
                os.kill(proc.pid, signal.SIGCONT)
                time.sleep(0.01)
                continue
            probe.execute("ROLLBACK")
            return
    finally:
        probe.close()


def replying(s, after: int):
    def check():
        cards = s.cards
        return len(cards) > after and cards[-1].kind == "model_reply" and len(cards[-1].text) > 20

    return check


def test_a_frozen_process_that_wakes_after_a_newer_turn_took_over_writes_nothing(workspace, monkeypatch):
    monkeypatch.setattr(run_rows, "STALE_AFTER", 1.0)
    monkeypatch.setattr(turn_run, "HEARTBEAT_EVERY", 0.2)
    s = mw.Session.new(model="offline/slow")
    path = s.stored_timeline.db.path
    proc = start_turn(workspace, s.id)
    try:
        wait_for(replying(s, after=1))
        freeze(proc, path)
        time.sleep(run_rows.STALE_AFTER + 0.5)  # its heart has stopped beating for longer than the timeout
        s.send("the newer turn")  # a new turn takes the session over
        newer = read_store(path)
        os.kill(proc.pid, signal.SIGCONT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert read_store(path) == newer  # the woken process wrote nothing more
    assert "ended: lost" in out and "took this session over" in out, (out, err)
    assert "Traceback" not in err, err
    cards = s.cards
    assert [c.kind for c in cards] == ["user_input", "model_reply", "user_input", "model_reply"]
    assert cards[1].interrupted and cards[1].complete  # closed by the process that took over
    assert cards[3].text.startswith("You said: “the newer turn”") and not cards[3].interrupted
    runs = run_rows.list_runs(s.stored_timeline.db.conn(), s.id)
    assert [r["state"] for r in runs] == ["interrupted", "done"]


def test_stop_takes_a_frozen_process_s_session_over_at_once(workspace, monkeypatch):
    monkeypatch.setattr(turn_run, "HEARTBEAT_EVERY", 0.2)
    s = mw.Session.new(model="offline/slow")
    path = s.stored_timeline.db.path
    proc = start_turn(workspace, s.id)
    try:
        wait_for(replying(s, after=1))
        freeze(proc, path)
        row = run_rows.current_run(s.stored_timeline.db.conn(), s.id)
        assert not run_rows.is_stale(row)  # its heartbeat is recent: only Stop can free the session now
        message = run_command(s, "/stop").message
        assert (
            message
            == "Stopped the turn another window or process was running; the session is free to use here."
        )
        assert s.state == "idle"
        s.send("mine now")  # works at once: no wait for the heartbeat timeout
        newer = read_store(path)
        os.kill(proc.pid, signal.SIGCONT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert read_store(path) == newer
    assert "ended: lost" in out, (out, err)
    assert [c.kind for c in s.cards] == ["user_input", "model_reply", "user_input", "model_reply"]
    assert s.cards[1].interrupted and s.cards[-1].text.startswith("You said: “mine now”")
    runs = run_rows.list_runs(s.stored_timeline.db.conn(), s.id)
    assert [r["state"] for r in runs] == ["stopped", "done"]


def test_stop_takes_over_a_process_frozen_while_its_tool_runs(workspace, monkeypatch):
    monkeypatch.setattr(turn_run, "HEARTBEAT_EVERY", 0.2)
    policy = workspace / ".mewrk" / "policy"
    policy.mkdir(parents=True)
    (policy / "default.yaml").write_text("safety_level: default\nallow: [bash]\n")
    s = mw.Session.new()
    path = s.stored_timeline.db.path
    proc = start_turn(workspace, s.id, 'call: bash {"command": "sleep 2; echo slept"}')
    try:
        wait_for(lambda: [c.status for c in s.cards if c.kind == "tool_call"] == ["running"])
        freeze(proc, path)
        assert s.stop()
        call = next(c for c in s.cards if c.kind == "tool_call")
        assert call.status == "done" and call.is_error
        assert call.result == "The turn stopped while this call ran, so its result was not recorded."
        stopped = read_store(path)
        time.sleep(2.5)  # the command ends while its process is frozen
        os.kill(proc.pid, signal.SIGCONT)
        out, err = proc.communicate(timeout=60)
    finally:
        proc.kill()
    assert "ended: lost" in out, (out, err)
    assert read_store(path) == stopped  # "slept" was not written anywhere


def take_over(s) -> dict[str, list[tuple]]:
    """What a process that takes the session over writes: the running turn's row ended. Returns the
    store's rows as that transaction leaves them."""
    with s.stored_timeline.db.tx() as conn:
        row = run_rows.current_run(conn, s.id)
        run_rows.end_run(conn, row["id"], "stopped", "taken over")
        return store_rows(conn)


def test_a_run_that_lost_its_claim_ends_quietly_and_says_so(workspace):
    s = mw.Session.new(model="offline/slow")
    run = s.send("long: 300", wait=False)
    wait_for(replying(s, after=1))
    taken = take_over(s)
    run.wait(30)
    assert run.state == "lost" and run.lost
    assert isinstance(run.error, fence.SessionTakenOver)
    assert str(run.error).startswith("Another window or process took this session over")
    assert read_store(s.stored_timeline.db.path) == taken
    s.send("the session is free")
    assert s.cards[-1].text.startswith("You said: “the session is free”")


def test_the_tools_a_run_runs_side_by_side_are_fenced_too(workspace, monkeypatch):
    monkeypatch.setattr(turn_run, "HEARTBEAT_EVERY", 60.0)  # nothing stops the tools: only the fence holds
    policy = workspace / ".mewrk" / "policy"
    policy.mkdir(parents=True)
    (policy / "default.yaml").write_text("safety_level: default\nallow: [bash]\n")
    wait = "for i in $(seq 600); do [ -f go ] && break; sleep 0.05; done; echo {name} finished"
    s = mw.Session.new()
    call = 'call: bash {{"command": "{}"}}'
    run = s.send(call.format(wait.format(name="a")) + "\n" + call.format(wait.format(name="b")), wait=False)
    wait_for(lambda: [c.status for c in s.cards if c.kind == "tool_call"] == ["running", "running"])
    taken = take_over(s)
    (workspace / "go").touch()  # the tools finish after the takeover: their results are not written
    run.wait(60)
    assert run.state == "lost"
    assert read_store(s.stored_timeline.db.path) == taken
