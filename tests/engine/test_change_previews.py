"""A write or an edit that waits for approval shows its change as a diff (N5's diff view serves them
too), and runs against the file as it was read then: a person's change meanwhile is not overwritten."""

from __future__ import annotations

import json

import mewrk_jupyter as mw


def ask(s: mw.Session, tool: str, **params) -> mw.Approval:
    run = s.send(f"call: {tool} {json.dumps(params)}")
    assert run.state == "awaiting_approval", run.error
    return s.pending_approval


def last_call(s: mw.Session) -> mw.ToolCall:
    return [c for c in s.cards if isinstance(c, mw.ToolCall)][-1]


def test_an_edit_shows_its_diff_and_runs_when_the_file_is_unchanged(workspace):
    (workspace / "notes.txt").write_text("alpha\nbeta\ngamma\n")
    s = mw.Session.new()
    approval = ask(s, "edit", path="notes.txt", old="beta", new="BETA")
    assert approval.diff == "--- a/notes.txt\n+++ b/notes.txt\n@@ -1,3 +1,3 @@\n alpha\n-beta\n+BETA\n gamma"
    assert last_call(s).preview is not None and last_call(s).preview.diff == approval.diff
    s.approve(wait=True)
    assert (workspace / "notes.txt").read_text() == "alpha\nBETA\ngamma\n"
    assert last_call(s).result.startswith("Edited `notes.txt` at line 2")


def test_a_write_over_a_file_the_person_changed_meanwhile_is_refused_and_writes_nothing(workspace):
    (workspace / "plan.md").write_text("# Plan\n")
    s = mw.Session.new()
    approval = ask(s, "write", path="plan.md", content="# Plan\n\n- ship it\n")
    assert approval.diff.splitlines()[:2] == ["--- a/plan.md", "+++ b/plan.md"]
    assert "+- ship it" in approval.diff.splitlines()
    (workspace / "plan.md").write_text("# Plan\n\n- mine\n")  # the person saves their own change
    s.approve(wait=True)
    call = last_call(s)
    assert call.is_error and call.result == (
        "`plan.md` changed while your call waited for approval, so nothing was written: read it again, "
        "then make the change to the file as it is now."
    )
    assert (workspace / "plan.md").read_text() == "# Plan\n\n- mine\n"


def test_a_new_file_shows_as_added_and_an_edit_that_cannot_apply_shows_no_diff(workspace):
    s = mw.Session.new()
    approval = ask(s, "write", path="new.txt", content="one\ntwo\n")
    assert approval.diff == "--- (new file)\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+one\n+two"
    s.approve(wait=True)
    approval = ask(s, "edit", path="new.txt", old="three", new="3")
    assert approval.diff is None  # the call itself says why when it runs
    s.approve(wait=True)
    assert last_call(s).result == "`old` does not occur in `new.txt`; it must match the file's text exactly."


def test_a_diff_never_shows_a_known_secret(workspace, monkeypatch):
    monkeypatch.setenv("PREVIEW_KEY", "sk-preview-0123456789abcdef")
    folder = workspace / ".mewrk" / "llm"
    folder.mkdir(parents=True)
    (folder / "v.yaml").write_text(
        "protocol: anthropic-messages\nbase_url: http://127.0.0.1:9\napi_key: ${PREVIEW_KEY}\nmodels:\n  m: {}\n"
    )
    mw.trust(workspace)
    (workspace / "cfg.py").write_text("KEY = 'sk-preview-0123456789abcdef'\n")
    s = mw.Session.new(model="offline/echo")
    approval = ask(s, "edit", path="cfg.py", old="KEY", new="API_KEY")
    assert "sk-preview-0123456789abcdef" not in approval.diff
    assert "sk-preview-0123456789abcdef" not in json.dumps(last_call(s).model_dump(mode="json"))
