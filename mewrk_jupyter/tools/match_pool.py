"""grep's matching in child processes (match_child) that a time limit or Stop ends, kept warm between searches.

A search hands its text files to a child in batches and waits for each answer while looking at the stop
request; when the search is stopped, at its time limit or by Stop, the child is killed with whatever it was
matching, and nothing of it runs on. A child that answered waits for the next search, so that an ordinary
grep costs a round trip through a pipe rather than the start of a Python process.
"""

from __future__ import annotations

import atexit
import json
import os
import selectors
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from types import TracebackType

from .base import ToolFailure
from .match_child import Batch, Hits

_CHILD = Path(__file__).with_name("match_child.py")
# The current folder leaves sys.path before anything is imported from it: a workspace's json.py is not run.
_LAUNCH = "import sys; del sys.path[0]; sys.argv[:1] = []; import runpy; runpy.run_path(sys.argv[0], run_name='__main__')"
# Idle children kept for the next searches; more searches at once start more, and those end after.
_KEEP = 2
# Files are gathered until they hold this many bytes, then sent as one batch.
BATCH_BYTES = 1 << 20
_POLL = 0.05

# The variables a matching child is given: where programs and the person's home are, and the locale.
_PASSED = ("PATH", "HOME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "SYSTEMROOT")

_idle: list[subprocess.Popen[bytes]] = []
_lock = threading.Lock()


def _start() -> subprocess.Popen[bytes]:
    # A session of its own: Ctrl-C in a terminal or a kernel's interrupt of its process group leaves it be.
    # Its environment is an allow-list: it matches text, and no key of the kernel's is any of its business.
    env = {name: os.environ[name] for name in _PASSED if name in os.environ}
    return subprocess.Popen(
        [sys.executable, "-c", _LAUNCH, str(_CHILD), str(os.getpid())],
        env=env,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )


def _take() -> subprocess.Popen[bytes]:
    with _lock:
        while _idle:
            child = _idle.pop()
            if child.poll() is None:
                return child
            _end(child)
    return _start()


def _give_back(child: subprocess.Popen[bytes]) -> None:
    with _lock:
        if len(_idle) < _KEEP and child.poll() is None:
            _idle.append(child)
            return
    _end(child)


def _end(child: subprocess.Popen[bytes]) -> None:
    child.kill()
    child.wait()
    for pipe in (child.stdin, child.stdout):
        if pipe is not None:
            pipe.close()


@atexit.register
def end_idle() -> None:
    """End the children that wait for a search (at exit; a test starts from none)."""
    with _lock:
        children, _idle[:] = list(_idle), []
    for child in children:
        _end(child)


class Matcher:
    """The matching of one search: its files go to a child of its own, which it gives back or kills at the end.

    `check` raises the search's ToolFailure once the search is to stop; it is looked at while a batch is
    matched, so a stop ends a search within a fraction of a second however long its lines are.
    """

    def __init__(self, pattern: str, check: Callable[[], None]) -> None:
        self._pattern = pattern
        self._check = check
        self._child: subprocess.Popen[bytes] | None = None
        self._files: list[tuple[str, bytes]] = []
        self._size = 0
        self._hits: list[str] = []

    def add(self, name: str, data: bytes) -> None:
        """Search the text `data` of the file shown as `name`; its lines come after those of earlier files."""
        self._files.append((name, data))
        self._size += len(data)
        if self._size >= BATCH_BYTES:
            self._send()

    def hits(self) -> list[str]:
        """`path:line:text` for every matching line of the files added, in their order."""
        if self._files:
            self._send()
        return self._hits

    def _send(self) -> None:
        if self._child is None:
            self._child = _take()
        child = self._child
        assert child.stdin is not None
        batch: Batch = {"pattern": self._pattern, "files": [(name, len(data)) for name, data in self._files]}
        try:
            child.stdin.write(json.dumps(batch).encode() + b"\n")
            for _, data in self._files:
                child.stdin.write(data)
            child.stdin.flush()
        except OSError as exc:  # the child died; __exit__ reaps it
            raise ToolFailure(f"The search's process ended before it was given the files ({exc}).") from exc
        self._files, self._size = [], 0
        self._hits += self._answer(child)["hits"]

    def _answer(self, child: subprocess.Popen[bytes]) -> Hits:
        assert child.stdout is not None
        received = bytearray()
        with selectors.DefaultSelector() as selector:
            selector.register(child.stdout, selectors.EVENT_READ)
            while not received.endswith(b"\n"):
                self._check()
                if not selector.select(_POLL):
                    continue
                chunk = os.read(child.stdout.fileno(), 1 << 16)
                if not chunk:
                    raise ToolFailure(
                        f"The search's process ended without an answer (exit status {child.wait()})."
                    )
                received += chunk
        return json.loads(received)

    def __enter__(self) -> Matcher:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, value: BaseException | None, trace: TracebackType | None
    ) -> None:
        if self._child is None:
            return
        if kind is None:
            _give_back(self._child)
        else:  # stopped, or failed: whatever the child is doing ends now
            _end(self._child)
        self._child = None
