"""Card rows: each card is one row with a stable id and an order key, so a change touches one row."""

from __future__ import annotations

import sqlite3

from ..cards.models import Card, card_from_json
from ..cards.order import key_between


def load_cards(conn: sqlite3.Connection, session_id: str) -> list[tuple[str, Card]]:
    """Every card of a session with its order key, in timeline order."""
    rows = conn.execute(
        "SELECT order_key, data FROM cards WHERE session_id = ? ORDER BY order_key", (session_id,)
    ).fetchall()
    return [(row[0], card_from_json(row[1])) for row in rows]


def order_key_of(conn: sqlite3.Connection, session_id: str, card_id: str) -> str | None:
    """The order key of one card, or None if it does not exist."""
    row = conn.execute(
        "SELECT order_key FROM cards WHERE session_id = ? AND id = ?", (session_id, card_id)
    ).fetchone()
    return row[0] if row else None


def next_key(conn: sqlite3.Connection, session_id: str, key: str) -> str | None:
    """The key right after `key`, or None at the end."""
    row = conn.execute(
        "SELECT min(order_key) FROM cards WHERE session_id = ? AND order_key > ?", (session_id, key)
    ).fetchone()
    return row[0]


def previous_key(conn: sqlite3.Connection, session_id: str, key: str) -> str | None:
    """The key right before `key`, or None at the start."""
    row = conn.execute(
        "SELECT max(order_key) FROM cards WHERE session_id = ? AND order_key < ?", (session_id, key)
    ).fetchone()
    return row[0]


def last_key(conn: sqlite3.Connection, session_id: str) -> str | None:
    """The key of the last card, or None when the timeline is empty."""
    return conn.execute("SELECT max(order_key) FROM cards WHERE session_id = ?", (session_id,)).fetchone()[0]


def _existing_key(conn: sqlite3.Connection, session_id: str, card_id: str) -> str:
    """The order key of a card that a new card is placed beside; it must exist."""
    key = order_key_of(conn, session_id, card_id)
    if key is None:
        raise ValueError(f"no card {card_id!r} in session {session_id!r} to place a card beside")
    return key


def key_for_insert(
    conn: sqlite3.Connection, session_id: str, before: str | None = None, after: str | None = None
) -> str:
    """A fresh order key before the card `before`, after the card `after`, or at the end."""
    if before is not None:
        upper = _existing_key(conn, session_id, before)
        return key_between(previous_key(conn, session_id, upper), upper)
    if after is not None:
        lower = _existing_key(conn, session_id, after)
        return key_between(lower, next_key(conn, session_id, lower))
    return key_between(last_key(conn, session_id), None)


def free_key(conn: sqlite3.Connection, session_id: str, wanted: str) -> str:
    """`wanted` if no card holds it, else a key just after the card that does (for undo and redo)."""
    taken = conn.execute(
        "SELECT 1 FROM cards WHERE session_id = ? AND order_key = ?", (session_id, wanted)
    ).fetchone()
    if not taken:
        return wanted
    return key_between(wanted, next_key(conn, session_id, wanted))


def put_card(conn: sqlite3.Connection, session_id: str, card: Card, order_key: str) -> None:
    """Insert a card, or replace the row of the card with the same id."""
    conn.execute(
        "INSERT OR REPLACE INTO cards (session_id, id, order_key, kind, data) VALUES (?, ?, ?, ?, ?)",
        (session_id, card.id, order_key, card.kind, card.model_dump_json()),
    )


def delete_card(conn: sqlite3.Connection, session_id: str, card_id: str) -> None:
    """Remove one card row."""
    conn.execute("DELETE FROM cards WHERE session_id = ? AND id = ?", (session_id, card_id))
