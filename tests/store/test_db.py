"""The store: WAL mode, one row per change, and clear refusals for damaged or newer databases."""

import sqlite3
import threading

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.store.db import SCHEMA_VERSION, Database
from tests.conftest import forget_process_state


def db_path(workspace):
    return workspace / ".mewrk" / "mewrk.db"


def test_the_store_is_sqlite_in_wal_mode_under_dot_mewrk(workspace):
    mw.Session.new()
    conn = sqlite3.connect(db_path(workspace))
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION


def test_mewrk_home_moves_the_store(workspace, tmp_path, monkeypatch):
    monkeypatch.setenv("MEWRK_HOME", str(tmp_path / "elsewhere"))
    mw.Session.new()
    assert (tmp_path / "elsewhere" / "mewrk.db").exists()
    assert not db_path(workspace).exists()


def test_an_edit_or_insert_writes_one_card_row_whatever_the_size(workspace):
    s = mw.Session.new()
    for i in range(300):
        s.insert(mw.UserInput(text=f"card {i}"))
    conn = s.stored_timeline.db.conn()
    writes = []
    conn.set_trace_callback(writes.append)
    try:
        s.insert(mw.UserInput(text="middle"), after=s.cards[150].id)
        s.edit(s.cards[10].id, text="changed")
    finally:
        conn.set_trace_callback(None)
    card_writes = [
        w
        for w in writes
        if w.lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE")) and " cards " in f" {w} "
    ]
    assert len(card_writes) == 2  # one row for the insert, one for the edit
    assert sum(w.strip().upper() == "COMMIT" for w in writes) == 2  # each change its own transaction


def test_a_damaged_store_is_refused_and_left_untouched(workspace):
    path = db_path(workspace)
    path.parent.mkdir()
    garbage = b"this is not a database at all" * 200
    path.write_bytes(garbage)
    with pytest.raises(mw.StoreError, match="damaged.*left untouched"):
        mw.Session.new()
    assert path.read_bytes() == garbage


def test_a_store_from_a_newer_version_is_refused_and_left_untouched(workspace):
    mw.Session.new()
    forget_process_state()
    path = db_path(workspace)
    conn = sqlite3.connect(path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.commit()
    conn.close()
    before = path.read_bytes()
    newer = rf"newer mewrk_jupyter \(schema {SCHEMA_VERSION + 1}; this version reads up to {SCHEMA_VERSION}\)"
    with pytest.raises(mw.StoreError, match=newer):
        mw.list_sessions()
    assert path.read_bytes() == before


def test_another_programs_sqlite_file_is_not_taken_over(workspace):
    path = db_path(workspace)
    path.parent.mkdir()
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE notes (x)")
    conn.commit()
    conn.close()
    with pytest.raises(mw.StoreError, match="not a mewrk_jupyter store"):
        mw.Session.new()
    tables = sqlite3.connect(path).execute("SELECT name FROM sqlite_master").fetchall()
    assert tables == [("notes",)]


def test_a_version_1_store_is_upgraded_in_place_keeping_its_sessions(workspace):
    from mewrk_jupyter.store.db import APPLICATION_ID, SCHEMA, forget_databases

    path = db_path(workspace)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(SCHEMA)
    conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    conn.execute("PRAGMA user_version = 1")
    conn.execute(
        "INSERT INTO sessions (id, title, parent_id, created_at, settings, rev) "
        "VALUES ('old1', 'from v1', NULL, 0, '{\"model\": \"offline/echo\"}', 0)"
    )
    conn.commit()
    conn.close()
    forget_databases()

    s = mw.Session.open("old1", workspace=workspace)
    assert s.title == "from v1"
    s.send("still works")
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == 8
    assert conn.execute("SELECT count(*) FROM resume_points").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM notebook_sessions").fetchone()[0] == 0
    assert conn.execute("SELECT count(*) FROM blobs").fetchone()[0] > 0  # the new request's parts


def test_a_new_thread_takes_the_connection_an_ended_thread_left(tmp_path):
    """Every turn runs on a thread of its own: one connection kept per ended thread would pile up."""
    db = Database(tmp_path / "store.db")
    seen: list[sqlite3.Connection] = []

    def use() -> None:
        with db.tx() as conn:
            conn.execute("SELECT count(*) FROM sessions").fetchone()
        seen.append(db.conn())

    for _ in range(5):
        thread = threading.Thread(target=use)
        thread.start()
        thread.join()
    assert len({id(conn) for conn in seen}) == 1
    assert seen[0] is not db.conn()  # a living thread keeps its own
    db.close()
