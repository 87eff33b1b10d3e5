"""Fencing: a run writes only while it still holds its session's turn.

A claim on a session's turn carries a fencing number: the row number of its run in the `runs` table,
which only grows (SQLite gives a new row a number above every other, and the store deletes no run and
never vacuums). The claim holds while that row is the session's running turn; taking the session over
(Stop, or a new turn after the owner's heart stopped) ends the row, and a newer claim has a higher
number. Every write transaction opened while a run's claim is in force checks it first, inside the
transaction, so a process that was frozen and wakes after a takeover writes nothing more.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar, copy_context
from dataclasses import dataclass
from pathlib import Path
from typing import ParamSpec, TypeVar

from ..errors import MewrkError

TAKEN_OVER = (
    "Another window or process took this session over while this turn ran (Stop, or a new message "
    "after this process stopped answering); this turn ended and wrote nothing more — the timeline "
    "shows what the session holds now."
)

P = ParamSpec("P")
T = TypeVar("T")


class SessionTakenOver(MewrkError):
    """The run lost its claim on the session: another process took the turn over; it writes nothing more."""

    def __init__(self, message: str = TAKEN_OVER):
        super().__init__(message)


@dataclass(frozen=True)
class Claim:
    """A run's hold on its session's turn: the store, the session, the run and its fencing number."""

    path: Path
    session_id: str
    run_id: str
    fence: int


# The claim of the run whose code is running; the run's threads (and the tools it runs) carry it.
_CLAIM: ContextVar[Claim | None] = ContextVar("mewrk_claim", default=None)


def fence_of(conn: sqlite3.Connection, run_id: str) -> int:
    """The fencing number of a run just claimed (its row number, which only grows)."""
    return int(conn.execute("SELECT rowid FROM runs WHERE id = ?", (run_id,)).fetchone()[0])


def holds(conn: sqlite3.Connection, claim: Claim) -> bool:
    """True while the claim's run is the session's running turn."""
    row = conn.execute(
        "SELECT rowid FROM runs WHERE session_id = ? AND state = 'running'", (claim.session_id,)
    ).fetchone()
    return row is not None and row[0] == claim.fence


def check(conn: sqlite3.Connection, path: Path) -> None:
    """Inside a write transaction on `path`: refuse it when the running code's run lost its claim."""
    claim = _CLAIM.get()
    if claim is not None and claim.path == path and not holds(conn, claim):
        raise SessionTakenOver()


def claimed(path: Path) -> bool:
    """Whether the running code acts for a run's claim on the store at `path`, which its writes check."""
    claim = _CLAIM.get()
    return claim is not None and claim.path == path


@contextmanager
def acting_for(claim: Claim | None) -> Iterator[None]:
    """Run the block as the claim's run: its write transactions check the claim first."""
    token = _CLAIM.set(claim)
    try:
        yield
    finally:
        _CLAIM.reset(token)


def carried(fn: Callable[P, T]) -> Callable[P, T]:
    """`fn` made to run with the caller's claim, on whatever thread calls it (a pool of tools)."""
    context = copy_context()

    def call(*args: P.args, **kwargs: P.kwargs) -> T:
        return context.copy().run(fn, *args, **kwargs)

    return call
