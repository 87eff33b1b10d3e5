"""Where a new session's time to first token goes: milliseconds from `send` to each step, the median
and the 90th percentile of 40 sends.

Run: python benchmarks/profile_send.py
The same turn as bench_engine_overhead.py's Anthropic row (a new session per send, 2,000 streamed tokens
from the test suite's wire server, in a process of its own). Each step is timed by wrapping a public
function of the engine, so the table shows where the engine's own work before the first token lies:
the checks on the calling thread, the claim and the user card, the request built and recorded, then the
first card stored and shown. The first SDK event's time is mostly the server's and the SDK's, paid by
the raw loop too.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the wire server lives with the tests
sys.path.insert(0, str(ROOT / "benchmarks"))

import bench_engine_overhead as bench  # noqa: E402

import mewrk_jupyter as mw  # noqa: E402
from mewrk_jupyter.engine import session as session_module  # noqa: E402
from mewrk_jupyter.engine.timeline.stored import StoredTimeline  # noqa: E402
from mewrk_jupyter.engine.turns import run as run_module  # noqa: E402
from mewrk_jupyter.providers.anthropic import AnthropicExchange, AnthropicProvider  # noqa: E402

TURNS, WARMUP = 45, 5
marks: dict[str, float] = {}


def mark(name: str) -> None:
    """The first time `name` happens in this send."""
    marks.setdefault(name, time.perf_counter())


def wrap(owner: Any, name: str, before: str, after: str) -> None:
    """Mark the first call of `owner.name` in each send, and its return."""
    original = getattr(owner, name)

    def timed(*args: Any, **kwargs: Any) -> Any:
        first = before not in marks
        mark(before)
        try:
            return original(*args, **kwargs)
        finally:
            if first:
                mark(after)

    setattr(owner, name, timed)


def wrap_places() -> None:
    """Mark each card stored in a send: the person's question first, then the reply the stream opens."""
    original = StoredTimeline.place

    def place(self: StoredTimeline, *args: Any, **kwargs: Any) -> str:
        number = sum(1 for name in marks if name.startswith("card stored") and name.endswith("start")) + 1
        mark(f"card stored {number}: start")
        try:
            return original(self, *args, **kwargs)
        finally:
            mark(f"card stored {number}: end")

    StoredTimeline.place = place  # type: ignore[method-assign]


def wrap_events() -> None:
    """Mark when the engine starts reading the stream, and its first event."""
    original: Callable[[AnthropicExchange], Iterator[Any]] = AnthropicExchange.events

    def events(self: AnthropicExchange) -> Iterator[Any]:
        mark("stream read")
        for event in original(self):
            mark("first SDK event")
            yield event

    AnthropicExchange.events = events  # type: ignore[method-assign]


def main() -> None:
    wrap(run_module.Run, "start", "claim and user card", "turn thread started")
    wrap(AnthropicProvider, "open", "request built", "exchange opened")
    wrap(run_module.history_rows, "record_request", "request recorded: start", "request recorded: end")
    wrap_places()
    wrap_events()
    os.environ["BENCH_KEY"] = "bench"
    rows: dict[str, list[float]] = {}
    server = bench.VendorProcess()
    with tempfile.TemporaryDirectory() as tmp, contextlib.closing(server):
        os.chdir(tmp)
        os.environ["HOME"] = tmp
        os.environ["MEWRK_USER_CONFIG"] = str(Path(tmp) / "person-config")
        bench.configure(Path(tmp), server)
        mw.trust(tmp)
        for i in range(TURNS):
            session_module.forget_open_sessions()
            s = mw.Session.new(model="anthropic/claude-bench", title="bench")
            server.next_reply("anthropic")
            marks.clear()
            s.subscribe(lambda e: bench.reply_text(e) and mark("first reply card shown"))
            start = marks["send"] = time.perf_counter()
            s.send(bench.QUESTION, wait=True)
            if i >= WARMUP:
                for name, at in marks.items():
                    rows.setdefault(name, []).append((at - start) * 1000)
    print(f"one Anthropic send on a new session, ms from send() · of {TURNS - WARMUP} sends")
    print(f"{'':28} {'median':>8} {'q90':>8}")
    for name, values in sorted(rows.items(), key=lambda item: statistics.median(item[1])):
        q90 = statistics.quantiles(values, n=10)[-1]
        print(f"{name:28} {statistics.median(values):8.3f} {q90:8.3f}")


if __name__ == "__main__":
    main()
