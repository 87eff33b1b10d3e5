"""The widget's wire protocol, kernel side, without a browser: snapshots, patches, actions, errors."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from typing import Any

import mewrk_jupyter as mw
from mewrk_jupyter.errors import R1_SENTENCE
from mewrk_jupyter.widget import TimelineWidget

from .recording import Client, RecordingWidget, truth


def test_snapshot_carries_the_whole_timeline_for_the_view_that_asked(session, widget):
    snap = widget.hello("v1")
    assert snap["type"] == "snapshot" and snap["for"] == "v1"
    assert [(row["card"]["id"], row["card"]["kind"]) for row in snap["cards"]] == [
        (c.id, c.kind) for c in session.cards
    ]
    assert snap["cards"][1]["card"]["text"] == session.cards[1].text
    assert snap["session"] == {
        "id": session.id,
        "title": "widget test",
        "model": "offline/echo",
        "handover_of": None,  # the header's links after a compaction into a new session (C3, C5)
        "handovers": [],
        "read_only": None,  # a conversation; a workflow step's own timeline says why it is read-only (X8)
    }
    assert snap["state"] == "idle"
    assert snap["context"]["line"] == session.context.line()
    assert snap["context"]["level"] == "ok"
    assert set(snap["kinds"]) == {"system_prompt", "user_input", "thinking", "model_reply"}
    assert snap["editable"]["model_reply"] == ["text"]
    assert Client("v2").apply_all([snap]).ready is False  # another view ignores it


def test_a_handover_made_while_a_view_is_open_sends_it_the_link_both_ways(session, widget):
    widget.hello("v1")
    handover = session.compact_now()
    snap = widget.of("snapshot")[-1]  # the original's view is told at once
    assert snap["session"]["handovers"] == [{"id": handover.id, "title": "widget test-handover-1"}]
    other = RecordingWidget(handover)
    try:
        link = other.hello("v2")["session"]["handover_of"]
        assert link == {"id": session.id, "title": "widget test"}
    finally:
        other.close()


def test_edit_from_the_widget_changes_the_session_and_patches_every_view(session, widget):
    other = RecordingWidget(session)  # a second widget of the same session
    reply = session.cards[-1]
    result = widget.do("edit", card_id=reply.id, fields={"text": "edited in the widget"})
    assert result["ok"] and result["for"] == "v1"
    assert session.cards[-1].text == "edited in the widget" and session.cards[-1].edited
    for w in (widget, other):
        changed = w.of("card_changed")[-1]
        assert changed["card"]["id"] == reply.id and changed["card"]["text"] == "edited in the widget"
    undo = widget.do("undo")
    assert undo["ok"] and undo["message"] == "Undid: edited reply."
    assert session.cards[-1].text == reply.text
    assert other.of("card_changed")[-1]["card"]["text"] == reply.text
    other.close()


def test_insert_before_and_after_places_cards_where_the_menu_said(session, widget):
    snap = widget.hello()
    first, last = session.cards[0].id, session.cards[-1].id
    before = widget.do(
        "insert", kind="system_prompt", fields={"text": "Be brief."}, anchor=first, where="before"
    )
    after = widget.do("insert", kind="user_input", fields={"text": "and more"}, anchor=first, where="after")
    assert before["ok"] and after["ok"]
    kinds = [c.kind for c in session.cards]
    assert kinds == ["system_prompt", "user_input", "user_input", "model_reply"]
    assert session.cards[2].id == after["data"]["card_id"] and session.cards[-1].id == last
    added = widget.of("card_added")
    assert [m["card"]["kind"] for m in added] == ["system_prompt", "user_input"]
    client = Client().apply_all([snap, *widget.sent[widget.sent.index(snap) + 1 :]])
    assert client.timeline() == truth(session)


def test_insert_at_the_end_of_an_empty_timeline(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    s = mw.Session.new(workspace=tmp_path)
    w = RecordingWidget(s)
    assert w.hello()["cards"] == []
    assert w.do("insert", kind="user_input", fields={"text": "first"}, anchor=None, where="after")["ok"]
    assert [c.text for c in s.cards] == ["first"]
    w.close()


def test_delete_many_then_one_undo_restores_them_all(session, widget):
    snap = widget.hello()
    ids = [c.id for c in session.cards]
    result = widget.do("delete", card_ids=ids)
    assert result["ok"] and result["message"] == "Deleted 2 cards."
    assert session.cards == []
    assert sorted(m["card_id"] for m in widget.of("card_removed")) == sorted(ids)
    assert widget.do("undo")["ok"]
    assert [c.id for c in session.cards] == ids
    assert Client().apply_all(widget.sent[widget.sent.index(snap) :]).timeline() == truth(session)
    assert widget.do("redo")["message"] == "Redid: deleted 2 cards."
    assert session.cards == []


def test_send_and_continue_report_state_and_the_new_cards(session, widget):
    snap = widget.hello()
    result = widget.do("send", text="again")
    assert result["ok"] and result["data"]["run_id"]
    session.last_run.wait()
    widget.flush()
    states = [m["state"] for m in widget.of("state")]
    assert states == ["running", "idle"]
    assert widget.do("send", text="")["ok"]  # empty: the model continues from the timeline (T12)
    session.last_run.wait()
    assert [c.kind for c in session.cards][-3:] == ["user_input", "model_reply", "model_reply"]
    client = Client().apply_all(widget.sent[widget.sent.index(snap) :])
    assert client.timeline() == truth(session) and client.state == "idle"
    assert widget.of("context")[-1]["line"] == session.context.line()


def test_a_long_streamed_reply_travels_as_few_coalesced_deltas(session, widget):
    engine_deltas: list[str] = []
    session.subscribe(lambda e: engine_deltas.append(e.text) if e.kind == "text_delta" else None)
    snap = widget.hello()
    session.send("tell me more\nlong: 2000", wait=True)
    widget.flush()
    assert len(engine_deltas) >= 1500  # the offline model streams ~2000 tokens
    deltas = widget.of("text_delta")
    assert len(deltas) <= len(engine_deltas) // 20  # never one message per token
    client = Client().apply_all(widget.sent[widget.sent.index(snap) :])
    assert client.timeline() == truth(session)
    assert len(session.cards[-1].text) > 5000


def test_deltas_carry_offsets_so_a_view_joining_mid_stream_stays_exact(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    s = mw.Session.new(model="offline/slow", workspace=tmp_path)
    w = RecordingWidget(s)
    first = w.hello("v1")
    engine_deltas: list[str] = []
    joined: list[dict[str, Any]] = []

    def join_after_some_text(event):
        if event.kind == "text_delta":
            engine_deltas.append(event.text)
            if len(engine_deltas) == 10:
                joined.append(w.hello("v2"))  # a second view opens mid-turn

    s.subscribe(join_after_some_text)
    s.send("go\nlong: 40", wait=True)
    w.flush()
    assert joined and joined[0]["state"] == "running"
    deltas = w.of("text_delta")
    assert 1 <= len(deltas) < len(engine_deltas)
    assert all(isinstance(d["offset"], int) for d in deltas)
    one = Client("v1").apply_all(w.sent[w.sent.index(first) :])
    two = Client("v2").apply_all(w.sent[w.sent.index(joined[0]) :])
    assert one.timeline() == two.timeline() == truth(s)
    w.close()


def test_refusals_come_back_as_plain_sentences(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    s = mw.Session.new(model="offline/slow", workspace=tmp_path)
    w = RecordingWidget(s)
    w.hello()
    nothing = w.do("undo")
    assert not nothing["ok"] and nothing["message"] == "Nothing to undo in this session."
    missing = w.do("edit", card_id="zzzz", fields={"text": "x"})
    assert not missing["ok"] and missing["message"].startswith("No card `zzzz`")
    assert missing["card_id"] == "zzzz"  # the view shows it on that card
    unknown = w.do("teleport")
    assert not unknown["ok"] and "unknown action" in unknown["message"]
    assert w.do("send", text="go\nlong: 200")["ok"]
    try:
        busy = w.do("send", text="second window")
        assert not busy["ok"] and busy["message"] == R1_SENTENCE
        question = s.cards[0]  # the turn's own user input is on the timeline before send() returns
        still = w.do("edit", card_id=question.id, fields={"text": "x"})
        assert not still["ok"] and "running" in still["message"]
    finally:
        assert w.do("stop")["ok"]
        s.last_run.wait()
    assert s.state == "idle"
    for result in w.of("result"):
        assert "Traceback" not in (result.get("message") or "")
    w.close()


def test_branch_and_fork_answer_with_the_new_session(session, widget):
    reply = session.cards[-1]
    fork = widget.do("fork", card_id=reply.id)
    branch = widget.do("branch", card_id=reply.id)
    assert fork["ok"] and branch["ok"]
    forked = mw.Session.open(fork["data"]["session_id"], workspace=session.workspace.root)
    branched = mw.Session.open(branch["data"]["session_id"], workspace=session.workspace.root)
    assert [c.kind for c in forked.cards] == ["user_input"]
    assert [c.kind for c in branched.cards] == ["user_input", "model_reply"]
    assert fork["message"] == (
        f"Forked “widget test” at the reply “{reply.title_line()}” into “widget test (fork)” "
        f"(id {forked.id}): the 1 card above it."
    )
    assert branch["message"].startswith("Branched “widget test” at the reply")
    assert "Session.open" not in fork["message"] + branch["message"]  # words, not a Python snippet


def test_a_session_has_its_widget_and_display(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    s = mw.Session.new(workspace=tmp_path)
    w = s.widget()
    assert isinstance(w, TimelineWidget) and w.session_id == s.id
    data, _ = s._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in data and "text/markdown" in data
    assert data["text/plain"] == repr(s)
    w.close()


def _elsewhere(tmp_path, code: str) -> subprocess.Popen:
    """Run Python in another process on the same workspace, as another kernel would."""
    env = {**os.environ, "HOME": str(tmp_path / "home")}
    return subprocess.Popen([sys.executable, "-c", code], cwd=tmp_path, env=env)


def _until(condition, what: str, bound: float = 60.0) -> None:
    """Wait for something another process does; the bound only keeps a broken test from hanging."""
    deadline = time.monotonic() + bound
    while not condition():
        assert time.monotonic() < deadline, f"never saw {what}"
        time.sleep(0.1)


def test_changes_made_by_another_process_reach_the_views_as_patches(session, widget, tmp_path):
    snap = widget.hello()
    reply = session.cards[-1]
    code = (
        "import mewrk_jupyter as mw\n"
        f"s = mw.Session.open({session.id!r})\n"
        f"s.edit({reply.id!r}, text='changed in another process')\n"
        "s.insert(mw.UserInput(text='added elsewhere'))\n"
    )
    assert _elsewhere(tmp_path, code).wait(timeout=60) == 0
    _until(lambda: len(widget.of("card_added")) >= 1, "the other process's card")
    assert not widget.of("snapshot")[1:]  # patches, not the whole timeline again
    changed = [m for m in widget.of("card_changed") if m["card"]["id"] == reply.id]
    assert changed[-1]["card"]["text"] == "changed in another process"
    client = Client().apply_all(widget.sent[widget.sent.index(snap) :])
    assert client.timeline() == truth(session)


def test_a_turn_in_another_process_shows_as_running_in_every_view(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    s = mw.Session.new(model="offline/slow", workspace=tmp_path)
    w = RecordingWidget(s)
    w.hello()
    other = _elsewhere(
        tmp_path, f"import mewrk_jupyter as mw\nmw.Session.open({s.id!r}).send('go\\nlong: 60', wait=True)\n"
    )
    try:
        _until(lambda: [m["state"] for m in w.of("state")][-1:] == ["running"], "the turn start")
        assert w.do("send", text="me too")["message"] == R1_SENTENCE
    finally:
        assert other.wait(timeout=120) == 0
    _until(lambda: [m["state"] for m in w.of("state")][-1:] == ["idle"], "the turn end")
    _until(lambda: Client().apply_all(w.sent).timeline() == truth(s), "the reply")
    w.close()


def test_the_store_watch_runs_only_while_a_view_is_open(session, widget):
    widget.hello("v1")
    widget.hello("v2")
    watcher = widget.watcher
    assert watcher is not None and watcher.is_alive()
    widget.receive(widget, {"type": "bye", "view": "v1"})
    assert watcher.is_alive()  # v2 still shows the session
    widget.receive(widget, {"type": "bye", "view": "v2"})
    watcher.join(timeout=30)
    assert not watcher.is_alive()
    widget.hello("v3")
    assert widget.watcher is not None and widget.watcher.is_alive()


def test_a_tool_call_is_edited_through_its_parameters_and_result(session, widget):
    call = session.insert(mw.ToolCall(name="ls", params={"path": "."}, result="a.py"))
    snap = widget.hello()
    assert snap["confirm_delete"] is False
    result = widget.do("edit", card_id=call.id, fields={"params": {"path": "src"}, "result": "b.py"})
    assert result["ok"]
    edited = session.card(call.id)
    assert edited.params == {"path": "src"} and edited.result == "b.py" and edited.edited
    wrong = widget.do("edit", card_id=call.id, fields={"text": "no such field"})
    assert not wrong["ok"] and "no editable field 'text'" in wrong["message"]


def test_a_tool_image_is_sent_to_the_view_only_when_its_bytes_are_the_image_its_type_says(session, widget):
    import base64

    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + b"\x00" * 16).decode()
    svg = base64.b64encode(b"<svg onload='alert(1)'/>").decode()
    images = [
        mw.Attachment(name="output-1.png", media_type="image/png", data=png, size=24),
        mw.Attachment(name="drawing.svg", media_type="image/svg+xml", data=svg, size=24),
        mw.Attachment(name="fake.png", media_type="image/png", data=svg, size=24),
    ]
    call = session.insert(
        mw.ToolCall(name="python", params={"code": "plot()"}, result="[result]", images=images)
    )
    snap = widget.hello("v1")
    shown = next(row["card"] for row in snap["cards"] if row["card"]["id"] == call.id)
    assert [set(image) for image in shown["images"]] == [
        {"name", "media_type", "size", "sent_as", "pages"}
    ] * 3
    first = widget.do("tool_image", card_id=call.id, index=0)
    assert first["ok"] and first["data"]["image"] == f"data:image/png;base64,{png}"
    for index, name in [(1, "drawing.svg"), (2, "fake.png")]:
        refused = widget.do("tool_image", card_id=call.id, index=index)
        assert not refused["ok"] and "image" not in refused["data"]
        assert refused["message"] == f"{name} is not a PNG, JPEG, GIF or WebP image, so it is not shown."
    gone = widget.do("tool_image", card_id=call.id, index=3)
    assert gone["message"] == "That image is no longer on the card."
