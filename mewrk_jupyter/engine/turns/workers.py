"""Threads kept for the next turn: each turn runs on a thread of its own, but not a new one each time.

Creating a thread and waiting for it to be scheduled costs about a fifth of a millisecond, on the way
to the first token. A turn's thread that finished waits a while for the next turn instead of ending.
The threads are daemons, as a turn's own thread was: a script or kernel that exits does not wait for
a turn still streaming.
"""

from __future__ import annotations

import contextvars
import logging
import queue
import threading
from collections.abc import Callable

IDLE_SECONDS = 300.0  # a kept thread with no turn for this long ends

log = logging.getLogger(__name__)


class _Worker:
    def __init__(self, pool: Workers) -> None:
        self.pool = pool
        self.jobs: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()
        self.thread = threading.Thread(target=self._loop, name="mewrk-turn", daemon=True)

    def _loop(self) -> None:
        while True:
            try:
                job = self.jobs.get(timeout=IDLE_SECONDS)
            except queue.Empty:
                if self.pool.retire(self):
                    return
                continue  # a job was handed over as the wait ended: it is in the queue
            try:
                # An empty context, as a new thread would have: nothing of the last turn carries over.
                contextvars.Context().run(job)
            except BaseException:  # a job ends its own turn; whatever escaped must not end the thread
                log.exception("a turn's thread failed")
            # Let go of the finished turn while waiting for the next: it holds its session, and with it
            # the MCP servers that session uses, which must stop once nothing else uses them.
            del job
            self.pool.rest(self)


class Workers:
    """Runs each job on a kept thread that is free, or on a new one."""

    def __init__(self) -> None:
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()

    def run(self, job: Callable[[], None]) -> None:
        """Start `job` on a thread of its own now."""
        with self._lock:
            worker = self._idle.pop() if self._idle else None
        if worker is None:
            worker = _Worker(self)
            worker.jobs.put(job)
            worker.thread.start()
        else:
            worker.jobs.put(job)

    def rest(self, worker: _Worker) -> None:
        """The worker finished its job and waits for the next."""
        with self._lock:
            self._idle.append(worker)

    def retire(self, worker: _Worker) -> bool:
        """The worker waited long enough: it ends unless a job was handed to it meanwhile."""
        with self._lock:
            if worker in self._idle and worker.jobs.empty():
                self._idle.remove(worker)
                return True
            return False
