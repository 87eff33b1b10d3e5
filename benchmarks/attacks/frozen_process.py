"""A process running a turn is frozen (SIGSTOP) mid-stream, another takes the session over, and the frozen
one is woken (SIGCONT).

Each trial starts a Python process that runs a long turn (offline/slow), freezes it between two of its
transactions once its reply streams, and takes the session over from this process: on even trials with
Stop at once, on odd trials with a new message after the frozen process's heartbeat went stale. Then it
wakes the frozen process. The product held when the woken process wrote nothing more (every row of the
store as the newer turn left it), the newer turn's cards are intact, and the woken process said it lost
the session.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import mewrk_jupyter as mw
from mewrk_jupyter.engine import session as session_module
from mewrk_jupyter.engine.turns import run as turn_run
from mewrk_jupyter.store import runs as run_rows
from mewrk_jupyter.store.db import forget_databases

ATTACK = "a turn frozen mid-stream (SIGSTOP) wakes after another process took the session over"
TRIALS = 6  # each trial starts a Python process and waits out a heartbeat: about 6 s each
STALE_AFTER = 1.0  # this run's heartbeat timeout, short so that a trial takes seconds, not a minute
HEARTBEAT = 0.2
TABLES = ("sessions", "cards", "history", "runs", "run_events", "resume_points")

TURN = f"""
import sys
import mewrk_jupyter as mw
from mewrk_jupyter.engine.turns import run as turn_run
turn_run.HEARTBEAT_EVERY = {HEARTBEAT}
s = mw.Session.open(sys.argv[1])
print("started", flush=True)
try:
    s.send("long: 400", wait=True)
except mw.MewrkError as exc:
    print(f"error: {{exc}}", flush=True)
print(f"ended: {{s.last_run.state}}", flush=True)
"""
_trial = 0


def rows(path: Path) -> dict[str, list[tuple]]:
    """Every row of the store, read without writing."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        return {t: [tuple(r) for r in conn.execute(f"SELECT * FROM {t} ORDER BY 1, 2")] for t in TABLES}
    finally:
        conn.close()


def freeze(pid: int, path: Path) -> None:
    """SIGSTOP between two transactions: frozen inside one, a process holds SQLite's write lock."""
    probe = sqlite3.connect(path, timeout=0, isolation_level=None)
    try:
        while True:
            os.kill(pid, signal.SIGSTOP)
            try:
                probe.execute("BEGIN IMMEDIATE")
            except sqlite3.OperationalError:
                os.kill(pid, signal.SIGCONT)
                time.sleep(0.01)
                continue
            probe.execute("ROLLBACK")
            return
    finally:
        probe.close()


def streaming(s: mw.Session) -> bool:
    cards = s.cards
    return len(cards) > 1 and cards[-1].kind == "model_reply" and len(cards[-1].text) > 20


def trial(folder: Path) -> bool:
    """One frozen turn, one takeover, one wake-up; True when the woken process wrote nothing more."""
    global _trial
    _trial += 1
    by_stop = _trial % 2 == 0
    saved = run_rows.STALE_AFTER, turn_run.HEARTBEAT_EVERY, os.environ.pop("MEWRK_HOME", None)
    run_rows.STALE_AFTER, turn_run.HEARTBEAT_EVERY = STALE_AFTER, HEARTBEAT
    session_module.forget_open_sessions()
    forget_databases()
    try:
        s = mw.Session.new(model="offline/slow", workspace=folder)
        path = s.stored_timeline.db.path
        proc = subprocess.Popen(
            [sys.executable, "-c", textwrap.dedent(TURN), s.id],
            cwd=folder,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            if proc.stdout is None or proc.stdout.readline().strip() != "started":
                return False
            deadline = time.monotonic() + 60
            while not streaming(s):
                if time.monotonic() > deadline:
                    return False
                time.sleep(0.02)
            freeze(proc.pid, path)
            if by_stop:
                s.stop()
            else:
                time.sleep(STALE_AFTER + 0.5)
            s.send("the newer turn")
            newer = rows(path)
            cards = [c.model_dump() for c in s.cards]
            os.kill(proc.pid, signal.SIGCONT)
            out, _ = proc.communicate(timeout=60)
        finally:
            proc.kill()
            proc.wait()
        session_module.forget_open_sessions()
        forget_databases()
        after = mw.Session.open(s.id, workspace=folder)
        return (
            rows(path) == newer
            and [c.model_dump() for c in after.cards] == cards
            and after.cards[-1].text.startswith("You said: “the newer turn”")
            and "ended: lost" in out
        )
    finally:
        run_rows.STALE_AFTER, turn_run.HEARTBEAT_EVERY = saved[0], saved[1]
        if saved[2] is not None:
            os.environ["MEWRK_HOME"] = saved[2]
        session_module.forget_open_sessions()
        forget_databases()
