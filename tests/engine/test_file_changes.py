"""A file the model read or wrote that changes afterwards (in the notebook, in an editor, by a command)
is told to the model before its next request: a host message with a bounded diff, a secret hidden."""

from __future__ import annotations

from pathlib import Path

import pytest

import mewrk_jupyter as mw
from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.vendors import write_vendor
from tests.providers.wire import WireServer, anthropic_reply, anthropic_tool_use

SECRET = "cred-files-0099887766"


@pytest.fixture
def vendor(workspace: Path, wire_server: WireServer, monkeypatch: pytest.MonkeyPatch) -> WireServer:  # noqa: F811
    monkeypatch.setenv("FILES_CRED", SECRET)
    write_vendor(
        workspace, "a", "anthropic-messages", wire_server.url, "  m: {context_window: 100000}\n", "FILES_CRED"
    )
    return wire_server


def changes(s: mw.Session) -> list[str]:
    return [c.text for c in s.cards if c.kind == "host_message"]


def read_turn(s: mw.Session, wire: WireServer, path: str) -> None:
    wire.enqueue(anthropic_reply(anthropic_tool_use("read", {"path": path})))
    wire.enqueue(anthropic_reply("Read it."))
    assert s.send(f"read {path}").state == "done"


def test_a_file_changed_after_the_model_read_it_is_told_with_its_diff(workspace, vendor):
    (workspace / "notes.md").write_text("one\ntwo\nthree\n")
    s = mw.Session.new(model="a/m")
    read_turn(s, vendor, "notes.md")
    assert changes(s) == []
    (workspace / "notes.md").write_text("one\nTWO\nthree\n")  # the person edits it in the notebook
    vendor.enqueue(anthropic_reply("Noted."))
    s.send("go on")
    [told] = changes(s)
    assert told.startswith("The file `notes.md` changed since you last read or wrote it:\n```diff\n")
    assert "-two\n+TWO\n" in told
    assert "-two\\n+TWO" in vendor.requests[-1].raw_body.decode()  # sent with the request
    # Told once: unchanged since, nothing more.
    vendor.enqueue(anthropic_reply("Fine."))
    s.send("and now?")
    assert len(changes(s)) == 1


def test_a_deleted_file_a_written_file_and_a_secret(workspace, vendor):
    s = mw.Session.new(model="a/m")
    vendor.enqueue(anthropic_reply(anthropic_tool_use("write", {"path": "out.txt", "content": "v1\n"})))
    vendor.enqueue(anthropic_reply("Wrote it."))
    run = s.send("write out.txt")
    if s.state == "awaiting_approval":
        run = s.approve()
    assert run.state == "done", run.error
    (workspace / "out.txt").write_text(f"v1\nkey={SECRET}\n")
    vendor.enqueue(anthropic_reply("Seen."))
    s.send("look")
    [told] = changes(s)
    assert "+key=" in told and SECRET not in told
    (workspace / "out.txt").unlink()
    vendor.enqueue(anthropic_reply("Gone."))
    s.send("and now")
    assert (
        changes(s)[-1]
        == "The file `out.txt` was deleted (or can no longer be read) since you last read or wrote it."
    )


def test_a_long_change_is_cut_with_a_note(workspace, vendor):
    (workspace / "big.txt").write_text("".join(f"line {i}\n" for i in range(500)))
    s = mw.Session.new(model="a/m")
    read_turn(s, vendor, "big.txt")
    (workspace / "big.txt").write_text("".join(f"LINE {i}\n" for i in range(500)))
    vendor.enqueue(anthropic_reply("Ok."))
    s.send("go on")
    [told] = changes(s)
    assert told.endswith("(the diff is cut here: read the file again to see all of it)")
    assert len(told) < 7_000


def test_after_the_model_edits_a_python_file_the_language_servers_findings_reach_it(workspace, vendor):
    vendor.enqueue(
        anthropic_reply(anthropic_tool_use("write", {"path": "bad.py", "content": "def f(:\n    pass\n"}))
    )
    vendor.enqueue(anthropic_reply(anthropic_tool_use("write", {"path": "good.py", "content": "x = 1\n"})))
    vendor.enqueue(anthropic_reply("Written."))
    s = mw.Session.new(model="a/m")
    run = s.send("write two files")
    while s.state == "awaiting_approval":  # each write asks first
        run = s.approve()
    assert run.state == "done", run.error
    [told] = changes(s)  # the good file brings nothing
    assert told.startswith("The language server reports, after your `write` of `bad.py`:\nbad.py:1:")
    assert "error" in told
    assert "The language server reports" in vendor.requests[-1].raw_body.decode()
