"""A long session sent again and again: each request must grow the store by what is new, not by the session."""

from __future__ import annotations

from pathlib import Path

import mewrk_jupyter as mw
from mewrk_jupyter.engine.session import forget_open_sessions
from mewrk_jupyter.store import cards as card_rows
from mewrk_jupyter.store.db import Database, forget_databases

ATTACK = (
    "A short question on an unchanged 2,000-card session (600 kB a request) grows the store by under 64 kB"
)
TRIALS = 5
CARDS = 2000
BOUND = 64 * 1024


def store_bytes(db: Database) -> int:
    """Bytes in the store's used pages."""
    conn = db.conn()
    used = (
        conn.execute("PRAGMA page_count").fetchone()[0] - conn.execute("PRAGMA freelist_count").fetchone()[0]
    )
    return int(used * conn.execute("PRAGMA page_size").fetchone()[0])


def trial(folder: Path) -> bool:
    """Fill a session, send once, then measure what a second short request adds; held when under the bound."""
    try:
        s = mw.Session.new(workspace=folder, model="offline/big")
        with s.stored_timeline.db.tx() as conn:
            key = None
            for i in range(CARDS):
                card = (mw.UserInput if i % 2 == 0 else mw.ModelReply)(
                    text=f"card {i} " + "lorem ipsum " * 20
                )
                key = (
                    card_rows.key_for_insert(conn, s.id) if key is None else card_rows.key_between(key, None)
                )
                card_rows.put_card(conn, s.id, card, key)
        s.send("first question", wait=True)
        before = store_bytes(s.stored_timeline.db)
        s.send("second question", wait=True)
        return store_bytes(s.stored_timeline.db) - before < BOUND
    finally:
        forget_open_sessions()
        forget_databases()
