"""A store written by the version before packed requests (schema 2) opens, upgrades and reads the same."""

import json
import shutil
import sqlite3
from pathlib import Path

import mewrk_jupyter as mw
from mewrk_jupyter.store.db import SCHEMA_VERSION
from tests.conftest import forget_process_state

DATA = Path(__file__).parent / "data"
# schema2.db was written by mewrk_jupyter at b5640c4 (two sessions: a text turn, a turn with a text file
# and a binary file, a tool call, a branch); schema2_history.json is what its `s.history` gave then.
EXPECTED = json.loads((DATA / "schema2_history.json").read_text())


def entries(session: mw.Session) -> list[dict]:
    return [
        {
            "id": e.id,
            "number": e.number,
            "model": e.model,
            "protocol": e.protocol,
            "request": e.request,
            "response": e.response,
            "error": e.error,
        }
        for e in session.history
    ]


def test_a_schema_2_store_reads_its_history_and_files_as_it_did(workspace):
    path = workspace / ".mewrk" / "mewrk.db"
    path.parent.mkdir()
    shutil.copy(DATA / "schema2.db", path)
    sessions = {sid: mw.Session.open(sid) for sid in EXPECTED}
    for sid, session in sessions.items():
        assert entries(session) == EXPECTED[sid]
    conn = sqlite3.connect(path)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION
    original = next(s for s in sessions.values() if s.parent_id is None)
    files = {a.name: a for a in original.cards[2].attachments}
    sent = [p for m in EXPECTED[original.id][1]["request"]["messages"] for p in m["parts"] if "data" in p]
    assert {p["name"]: p["data"] for p in sent} == {n: a.data for n, a in files.items()}

    original.send("after the upgrade")  # a new request is packed; the old rows still read the same
    forget_process_state()
    again = mw.Session.open(original.id)
    assert entries(again)[:-1] == EXPECTED[original.id]
    assert again.history[-1].request["messages"][-1]["parts"][0]["text"] == "after the upgrade"
    assert conn.execute("SELECT count(*) FROM history WHERE packed = 1").fetchone()[0] == 1
