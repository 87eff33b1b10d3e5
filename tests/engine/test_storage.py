"""Bounded storage: the store grows with what a request adds, not with the session it carries again."""

import os

import mewrk_jupyter as mw
from mewrk_jupyter.store import cards as card_rows
from mewrk_jupyter.store.db import Database
from tests.conftest import forget_process_state

SMALL_GROWTH = 64 * 1024  # a short question and its answer, with the history's bookkeeping


def store_bytes(db: Database) -> int:
    """Bytes in the store's used pages."""
    conn = db.conn()
    used = (
        conn.execute("PRAGMA page_count").fetchone()[0] - conn.execute("PRAGMA freelist_count").fetchone()[0]
    )
    return used * conn.execute("PRAGMA page_size").fetchone()[0]


def session_with(n: int) -> mw.Session:
    s = mw.Session.new(model="offline/big")  # a window the long session fits
    with s.stored_timeline.db.tx() as conn:
        key = None
        for i in range(n):
            card = (mw.UserInput if i % 2 == 0 else mw.ModelReply)(text=f"card {i} " + "lorem ipsum " * 20)
            key = card_rows.key_for_insert(conn, s.id) if key is None else card_rows.key_between(key, None)
            card_rows.put_card(conn, s.id, card, key)
    return s


def test_a_request_on_a_long_unchanged_session_stores_what_is_new_not_the_session(workspace):
    s = session_with(2000)  # about 600 kB of messages in every request
    s.send("first question")
    db = s.stored_timeline.db
    before = store_bytes(db)
    s.send("second question")
    assert store_bytes(db) - before < SMALL_GROWTH
    request = s.history[-1].request
    assert (
        len(request["messages"]) == 2003 and request["messages"][-1]["parts"][0]["text"] == "second question"
    )


def test_a_big_attachment_is_stored_once_across_requests_edits_and_branches(workspace):
    data = os.urandom(4 * 1024 * 1024)
    (workspace / "big.bin").write_bytes(data)
    s = mw.Session.new(model="offline/big")  # a window the long session fits
    db = s.stored_timeline.db
    before = store_bytes(db)
    s.send("here is a file", attachments=["big.bin"])
    assert store_bytes(db) - before < len(data) * 1.1  # the bytes once: not base64, not card and request
    before = store_bytes(db)
    s.send("and a question")
    s.edit(s.cards[0].id, text="here is the file")
    branch = s.branch(s.cards[-1].id)
    branch.send("on the branch")
    assert store_bytes(db) - before < 3 * SMALL_GROWTH
    forget_process_state()
    again = mw.Session.open(s.id)
    assert again.cards[0].attachments[0].data == branch.cards[0].attachments[0].data
    sent = [m["parts"] for m in again.history[-1].request["messages"] if m["role"] == "user"][0]
    assert sent[0]["data"] == again.cards[0].attachments[0].data and sent[0]["name"] == "big.bin"


def test_history_reads_the_same_before_and_after_the_process_is_new(workspace):
    (workspace / "notes.txt").write_text("some notes\n" * 1000)
    s = mw.Session.new(model="offline/big")  # a window the long session fits
    s.send("with notes", attachments=["notes.txt"])
    s.send('call: read_file {"path": "notes.txt"}')
    if s.state == "awaiting_approval":
        s.approve()
    s.send("and more")
    live = [(e.request, e.response) for e in s.history]
    one = s.history_entry(s.history[1].id)
    forget_process_state()
    again = mw.Session.open(s.id)
    assert [(e.request, e.response) for e in again.history] == live
    assert again.history_entry(one.id).request == one.request
    assert again.cards[0].attachments[0].text == "some notes\n" * 1000
