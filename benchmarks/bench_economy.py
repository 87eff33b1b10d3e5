"""Context economy on a long session (#39): `s.stale()` and `s.cache_preview()` on a 2,000-card session
whose tool calls read, list and grep the same files again and again, as a long agent session does.

Run: python benchmarks/bench_economy.py
The goal (the issue): each under 20 ms. The session is written in one transaction through the store's card
functions (the set-up is not what is measured); each figure is the median of 50 calls, after a first
`s.stale()`, shown apart: it reads every card's distinctive words, which later calls find kept.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time

import mewrk_jupyter as mw
from mewrk_jupyter.cards.models import ToolCall
from mewrk_jupyter.store import cards as card_rows

CARDS = 2_000
REPEAT = 50
GOAL_MS = 20.0


def long_session() -> mw.Session:
    """2,000 cards: a message, a reply and a tool call in turn; the calls read ten files again and again,
    and one in ten is a listing of 300 lines."""
    s = mw.Session.new(title="economy")
    with s.stored_timeline.db.tx() as conn:
        key = None
        for i in range(CARDS):
            if i % 3 == 0:
                card: mw.Card = mw.UserInput(text=f"step {i}: look at the next file " + "please " * 10)
            elif i % 3 == 1:
                card = mw.ModelReply(text=f"Reading file {i % 10} for step {i}. " + "context " * 30)
            elif i % 30 == 2:
                card = ToolCall(name="bash", params={"command": f"ls -R part{i}"}, status="done",
                                result="\n".join(f"part{i}/file_{n}_with_a_long_name.txt" for n in range(300)))  # fmt: skip
            else:
                card = ToolCall(name="read", params={"path": f"src/file{i % 10}.py"}, status="done",
                                result="\n".join(f"{n:6}\tline {n} of the file, as it was read" for n in range(80)))  # fmt: skip
            key = card_rows.key_between(key, None)
            card_rows.put_card(conn, s.id, card, key)
    return mw.Session.open(s.id)


def median_ms(call) -> float:
    times = []
    for _ in range(REPEAT):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return statistics.median(times) * 1000


def main() -> int:
    os.chdir(tempfile.mkdtemp(prefix="mewrk-bench-economy-"))
    s = long_session()
    cards = s.cards
    started = time.perf_counter()
    stale = s.stale()  # the first call reads every card's words; later ones find them kept
    first_ms = (time.perf_counter() - started) * 1000
    middle = cards[len(cards) // 2]
    figures = {
        "s.stale()": median_ms(s.stale),
        "s.cache_preview(a card in the middle)": median_ms(lambda: s.cache_preview(middle)),
        "s.cache_preview(the first card)": median_ms(lambda: s.cache_preview(cards[0])),
    }
    print(f"context economy · {len(cards):,} cards · {len(stale)} stale results (≈{stale.tokens:,} tokens)")
    print(f"medians of {REPEAT} calls; goal: each under {GOAL_MS:.0f} ms")
    print(f"  {'s.stale(), its first call':<42} {first_ms:8.2f} ms   (once per session and process)")
    for name, ms in figures.items():
        verdict = "met" if ms < GOAL_MS else "MISSED"
        print(f"  {name:<42} {ms:8.2f} ms   {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
