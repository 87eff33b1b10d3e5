"""A replay's own time per turn against a normal turn's, on a 100-turn session (#38).

Run: python benchmarks/bench_replay.py [--turns 100] [--rounds 3] [--profile]

Each round records a session of TURNS messages on offline/echo through the public API, every fifth one
a command the model calls and the person approves (`call: bash {"command": "echo N"}`), and times each
normal turn: `send` until the reply (and, for a call, `approve` until the turn's end). Then it replays
the session on offline/echo with tools="recorded" and times each replayed turn, from one comparison told
to `follow` to the next (the first from the replay's start; the branch's making is timed apart). The
offline model answers at once, so a turn's time is the engine's own: the wall clock, and the process's
CPU time (steadier on a shared machine; the main thread only waits meanwhile, and a command's own CPU,
in a child process, is not counted).

A turn with a call runs the command in the recording and not in the replay, so the like-for-like figure
is the turns without a call; both are shown. The goal holds when the replay's time per turn is no more
than the normal turn's. With --profile, the last round's replay runs under cProfile and the functions
with the most cumulative time are printed.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import os
import pstats
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import mewrk_jupyter as mw  # noqa: E402

CALL_EVERY = 5  # every fifth message makes the model call a command, approved


@dataclass
class Times:
    """Wall and CPU seconds of each turn, and whether it made a tool call."""

    wall: list[float] = field(default_factory=list)
    cpu: list[float] = field(default_factory=list)
    called: list[bool] = field(default_factory=list)

    def add(self, wall: float, cpu: float, called: bool) -> None:
        self.wall.append(wall)
        self.cpu.append(cpu)
        self.called.append(called)

    def mean_ms(self, clock: str, calls: bool | None = None) -> float:
        """The mean of one clock over the turns with (True), without (False) or regardless of (None) a call."""
        values = [
            v for v, c in zip(getattr(self, clock), self.called, strict=True) if calls is None or c == calls
        ]
        return statistics.fmean(values) * 1000


def message(n: int) -> str:
    if n % CALL_EVERY == 0:
        return f'call: bash {{"command": "echo {n}"}}'
    return f"message {n}: tell me about the timeline, " + "lorem ipsum " * 10


def record(turns: int) -> tuple[mw.Session, Times]:
    """A recorded session of `turns` messages, and each normal turn's times."""
    s = mw.Session.new(title=f"bench replay {turns}")
    times = Times()
    for n in range(1, turns + 1):
        w0, c0 = time.perf_counter(), time.process_time()
        s.send(message(n), wait=True)
        called = s.pending_approval is not None
        if called:
            s.approve()  # waits for the turn's end, the command run and the reply after it
        times.add(time.perf_counter() - w0, time.process_time() - c0, called)
    assert s.state == "idle", s.state
    return s, times


class ThreadProfiles:
    """cProfile in every thread started while it is on (the replay's, its turns'), summed at the end."""

    def __init__(self) -> None:
        self.profiles: list[cProfile.Profile] = []

    def _begin(self, *_: object) -> None:
        sys.setprofile(None)  # the first event of a new thread: cProfile takes over in it
        profile = cProfile.Profile()
        self.profiles.append(profile)
        profile.enable()

    def on(self) -> None:
        threading.setprofile(self._begin)

    def off(self) -> None:
        threading.setprofile(None)  # type: ignore[arg-type]

    def report(self, lines: int = 30) -> str:
        out = io.StringIO()
        pstats.Stats(*self.profiles, stream=out).sort_stats("cumulative").print_stats(lines)
        return out.getvalue()


def replay(s: mw.Session, recorded: Times, profile: ThreadProfiles | None) -> tuple[Times, float, mw.Replay]:
    """Replay `s` on offline/echo with recorded tools; each replayed turn's times and the start's seconds."""
    told: list[tuple[float, float]] = []
    ended = threading.Event()

    def heard(turn: object) -> None:
        told.append((time.perf_counter(), time.process_time()))
        if turn is None:
            ended.set()

    if profile is not None:
        profile.on()
    w0 = time.perf_counter()
    r = s.replay("offline/echo", tools="recorded")
    began = (time.perf_counter(), time.process_time())  # the first turn from the moment the branch was made
    started = began[0] - w0
    r.follow(heard)
    ended.wait()
    if profile is not None:
        profile.off()
    assert r.state == "done", (r.state, r.error)
    assert len(r.turns) == len(recorded.wall) and all(t.same_tools for t in r.turns)
    times = Times()
    previous = began
    for (wall, cpu), called in zip(told[:-1], recorded.called, strict=True):
        times.add(wall - previous[0], cpu - previous[1], called)
        previous = (wall, cpu)
    return times, started, r


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--turns", type=int, default=100)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--profile", action="store_true", help="profile the last round's replay")
    args = parser.parse_args()
    rows: dict[str, list[float]] = {}
    starts: list[float] = []
    profile: ThreadProfiles | None = None
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        os.environ["HOME"] = tmp
        os.environ.pop("MEWRK_HOME", None)
        for round_ in range(args.rounds):
            s, normal = record(args.turns)
            if args.profile and round_ == args.rounds - 1:
                profile = ThreadProfiles()
            replayed, started, _ = replay(s, normal, profile)
            starts.append(started)
            for clock in ("wall", "cpu"):
                for label, calls in (("without a call", False), ("with a call", True), ("all", None)):
                    name = f"{clock}, {label}"
                    rows.setdefault(f"{name}: normal", []).append(normal.mean_ms(clock, calls))
                    rows.setdefault(f"{name}: replay", []).append(replayed.mean_ms(clock, calls))
    print(
        f"mewrk_jupyter replay benchmark · Python {sys.version.split()[0]} · {args.turns} turns on offline/echo, "
        f"every {CALL_EVERY}th with a call · {args.rounds} rounds (medians of the rounds' means)"
    )
    print(f"{'ms per turn':28}{'normal':>10}{'replay':>10}{'replay/normal':>15}")
    verdicts = []
    for clock in ("wall", "cpu"):
        for label in ("without a call", "with a call", "all"):
            normal_ms = statistics.median(rows[f"{clock}, {label}: normal"])
            replay_ms = statistics.median(rows[f"{clock}, {label}: replay"])
            ratio = replay_ms / normal_ms
            print(f"{clock + ', ' + label:28}{normal_ms:>10.2f}{replay_ms:>10.2f}{ratio:>15.2f}")
            if label == "without a call":
                verdicts.append((clock, ratio))
    print(f"the replay's start (the branch made), median: {statistics.median(starts) * 1000:.1f} ms")
    for clock, ratio in verdicts:
        held = "holds" if ratio <= 1.0 else "missed"
        print(f"goal (replay per turn ≤ normal per turn, {clock}, like for like): {held} ({ratio:.2f})")
    if profile is not None:
        print(profile.report())


if __name__ == "__main__":
    main()
