"""Pages in the middle of a real session's store are overwritten with noise; the file's header is intact.

Each trial writes a real session (thirty offline turns), closes the store as a process leaves it, then
overwrites one page-long span at a random place in the middle half of the file. A new process then opens
the session, lists the sessions, starts a new one and sends in the damaged one. The product held when
every attempt was refused with the store's sentence naming the file (no raw sqlite3 error) and the
file's bytes are as the damage left them.
"""

from __future__ import annotations

import hashlib
import os
import random
from pathlib import Path

import mewrk_jupyter as mw
from mewrk_jupyter.engine import session as session_module
from mewrk_jupyter.store.db import forget_databases

ATTACK = "a page-long span in the middle of a session's store is overwritten (header intact)"
TRIALS = 20
_rng = random.Random(11)


def fresh_process() -> None:
    session_module.forget_open_sessions()
    forget_databases()


def damage(path: Path) -> None:
    """Overwrite one page-long span at a random offset in the middle half of the file with random bytes."""
    data = bytearray(path.read_bytes())
    page = int.from_bytes(data[16:18], "big")
    start = _rng.randrange(len(data) // 4, 3 * len(data) // 4 - page)
    data[start : start + page] = _rng.randbytes(page)
    path.write_bytes(bytes(data))


def refused(path: Path, attempt) -> bool:
    """True when the attempt raised the store's sentence naming the file."""
    try:
        attempt()
    except mw.StoreError as exc:
        return str(path) in str(exc) and "damaged" in str(exc)
    finally:
        fresh_process()
    return False


def trial(folder: Path) -> bool:
    """One damaged store, four attempts to use it; True when all were refused and the bytes stayed."""
    saved = os.environ.pop("MEWRK_HOME", None)
    fresh_process()
    try:
        s = mw.Session.new(workspace=folder)
        for i in range(30):
            s.send(f"message {i}: " + "some words of the question " * 20)
        path, sid = s.stored_timeline.db.path, s.id
        fresh_process()
        damage(path)
        before = hashlib.sha256(path.read_bytes()).digest()
        attempts = (
            lambda: mw.Session.open(sid, workspace=folder),
            lambda: mw.list_sessions(folder),
            lambda: mw.Session.new(workspace=folder),
            lambda: mw.Session.open(sid, workspace=folder).send("are you there?"),
        )
        held = all([refused(path, attempt) for attempt in attempts])
        return held and hashlib.sha256(path.read_bytes()).digest() == before
    finally:
        if saved is not None:
            os.environ["MEWRK_HOME"] = saved
        fresh_process()
