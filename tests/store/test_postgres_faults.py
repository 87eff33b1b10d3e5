"""Faults of the team store's server (#37): the server down, a connection dropped in the middle of a
transaction. Each is one sentence, nothing of the change is half written, and the store goes on once the
server is back. These tests stop a PostgreSQL server of their own, not the run's."""

from __future__ import annotations

import os
import secrets
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.store import cards as card_rows
from mewrk_jupyter.store import postgres as pg_store
from mewrk_jupyter.store.cards import key_for_insert
from tests.conftest import forget_process_state
from tests.postgres import Postgres, start_postgres

LOST = r"The connection to the team store postgresql://mewrk@127\.0\.0\.1:\d+/\w+ \(workspace 'ws'\) was lost"


@pytest.fixture(scope="module")
def own_server() -> Iterator[Postgres]:
    with start_postgres() as server:
        yield server


@pytest.fixture
def faulty(workspace, own_server, monkeypatch) -> Postgres:
    monkeypatch.setenv("MEWRK_STORE_URL", own_server.new_database())
    return own_server


@pytest.mark.parametrize("change", ["insert", "edit"])
def test_a_change_while_the_server_is_down_is_one_sentence_and_the_store_goes_on_after(faulty, change):
    s = mw.Session.new()
    s.send("before")
    before = [c.model_dump() for c in s.cards]
    faulty.stop()
    try:
        with pytest.raises(mw.StoreError, match=LOST + r" .*nothing of this change was stored") as info:
            if change == "insert":  # each one call to the server (store/pg_schema.py mw_put_card_seen)
                s.insert(mw.UserInput(text="while it is down"))
            else:
                s.edit(s.cards[0].id, text="while it is down")
        assert faulty.password not in str(info.value)
    finally:
        faulty.restart()
    s.insert(mw.UserInput(text="after it is back"))  # a new connection replaces the dropped one
    forget_process_state()
    again = mw.Session.open(s.id)
    assert [c.model_dump() for c in again.cards[:-1]] == before
    assert again.cards[-1].text == "after it is back"


def test_a_connection_dropped_mid_transaction_writes_none_of_it(faulty):
    s = mw.Session.new()
    s.insert(mw.UserInput(text="kept"))
    db = s.stored_timeline.db
    with pytest.raises(mw.StoreError, match=LOST):
        with db.tx() as conn:
            card_rows.put_card(conn, s.id, mw.UserInput(text="half"), key_for_insert(conn, s.id))
            pid = conn.execute("SELECT pg_backend_pid()").fetchone()[0]
            with psycopg.connect(faulty.url(), autocommit=True) as admin:
                admin.execute("SELECT pg_terminate_backend(%s)", (pid,))
            card_rows.put_card(conn, s.id, mw.UserInput(text="other half"), key_for_insert(conn, s.id))
    forget_process_state()
    assert [c.text for c in mw.Session.open(s.id).cards] == ["kept"]


def test_after_the_server_is_back_this_process_is_known_to_live_again(faulty, monkeypatch):
    monkeypatch.setattr(pg_store, "LIFE_PROBE_SECONDS", 0.0)
    s = mw.Session.new()
    db = s.stored_timeline.db
    key = db.life_key(f"{pg_store.LIFE}:run")

    def held_by_this_process() -> bool:
        with psycopg.connect(os.environ["MEWRK_STORE_URL"], autocommit=True) as other:
            if other.execute("SELECT pg_try_advisory_lock(%s)", (key,)).fetchone()[0]:
                other.execute("SELECT pg_advisory_unlock(%s)", (key,))
                return False
            return True

    assert held_by_this_process()
    faulty.stop()
    try:
        with pytest.raises(mw.StoreError, match=LOST):
            s.insert(mw.UserInput(text="while it is down"))
    finally:
        faulty.restart()
    assert not held_by_this_process()  # the server forgot it with the connection it cut
    s.insert(mw.UserInput(text="after it is back"))
    assert held_by_this_process()  # so a run this process starts now is not taken for a dead one's


@pytest.fixture
def small_disk(own_server) -> Iterator[str]:
    """A database whose tables live on a 16 MB file system of their own (a tablespace on a tmpfs), whose
    URL it gives; all removed after."""
    room = Path(tempfile.mkdtemp(prefix="mewrk-small-disk-"))
    sudo = [] if os.getuid() == 0 else ["sudo", "-n"]
    subprocess.run(
        [*sudo, "mount", "-t", "tmpfs", "-o", "size=16m,mode=0755", "tmpfs", str(room)], check=True
    )
    try:
        where = room / "tables"
        subprocess.run([*sudo, "mkdir", str(where)], check=True)
        if own_server.as_user.get("user") is not None:
            os.chown(where, own_server.as_user["user"], own_server.as_user["group"])
        with psycopg.connect(own_server.url(), autocommit=True) as admin:
            admin.execute(f"CREATE TABLESPACE small LOCATION '{where}'")
            admin.execute('CREATE DATABASE "full" TABLESPACE small')
        yield own_server.url("full")
    finally:
        forget_process_state()
        with psycopg.connect(own_server.url(), autocommit=True) as admin:
            admin.execute('DROP DATABASE IF EXISTS "full" WITH (FORCE)')
            admin.execute("DROP TABLESPACE IF EXISTS small")
        subprocess.run([*sudo, "umount", str(room)], check=True)
        room.rmdir()


def test_a_full_disk_is_one_sentence_and_nothing_of_the_change_is_written(workspace, small_disk, monkeypatch):
    monkeypatch.setenv("MEWRK_STORE_URL", small_disk)
    s = mw.Session.new()
    s.insert(mw.UserInput(text="kept"))
    big = secrets.token_urlsafe(3_000_000)  # random text, which compression hardly shrinks
    stored = 0
    with pytest.raises(mw.StoreError) as info:
        for _ in range(8):  # 4 MB a card: the 16 MB fill up within four or five
            s.insert(mw.UserInput(text=big))
            stored += 1
    said = str(info.value)
    assert 1 <= stored < 8  # it took some, then filled up
    assert "could not be written because its server ran out of room" in said
    assert "nothing of this change was stored" in said and "workspace 'ws'" in said
    assert own_password(small_disk) not in said
    forget_process_state()
    again = mw.Session.open(s.id)
    assert [c.text for c in again.cards] == ["kept"] + [big] * stored  # the cards before it, and not it


def own_password(url: str) -> str:
    return url.split("@")[0].rsplit(":", 1)[1]
