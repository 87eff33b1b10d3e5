"""A person's edit and insert on the team store in one call to its server (#37: `mw_put_card_seen`,
store/pg_schema.py), written only if the session is still as this process last saw it: a change another
process made since is never lost, a card it deleted is said to be gone, a running turn refuses the change,
and a workspace of the schema before it is upgraded."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import psycopg
import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.store import pg_connection
from mewrk_jupyter.store.pg_schema import PG_SCHEMA_VERSION
from tests.conftest import forget_process_state, run_python, wait_for
from tests.engine.test_runs import start_slow_turn

ONE_CALL = "SELECT mw_put_card_seen(?, ?, ?, ?, ?, ?, ?)"


@pytest.fixture
def team(workspace, postgres_url, monkeypatch):
    monkeypatch.setenv("MEWRK_STORE_URL", postgres_url)
    return postgres_url


@contextmanager
def calls_to_the_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The statements this process sends through the store's connections while the block runs."""
    sent: list[str] = []
    execute, call_one = pg_connection.PgConnection.execute, pg_connection.PgConnection.call_one

    def logged_execute(self, sql, parameters=()):
        sent.append(sql)
        return execute(self, sql, parameters)

    def logged_call_one(self, sql, parameters):
        sent.append(sql)
        return call_one(self, sql, parameters)

    with monkeypatch.context() as patch:
        patch.setattr(pg_connection.PgConnection, "execute", logged_execute)
        patch.setattr(pg_connection.PgConnection, "call_one", logged_call_one)
        yield sent


def texts(session_id: str) -> list[str]:
    """The cards' texts as a new process reads them from the store."""
    forget_process_state()
    return [card.text for card in mw.Session.open(session_id).cards]


def test_an_edit_and_an_insert_are_one_call_each(team, monkeypatch):
    s = mw.Session.new()
    first = s.insert(mw.UserInput(text="first"))
    second = s.insert(mw.UserInput(text="second"))
    told: list[tuple[str, str]] = []  # what a view of the session (the widget) is told
    s.stored_timeline.subscribe(lambda event: told.append((type(event).__name__, event.card.text)))
    with calls_to_the_server(monkeypatch) as sent:
        s.edit(first.id, text="first, edited")
        between = s.insert(mw.UserInput(text="between"), after=first.id)
        s.insert(mw.UserInput(text="on top"), before=first.id)
        s.insert(mw.UserInput(text="last"))
    assert sent == [ONE_CALL] * 4
    assert told == [
        ("CardChanged", "first, edited"),
        ("CardAdded", "between"),
        ("CardAdded", "on top"),
        ("CardAdded", "last"),
    ]
    assert [c.text for c in s.cards] == ["on top", "first, edited", "between", "second", "last"]
    assert texts(s.id) == ["on top", "first, edited", "between", "second", "last"]
    s = mw.Session.open(s.id)
    s.undo()  # the undo stack holds each of them as a step of its own
    s.undo()
    s.undo()
    s.undo()
    assert [c.text for c in s.cards] == ["first", "second"]
    assert [c.id for c in s.cards] == [first.id, second.id]
    assert between.id not in {c.id for c in s.cards}


def test_a_change_another_process_made_since_the_last_look_is_kept(team, workspace):
    s = mw.Session.new()
    a = s.insert(mw.UserInput(text="a"))
    b = s.insert(mw.UserInput(text="b"))
    assert [c.text for c in s.cards] == ["a", "b"]  # this process has seen the session
    out = run_python(
        f"""
        import mewrk_jupyter as mw
        s = mw.Session.open({s.id!r})
        s.edit({a.id!r}, text="a, by the other")
        s.insert(mw.UserInput(text="c, by the other"))
        """,
        workspace,
    )
    assert out.returncode == 0, out.stderr
    s.edit(b.id, text="b, by this one")  # written on the store's timeline, not on the one seen before
    s.insert(mw.UserInput(text="d, by this one"), after=b.id)
    expected = ["a, by the other", "b, by this one", "d, by this one", "c, by the other"]
    assert [c.text for c in s.cards] == expected
    assert texts(s.id) == expected


def test_an_edit_of_a_card_another_process_deleted_says_it_is_gone(team, workspace):
    s = mw.Session.new()
    kept = s.insert(mw.UserInput(text="kept"))
    gone = s.insert(mw.UserInput(text="deleted by the other"))
    assert len(s.cards) == 2
    out = run_python(
        f"""
        import mewrk_jupyter as mw
        mw.Session.open({s.id!r}).delete({gone.id!r})
        """,
        workspace,
    )
    assert out.returncode == 0, out.stderr
    with pytest.raises(mw.CardNotFound, match=f"No card `{gone.id}`"):
        s.edit(gone.id, text="too late")
    with pytest.raises(mw.CardNotFound):
        s.insert(mw.UserInput(text="beside a card that is gone"), after=gone.id)
    assert [c.id for c in s.cards] == [kept.id]
    assert texts(s.id) == ["kept"]


def test_a_turn_another_process_runs_refuses_the_change(team, workspace):
    s = mw.Session.new(model="offline/slow")
    kept = s.insert(mw.UserInput(text="kept as it was"))
    proc = start_slow_turn(workspace, s.id)
    try:
        wait_for(lambda: s.state == "running")
        assert s.cards  # this process's look at the session while the other's turn runs
        with pytest.raises(mw.SessionBusy, match="nothing on the timeline can change"):
            s.edit(kept.id, text="changed while the turn runs")
        with pytest.raises(mw.SessionBusy, match="nothing on the timeline can change"):
            s.insert(mw.UserInput(text="inserted while the turn runs"))
        assert s.stop()
        proc.wait(timeout=30)
    finally:
        proc.kill()
    assert [c.text for c in s.cards][:2] == ["kept as it was", "long: 400"]
    assert "changed while the turn runs" not in texts(s.id)
    assert "inserted while the turn runs" not in texts(s.id)


def test_a_workspace_of_the_schema_before_is_upgraded_and_edits_in_one_call(team, monkeypatch):
    s = mw.Session.new()
    card = s.insert(mw.UserInput(text="written by the version before"))
    forget_process_state()
    with psycopg.connect(team, autocommit=True) as conn:  # as the version before left it
        schema = conn.execute("SELECT schema_name FROM public.mewrk_workspaces").fetchone()[0]
        conn.execute(f'DROP FUNCTION "{schema}".mw_put_card_seen')
        conn.execute("UPDATE public.mewrk_workspaces SET version = 1")
    s = mw.Session.open(s.id)
    assert [c.text for c in s.cards] == ["written by the version before"]
    with calls_to_the_server(monkeypatch) as sent:
        s.edit(card.id, text="edited after the upgrade")
    assert sent == [ONE_CALL]
    assert texts(s.id) == ["edited after the upgrade"]
    with psycopg.connect(team, autocommit=True) as conn:
        assert conn.execute("SELECT version FROM public.mewrk_workspaces").fetchone()[0] == PG_SCHEMA_VERSION
        # The registry's own tables did not change: a version before this one still opens the database
        # and refuses only the workspace it cannot read.
        assert conn.execute("SELECT version FROM public.mewrk_store").fetchone()[0] == 1


def test_a_card_with_a_file_goes_the_long_way_and_keeps_its_file(team, monkeypatch):
    s = mw.Session.new()
    png = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
    with_file = mw.UserInput(
        text="look", attachments=[mw.Attachment(name="dot.png", media_type="image/png", data=png)]
    )
    placed = s.insert(with_file)
    with calls_to_the_server(monkeypatch) as sent:
        s.edit(placed.id, text="look again")
    assert ONE_CALL not in sent  # the file is kept apart
    forget_process_state()
    again = mw.Session.open(s.id).cards[0]
    assert again.text == "look again"
    assert again.attachments[0].data == png


def test_text_is_written_in_the_connections_own_encoding(team, monkeypatch):
    monkeypatch.setenv("PGCLIENTENCODING", "LATIN1")  # a client that speaks Latin-1 to the server
    s = mw.Session.new()
    card = s.insert(mw.UserInput(text="first"))
    with calls_to_the_server(monkeypatch) as sent:
        s.edit(card.id, text="café crème")
        s.insert(mw.UserInput(text="déjà vu"))
    assert sent == [ONE_CALL] * 2
    monkeypatch.delenv("PGCLIENTENCODING")
    assert texts(s.id) == ["café crème", "déjà vu"]
