"""Card rows: each card is one row with a stable id and an order key, so a change touches one row.

A file attached to a card (or an image a tool call made) is stored once, as a part named by its digest
(store/parts.py): the row keeps the digest under `blob`, so editing the card, branching the session or
sending the file again stores no second copy. In memory the card holds the file as before.
"""

from __future__ import annotations

import base64
import json
import sqlite3

from ..cards.models import Card, card_from_json
from ..cards.order import key_between
from .parts import LONG_STRING, base64_part, get_part, put_part

# The field of each kind of card that holds files: a person's attachments, the images a tool call made.
FILES = {"user_input": "attachments", "tool_call": "images"}


def _card_of(conn: sqlite3.Connection, kind: str, data: str) -> Card:
    if kind not in FILES or '_blob":' not in data and '"blob":' not in data:
        return card_from_json(data)
    fields = json.loads(data)
    for attachment in fields.get(FILES[kind]) or []:
        h = attachment.pop("blob", None)
        if h is not None:
            attachment["data"] = base64.b64encode(get_part(conn, h)).decode("ascii")
        h = attachment.pop("text_blob", None)
        if h is not None:
            attachment["text"] = get_part(conn, h).decode()
    return card_from_json(json.dumps(fields))


def plain_row(card: Card) -> str | None:
    """The card's row when it holds no file for the store to keep apart (then None): a row written whole."""
    files = FILES.get(card.kind)
    return card.model_dump_json() if files is None or not getattr(card, files) else None


def _row_of(conn: sqlite3.Connection, card: Card) -> str:
    """The card as its row stores it: each attached file (or image a tool made) by its digest."""
    plain = plain_row(card)
    if plain is not None:
        return plain
    fields = card.model_dump(mode="json")
    files = FILES[card.kind]
    for attachment in fields[files]:
        h = base64_part(conn, attachment["data"]) if attachment["data"] else None
        if h is not None:  # data that is not canonical base64 stays in the row, as it came
            attachment["data"], attachment["blob"] = "", h
        if len(attachment["text"] or "") > LONG_STRING:  # a text file's text, a PDF's text layer
            attachment["text_blob"] = put_part(conn, attachment.pop("text").encode())
    return json.dumps(fields, ensure_ascii=False)


def load_cards(conn: sqlite3.Connection, session_id: str) -> list[tuple[str, Card]]:
    """Every card of a session with its order key, in timeline order."""
    rows = conn.execute(
        "SELECT order_key, kind, data FROM cards WHERE session_id = ? ORDER BY order_key", (session_id,)
    ).fetchall()
    return [(row[0], _card_of(conn, row[1], row[2])) for row in rows]


def order_key_of(conn: sqlite3.Connection, session_id: str, card_id: str) -> str | None:
    """The order key of one card, or None if it does not exist."""
    row = conn.execute(
        "SELECT order_key FROM cards WHERE session_id = ? AND id = ?", (session_id, card_id)
    ).fetchone()
    return row[0] if row else None


def waiting_subagent(conn: sqlite3.Connection, session_id: str) -> str | None:
    """The subagent session whose approval waits on this session's timeline (the latest shown), or None."""
    row = conn.execute(
        "SELECT data ->> 'session_id' FROM cards WHERE session_id = ? AND kind = 'approval' "
        "AND data ->> 'decision' = 'pending' AND data ->> 'session_id' IS NOT NULL "
        "ORDER BY order_key DESC LIMIT 1",
        (session_id,),
    ).fetchone()
    return row[0] if row else None


def sessions_waiting_on_subagent(conn: sqlite3.Connection) -> set[str]:
    """The sessions on whose timeline a subagent's approval waits (waiting_subagent of each, at once)."""
    rows = conn.execute(
        "SELECT DISTINCT session_id, data ->> 'session_id' FROM cards WHERE kind = 'approval' "
        "AND data ->> 'decision' = 'pending' AND data ->> 'session_id' IS NOT NULL"
    ).fetchall()
    return {row[0] for row in rows if row[1]}


def next_key(conn: sqlite3.Connection, session_id: str, key: str) -> str | None:
    """The key right after `key`, or None at the end."""
    row = conn.execute(
        "SELECT min(order_key) FROM cards WHERE session_id = ? AND order_key > ?", (session_id, key)
    ).fetchone()
    return row[0]


def last_key(conn: sqlite3.Connection, session_id: str) -> str | None:
    """The key of the last card, or None when the timeline is empty."""
    return conn.execute("SELECT max(order_key) FROM cards WHERE session_id = ?", (session_id,)).fetchone()[0]


def key_for_insert(
    conn: sqlite3.Connection, session_id: str, before: str | None = None, after: str | None = None
) -> str:
    """A fresh order key before the card `before`, after the card `after`, or at the end."""
    if before is not None:
        card, earlier = _beside(conn, session_id, before, "max", "<")
        return key_between(earlier, card)
    if after is not None:
        card, later = _beside(conn, session_id, after, "min", ">")
        return key_between(card, later)
    return key_between(last_key(conn, session_id), None)


def _beside(
    conn: sqlite3.Connection, session_id: str, card_id: str, pick: str, side: str
) -> tuple[str, str | None]:
    """The key of a card a new one is placed beside (it must exist) and its neighbour's on that side, in
    one query (a round trip each to a team store's server)."""
    row = conn.execute(
        f"SELECT c.order_key, (SELECT {pick}(n.order_key) FROM cards n WHERE n.session_id = c.session_id "
        f"AND n.order_key {side} c.order_key) FROM cards c WHERE c.session_id = ? AND c.id = ?",
        (session_id, card_id),
    ).fetchone()
    if row is None:
        raise ValueError(f"no card {card_id!r} in session {session_id!r} to place a card beside")
    return row[0], row[1]


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
        "INSERT INTO cards (session_id, id, order_key, kind, data) VALUES (?, ?, ?, ?, ?) ON CONFLICT "
        "(session_id, id) DO UPDATE SET order_key = excluded.order_key, kind = excluded.kind, data = excluded.data",
        (session_id, card.id, order_key, card.kind, _row_of(conn, card)),
    )


def delete_card(conn: sqlite3.Connection, session_id: str, card_id: str) -> None:
    """Remove one card row."""
    conn.execute("DELETE FROM cards WHERE session_id = ? AND id = ?", (session_id, card_id))
