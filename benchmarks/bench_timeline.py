"""Time to insert and edit one card, and to open a session, at 100 and at 10,000 cards.

Run: python benchmarks/bench_timeline.py
The goal is that the times stay flat as the session grows; the last column is the ratio 10,000 / 100.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import mewrk_jupyter as mw
from mewrk_jupyter.cards.undo import UNDO
from mewrk_jupyter.engine import session as session_module
from mewrk_jupyter.store import cards as card_rows
from mewrk_jupyter.store.db import forget_databases

SIZES = (100, 10_000)
REPEAT = 200
OPENS = 20


def fresh_process() -> None:
    """Forget live sessions and connections, so the next open reads the store as a new process would."""
    session_module.forget_open_sessions()
    forget_databases()


def fill(n: int) -> str:
    """A session with n cards, written in one transaction (the set-up is not what is measured)."""
    s = mw.Session.new(title=f"bench {n}")
    with s.stored_timeline.db.tx() as conn:
        key = None
        for i in range(n):
            card = (mw.UserInput if i % 2 == 0 else mw.ModelReply)(text=f"card {i} " + "lorem ipsum " * 20)
            key = card_rows.key_for_insert(conn, s.id) if key is None else card_rows.key_between(key, None)
            card_rows.put_card(conn, s.id, card, key)
    return s.id


def median_ms(samples: list[float]) -> float:
    return statistics.median(samples) * 1000


def measure(session_id: str, repeat: int = REPEAT, opens: int = OPENS) -> dict[str, float]:
    """Median times of `repeat` inserts and edits in the middle of the session, and of `opens` opens."""
    fresh_process()
    t0 = time.perf_counter()
    s = mw.Session.open(session_id)
    opened = time.perf_counter() - t0
    t0 = time.perf_counter()
    cards = s.cards
    first_read = time.perf_counter() - t0
    middle = cards[len(cards) // 2].id
    inserts, edits, opened_again = [], [], []
    for i in range(repeat):
        t0 = time.perf_counter()
        card = s.insert(mw.UserInput(text=f"inserted {i}"), after=middle)
        inserts.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        s.edit(card.id, text=f"edited {i}")
        edits.append(time.perf_counter() - t0)
    UNDO.clear()
    for _ in range(opens):
        fresh_process()
        t0 = time.perf_counter()
        mw.Session.open(session_id)
        opened_again.append(time.perf_counter() - t0)
    return {
        "insert one card (ms, median)": median_ms(inserts),
        "edit one card (ms, median)": median_ms(edits),
        "open a session (ms, median)": median_ms(opened_again),
        "first open, single run (ms)": opened * 1000,
        "first read of all cards (ms)": first_read * 1000,
    }


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        os.environ["HOME"] = tmp
        os.environ.pop("MEWRK_HOME", None)
        results = {n: measure(fill(n)) for n in SIZES}
    small, large = SIZES
    print(
        f"mewrk_jupyter timeline benchmark · Python {sys.version.split()[0]} · store {Path('.mewrk/mewrk.db')}"
    )
    print(f"{'':34}{small:>12,}{large:>12,}{'ratio':>10}")
    for name in results[small]:
        a, b = results[small][name], results[large][name]
        print(f"{name:34}{a:>12.3f}{b:>12.3f}{b / a:>10.2f}")


if __name__ == "__main__":
    main()
