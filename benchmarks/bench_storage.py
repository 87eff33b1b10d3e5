"""How much the store grows per request: on a 10,000-card session, and on a session holding a 20 MB file.

Run: python benchmarks/bench_storage.py
Each request records what was sent in the history. The goal is that the store grows with what is new
in a request (one question, one reply), not with the whole session it carries.
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

import mewrk_jupyter as mw
from mewrk_jupyter.store import cards as card_rows
from mewrk_jupyter.store.db import Database

CARDS = 10_000
ATTACHMENT_MB = 20
REQUESTS = 3


def store_bytes(db: Database) -> int:
    """Bytes the store's pages hold now (free pages left out), as the next checkpoint would write."""
    conn = db.conn()
    pages = (
        conn.execute("PRAGMA page_count").fetchone()[0] - conn.execute("PRAGMA freelist_count").fetchone()[0]
    )
    return int(pages * conn.execute("PRAGMA page_size").fetchone()[0])


def fill(n: int) -> mw.Session:
    """A session with n cards written in one transaction (the set-up is not what is measured)."""
    s = mw.Session.new(title=f"bench {n}", model="offline/big")
    with s.stored_timeline.db.tx() as conn:
        key = None
        for i in range(n):
            card = (mw.UserInput if i % 2 == 0 else mw.ModelReply)(text=f"card {i} " + "lorem ipsum " * 20)
            key = card_rows.key_for_insert(conn, s.id) if key is None else card_rows.key_between(key, None)
            card_rows.put_card(conn, s.id, card, key)
    return s


def growth_per_request(s: mw.Session) -> list[int]:
    """Store growth, in bytes, of each of REQUESTS short requests sent one after the other."""
    db = s.stored_timeline.db
    out = []
    for i in range(REQUESTS):
        before = store_bytes(db)
        s.send(f"question {i}", wait=True)
        out.append(store_bytes(db) - before)
    return out


def megabytes(n: float) -> str:
    return f"{n / 1e6:.3f} MB"


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        os.chdir(tmp)
        os.environ["HOME"] = tmp
        os.environ.pop("MEWRK_HOME", None)
        large = fill(CARDS)
        large.stored_timeline.current()  # read once, as an open session would
        on_large = growth_per_request(large)
        big = Path(tmp) / "big.bin"
        big.write_bytes(os.urandom(ATTACHMENT_MB * 1024 * 1024))
        s = mw.Session.new(title="attachment", model="offline/big")
        db = s.stored_timeline.db
        before = store_bytes(db)
        s.send("here is a file", attachments=[big], wait=True)
        first = store_bytes(db) - before
        later = growth_per_request(s)
    print(f"mewrk_jupyter storage benchmark · Python {sys.version.split()[0]}")
    print(f"{'store growth per request':58}{'each request':>30}")
    print(f"{f'{CARDS:,}-card session, a short question':58}{', '.join(map(megabytes, on_large)):>30}")
    print(f"{f'{ATTACHMENT_MB} MB attachment, the request that carries it first':58}{megabytes(first):>30}")
    print(
        f"{f'{ATTACHMENT_MB} MB attachment, each later short question':58}{', '.join(map(megabytes, later)):>30}"
    )


if __name__ == "__main__":
    main()
