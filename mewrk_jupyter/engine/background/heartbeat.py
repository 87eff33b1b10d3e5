"""One heartbeat thread per process for every running turn (R2, R3).

A turn's row in the store carries a heartbeat so that another process can tell a live owner from a
crashed one, and a stop request written by any process reaches the turn when it next beats. One thread
beats for all the turns of the process: a turn then starts one thread (its own), not two, on its way to
the first token.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol


class Beating(Protocol):
    """What the heartbeat needs of a turn: one beat, and whether the turn has ended."""

    @property
    def done(self) -> bool: ...

    def beat(self) -> bool:
        """Renew the turn's heartbeat; False when the turn should no longer be beaten for."""
        ...


class Heartbeat:
    """Beats every `every()` seconds for each registered turn, on one daemon thread started on first use."""

    def __init__(self, every: Callable[[], float]):
        self._every = every
        self._due: dict[Beating, float] = {}  # turn → when it beats next (monotonic)
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None
        self._sleeping_until = 0.0  # when the thread wakes next by itself (monotonic)

    def add(self, turn: Beating) -> None:
        """Beat for `turn` from now on, the first time one interval from now."""
        with self._wake:
            due = self._due[turn] = time.monotonic() + self._every()
            if self._thread is None or not self._thread.is_alive():
                self._thread = threading.Thread(target=self._loop, name="mewrk-heartbeat", daemon=True)
                self._thread.start()
            elif due < self._sleeping_until:  # woken only when it would beat too late: not on each turn
                self._wake.notify()

    def discard(self, turn: Beating) -> None:
        """Stop beating for `turn` (it ended)."""
        with self._wake:
            self._due.pop(turn, None)

    def _loop(self) -> None:
        while True:
            with self._wake:
                now = time.monotonic()
                due = [turn for turn, at in self._due.items() if at <= now]
                if not due:
                    # Idle, it wakes once an interval: a turn added then is beaten for in time.
                    self._sleeping_until = min(self._due.values(), default=now + self._every())
                    self._wake.wait(self._sleeping_until - now)
                    continue
                for turn in due:
                    self._due[turn] = now + self._every()
            for turn in due:
                if turn.done or not turn.beat():
                    self.discard(turn)
