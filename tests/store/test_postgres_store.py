"""The team store on a real PostgreSQL server (#37): MEWRK_STORE_URL puts a workspace's sessions in it,
workspaces of one name share them, and bad input is one sentence with nothing written."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap

import psycopg
import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.store.address import postgres_place
from mewrk_jupyter.store.pg_connection import translate
from mewrk_jupyter.store.pg_schema import PG_SCHEMA_VERSION
from mewrk_jupyter.store.runs import STALE_AFTER
from tests.conftest import forget_process_state, run_python, wait_for


@pytest.fixture
def team(postgres_url, monkeypatch):
    """The workspace's sessions in a fresh PostgreSQL database."""
    monkeypatch.setenv("MEWRK_STORE_URL", postgres_url)
    monkeypatch.delenv("MEWRK_WORKSPACE", raising=False)
    return postgres_url


def tables_of(url: str) -> list[str]:
    with psycopg.connect(url) as conn:
        rows = conn.execute(
            "SELECT table_schema || '.' || table_name FROM information_schema.tables "
            "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY 1"
        ).fetchall()
    return [row[0] for row in rows]


def test_a_session_lives_in_postgresql_not_in_the_folder(workspace, team):
    s = mw.Session.new(title="in the team store")
    s.insert(mw.UserInput(text="first"))
    s.send("hello")
    assert not (workspace / ".mewrk" / "mewrk.db").exists()
    assert "public.mewrk_workspaces" in tables_of(team)
    forget_process_state()  # a new process
    again = mw.Session.open(s.id)
    assert [c.kind for c in again.cards] == ["user_input", "user_input", "model_reply"]
    assert [entry.number for entry in again.history] == [1]
    assert [info.title for info in mw.list_sessions()] == ["in the team store"]


def test_two_clones_of_one_name_share_sessions_and_another_name_sees_none(tmp_path, team, monkeypatch):
    first, second, other = tmp_path / "a" / "proj", tmp_path / "b" / "proj", tmp_path / "c" / "else"
    for folder in (first, second, other):
        folder.mkdir(parents=True)
    made = mw.Session.new(title="shared", workspace=first)
    made.send("from the first machine")
    forget_process_state()
    seen = mw.Session.open(made.id, workspace=second)
    seen.send("and from the second")
    assert [c.text for c in seen.cards if isinstance(c, mw.UserInput)] == [
        "from the first machine",
        "and from the second",
    ]
    assert [info.id for info in mw.list_sessions(second)] == [made.id]
    assert list(mw.list_sessions(other)) == []
    monkeypatch.setenv("MEWRK_WORKSPACE", "proj")  # the name, not the folder, decides
    assert [info.id for info in mw.list_sessions(other)] == [made.id]


def test_an_approval_waiting_is_answered_from_another_process(workspace, team):
    s = mw.Session.new()
    s.send('call: bash {"command": "echo approved-here"}')
    assert s.state == "awaiting_approval"
    out = run_python(
        f"""
        import mewrk_jupyter as mw
        s = mw.Session.open({s.id!r})
        assert s.state == "awaiting_approval", s.state
        s.approve()
        print(s.state)
        """,
        workspace,
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "idle"
    forget_process_state()
    again = mw.Session.open(s.id)
    call = next(c for c in again.cards if isinstance(c, mw.ToolCall))
    assert "approved-here" in (call.result or "")


def test_one_turn_per_session_across_processes(workspace, team):
    s = mw.Session.new()
    s.send('call: bash {"command": "echo waits"}')  # the turn waits for its approval: it holds the session
    assert s.state == "awaiting_approval"
    out = run_python(
        f"""
        import mewrk_jupyter as mw
        s = mw.Session.open({s.id!r})
        try:
            s.send("a second turn")
        except mw.SessionBusy as exc:
            print("busy:", exc)
        """,
        workspace,
    )
    assert out.returncode == 0, out.stderr
    assert "busy:" in out.stdout


def test_cards_keep_their_order_text_and_nul_characters(workspace, team):
    s = mw.Session.new()
    texts = ["b", "B", "a", "ä", "nul \x00 inside", "50% of it?"]
    for text in texts:
        s.insert(mw.UserInput(text=text))
    s.insert(mw.UserInput(text="first of all"), before=s.cards[0].id)
    forget_process_state()
    again = mw.Session.open(s.id)
    assert [c.text for c in again.cards] == ["first of all", *texts]


def test_the_password_never_shows(workspace, postgres, postgres_url, monkeypatch):
    monkeypatch.setenv("MEWRK_STORE_URL", postgres_url)
    s = mw.Session.new()
    shown = str(s.workspace.store)
    assert postgres.password not in shown and postgres.password not in repr(s.workspace.store)
    assert shown.startswith(f"postgresql://{postgres.user}@127.0.0.1:{postgres.port}/")


def test_the_password_may_be_a_reference(workspace, postgres, postgres_url, monkeypatch):
    monkeypatch.setenv("TEAM_STORE_PASSWORD", postgres.password)
    monkeypatch.setenv("MEWRK_STORE_URL", postgres_url.replace(postgres.password, "${TEAM_STORE_PASSWORD}"))
    assert mw.Session.new().state == "idle"
    forget_process_state()
    monkeypatch.delenv("TEAM_STORE_PASSWORD")
    with pytest.raises(
        mw.StoreError, match=r"takes its password from \$\{TEAM_STORE_PASSWORD\}, which is not set"
    ):
        mw.Session.new()


def test_an_unreachable_server_is_one_sentence(workspace, monkeypatch):
    monkeypatch.setenv("MEWRK_STORE_URL", "postgresql://mewrk:pw-unused-here@127.0.0.1:9/mewrk")
    with pytest.raises(mw.StoreError, match="cannot be reached .*Nothing was written") as info:
        mw.Session.new()
    assert "pw-unused-here" not in str(info.value)
    assert not (workspace / ".mewrk" / "mewrk.db").exists()


def test_a_wrong_password_is_one_sentence(workspace, postgres, postgres_url, monkeypatch):
    monkeypatch.setenv("MEWRK_STORE_URL", postgres_url.replace(postgres.password, "not-the-password"))
    with pytest.raises(mw.StoreError, match="refused to sign in its user .*Nothing was written") as info:
        mw.Session.new()
    assert "not-the-password" not in str(info.value)
    assert tables_of(postgres_url) == []


def test_a_missing_database_is_one_sentence(workspace, postgres, postgres_url, monkeypatch):
    monkeypatch.setenv("MEWRK_STORE_URL", postgres_url.rsplit("/", 1)[0] + "/no_such_database")
    with pytest.raises(mw.StoreError, match="names a database the server does not have"):
        mw.Session.new()


def test_another_applications_database_is_left_untouched(workspace, team):
    with psycopg.connect(team, autocommit=True) as conn:
        conn.execute("CREATE TABLE orders (id integer PRIMARY KEY)")
    with pytest.raises(mw.StoreError, match=r"belongs to another application .*public\.orders"):
        mw.Session.new()
    assert tables_of(team) == ["public.orders"]


def test_a_newer_schema_is_refused_and_left_untouched(workspace, team):
    mw.Session.new()
    forget_process_state()
    with psycopg.connect(team, autocommit=True) as conn:
        conn.execute("UPDATE public.mewrk_workspaces SET version = version + 1")
    with pytest.raises(mw.StoreError, match=f"newer mewrk_jupyter .*reads up to {PG_SCHEMA_VERSION}"):
        mw.Session.new()
    with psycopg.connect(team) as conn:
        assert (
            conn.execute("SELECT version FROM public.mewrk_workspaces").fetchone()[0] == PG_SCHEMA_VERSION + 1
        )


@pytest.mark.parametrize(
    ("url", "says"),
    [
        ("mysql://u@h/db", "must be a postgresql:// URL"),
        ("postgresql:///db", "names no host"),
        ("postgresql://u@h", "names no database"),
        ("postgresql://u@h/db?sslmode=disable", "takes no options"),
        ("postgresql://u@h:notaport/db", "is not a URL that can be read"),
    ],
)
def test_a_url_that_cannot_be_used_is_one_sentence(workspace, monkeypatch, url, says):
    monkeypatch.setenv("MEWRK_STORE_URL", url)
    with pytest.raises(mw.StoreError, match=says):
        mw.Session.new()
    assert not (workspace / ".mewrk" / "mewrk.db").exists()


def test_the_place_keeps_the_password_apart():
    place = postgres_place("postgresql://me:s%40cret@db.example:5433/team", "proj")
    assert place.url == "postgresql://me@db.example:5433/team"
    assert place.resolved_password() == "s@cret"
    assert str(place) == "postgresql://me@db.example:5433/team (workspace 'proj')"


def test_the_translation_leaves_literals_alone():
    sql = textwrap.dedent(
        """SELECT data ->> 'x', '%?rowid' FROM cards WHERE a = ? AND response -> 'usage' ->> 'n' > ?
        ORDER BY rowid"""
    )
    assert translate(sql) == textwrap.dedent(
        """SELECT mw_json(data) ->> 'x', '%%?rowid' FROM cards WHERE a = %s AND mw_json(response) -> 'usage' ->> 'n' > %s
        ORDER BY row_seq"""
    )


@pytest.mark.parametrize("as_reference", [False, True])
def test_a_command_sees_neither_the_store_url_nor_its_password(
    workspace, postgres, postgres_url, monkeypatch, as_reference
):
    if as_reference:
        monkeypatch.setenv("TEAM_STORE_PASSWORD", postgres.password)
        postgres_url = postgres_url.replace(postgres.password, "${TEAM_STORE_PASSWORD}")
    monkeypatch.setenv("MEWRK_STORE_URL", postgres_url)
    s = mw.Session.new()
    # The command prints its environment, then the password spelled backwards, as an attacker would.
    backwards = postgres.password[::-1]
    s.send(f'call: bash {{"command": "env; echo {backwards} | rev"}}')
    s.approve()
    call = next(c for c in s.cards if isinstance(c, mw.ToolCall))
    assert call.result and "HOME=" in call.result
    assert "MEWRK_STORE_URL" not in call.result
    assert "TEAM_STORE_PASSWORD" not in call.result
    assert postgres.password not in call.result
    assert postgres.password not in json.dumps([entry.model_dump() for entry in s.history])


FAR_TURN = """
import socket
socket.gethostname = lambda: "another-machine"  # as a server on another machine names its runs
import sys
import mewrk_jupyter as mw
s = mw.Session.open(sys.argv[1])
print("started", flush=True)
s.send("long: 3000", wait=True)
"""


def test_a_turn_of_a_killed_process_on_another_machine_is_taken_over_at_once(workspace, team):
    s = mw.Session.new(model="offline/slow")
    far = subprocess.Popen(
        [sys.executable, "-c", FAR_TURN, s.id], cwd=workspace, stdout=subprocess.PIPE, text=True
    )
    try:
        assert far.stdout.readline().strip() == "started"
        wait_for(lambda: s.state == "running")
        owner = s.stored_timeline.db.read("SELECT owner FROM runs")[0][0]
        assert owner.startswith("another-machine:")  # no process of this machine to look for
        with pytest.raises(mw.SessionBusy):
            s.send("while it lives")
        os.kill(far.pid, signal.SIGKILL)
        far.wait(timeout=30)
        # Its heart beat a moment ago, and its host is not this one: only the database knows it is gone.
        wait_for(lambda: s.state == "idle", timeout=STALE_AFTER / 2)
        s.send("long: 5")  # the next send takes the session over
    finally:
        far.kill()
    assert [r.state for r in s.runs()] == ["interrupted", "done"]
