"""An approve-always grant belongs to the folder and the configuration it was given in: a committed or
copied `.mewrk/mewrk.db` opened in another folder, or a folder whose trust-asking files changed since,
keeps no grant — the next call asks again — and the person is told once in a sentence."""

from __future__ import annotations

import json
import shutil
import warnings
from pathlib import Path

import mewrk_jupyter as mw
from mewrk_jupyter.engine.events import Notice
from mewrk_jupyter.store import sessions as session_rows
from mewrk_jupyter.store.db import database
from tests.conftest import forget_process_state, run_python
from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.wire import WireServer, anthropic_reply, anthropic_tool_use

KERNEL_A = """
import mewrk_jupyter as mw
mw.trust()
s = mw.Session.new(model="v/m")
s.send("make a file")
s.approve(always=True)
s.send("and another")
print(s.id, s.state, s.settings.approved_always)
"""

KERNEL_B = """
import warnings
import mewrk_jupyter as mw
from mewrk_jupyter.engine.events import Notice
mw.trust()  # the person trusts the folder they cloned
events = []
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    s = mw.Session.open(SESSION)
    s.subscribe(lambda event: events.append(event.text) if isinstance(event, Notice) else None)
    s.send("go on")
print(s.state, s.pending_approval.name if s.pending_approval else None, s.settings.approved_always)
for text in [str(w.message) for w in caught if issubclass(w.category, mw.ConfigNotice)] + events:
    print("NOTICE", text)
"""


def vendor(folder: Path, server: WireServer) -> None:
    llm = folder / ".mewrk" / "llm"
    llm.mkdir(parents=True, exist_ok=True)
    (llm / "v.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {server.url}\nmodels:\n  m: {{context_window: 100000}}\n"
    )


def kernel(code: str, cwd: Path, session_id: str = "") -> list[str]:
    """Run `code` in a new Python process in `cwd` (a kernel) on the session `session_id`; its lines."""
    done = run_python(code.replace("SESSION", repr(session_id)), cwd)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_cloned_store_keeps_no_grant_and_the_call_asks(workspace, tmp_path, wire_server):  # noqa: F811
    vendor(workspace, wire_server)
    wire_server.enqueue(anthropic_reply(anthropic_tool_use("bash", {"command": "touch first.txt"})))
    wire_server.enqueue(anthropic_reply("Made."))
    wire_server.enqueue(anthropic_reply(anthropic_tool_use("bash", {"command": "touch second.txt"})))
    wire_server.enqueue(anthropic_reply("Made again."))
    session_id, state, granted = kernel(KERNEL_A, workspace)[0].split(" ", 2)
    assert state == "idle" and granted == "['bash']" and (workspace / "second.txt").exists()
    clone = tmp_path / "clone"
    shutil.copytree(workspace, clone, symlinks=True)  # the folder, .mewrk/mewrk.db and all
    wire_server.enqueue(anthropic_reply(anthropic_tool_use("bash", {"command": "touch pwned.txt"})))
    lines = kernel(KERNEL_B, clone, session_id)
    assert lines[0] == "awaiting_approval bash []"
    assert not (clone / "pwned.txt").exists()
    notices = [line.removeprefix("NOTICE ") for line in lines[1:]]
    grant = [n for n in notices if "approve-always" in n]
    assert grant == [
        f"The approve-always grants of this session (bash) were given in {workspace}, not in this folder "
        f"({clone}), so they are not used here; approve again to grant."
    ]
    # Opened again there, nothing more is said: the grant is gone from that store.
    wire_server.enqueue(anthropic_reply("Fine."))
    again = kernel(KERNEL_B.replace('s.send("go on")', "pass"), clone, session_id)
    assert not any("approve-always" in line for line in again)
    # The first folder's own store still holds its grant.
    forget_process_state()
    assert mw.Session.open(session_id).settings.approved_always == ["bash"]


def test_a_grant_given_before_the_trust_changed_is_not_used(workspace):
    s = mw.Session.new()
    s.send('call: bash {"command": "touch a.txt"}')
    s.approve(always=True)
    s.send('call: bash {"command": "touch b.txt"}')
    assert s.state == "idle" and (workspace / "b.txt").exists()
    policy = workspace / ".mewrk" / "policy"
    policy.mkdir(parents=True)  # the folder's files that ask for trust change, and the person trusts them
    (policy / "default.yaml").write_text("safety_level: default\nallow: [ls, read]\nask: [bash]\n")
    mw.trust()
    seen: list[str] = []
    s.subscribe(lambda event: seen.append(event.text) if isinstance(event, Notice) else None)
    s.send('call: bash {"command": "touch c.txt"}')
    assert s.state == "awaiting_approval" and not (workspace / "c.txt").exists()
    s.reject()
    s.send('call: bash {"command": "touch d.txt"}')
    assert s.state == "awaiting_approval"
    assert seen == [
        "The approve-always grants of this session (bash) were given before the configuration files that "
        "ask for trust changed, so they are not used here; approve again to grant."
    ]
    s.approve(always=True)  # granted again, under the configuration as it is now
    s.send('call: bash {"command": "touch e.txt"}')
    assert s.state == "idle" and (workspace / "e.txt").exists()


def test_a_grant_stored_without_its_folder_is_dropped_with_the_sentence(workspace):
    s = mw.Session.new()
    db = database(workspace / ".mewrk" / "mewrk.db")
    stored = json.loads(session_rows.get_session(db.conn(), s.id)["settings"])
    with db.tx() as conn:  # as a store written before grants knew their folder holds it
        session_rows.set_settings(conn, s.id, {**stored, "approved_always": ["bash"], "approved_where": {}})
    forget_process_state()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = mw.Session.open(s.id)
    assert [str(w.message) for w in caught] == [
        "The approve-always grants of this session (bash) were stored without the folder they were given "
        "in, so they are not used here; approve again to grant."
    ]
    s.send('call: bash {"command": "touch a.txt"}')
    assert s.state == "awaiting_approval"


def test_a_grant_stays_in_its_own_folder_across_processes(workspace):
    s = mw.Session.new()
    s.send('call: bash {"command": "touch a.txt"}')
    s.approve(always=True)
    forget_process_state()
    with warnings.catch_warnings():
        warnings.simplefilter("error", mw.ConfigNotice)
        s = mw.Session.open(s.id)
    s.send('call: bash {"command": "touch b.txt"}')
    assert s.state == "idle" and (workspace / "b.txt").exists()
    assert s.settings.approved_where["bash"].root == str(workspace)


def test_a_tool_approved_always_at_creation_is_approved_here(workspace):
    s = mw.Session.new(approved_always=["bash"])
    s.send('call: bash {"command": "touch a.txt"}')
    assert s.state == "idle" and (workspace / "a.txt").exists()
