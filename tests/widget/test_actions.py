"""The composer's protocol, kernel side: slash commands, attachments, history, the ring and the heartbeat."""

from __future__ import annotations

import base64
import time
from typing import Any

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.commands import COMMANDS
from mewrk_jupyter.widget import timeline as widget_timeline
from mewrk_jupyter.widget.uploads import CHUNK

from .recording import RecordingWidget

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg=="
)


@pytest.fixture(autouse=True)
def _a_view_is_open(widget):
    widget.hello()


def _wait_idle(session: mw.Session) -> None:
    run = session.last_run
    if run is not None:
        run.wait()


def upload(widget: RecordingWidget, upload_id: str, name: str, media_type: str, data: bytes) -> None:
    """What the view does for one file: chunks of at most CHUNK bytes, each with its offset."""
    offset = 0
    while True:
        piece = data[offset : offset + CHUNK]
        message = {"type": "upload", "view": "v1", "upload_id": upload_id, "name": name}
        message.update(media_type=media_type, size=len(data), offset=offset)
        widget.receive(widget, message, [memoryview(piece)])
        offset += len(piece)
        if offset >= len(data):
            return


# ---- slash commands (N4) -------------------------------------------------------------------------


def test_the_snapshot_offers_the_commands_this_session_can_do(widget, session):
    offered = {c["name"] for c in widget.of("snapshot")[0]["commands"]}
    assert {"continue", "undo", "redo", "stop", "branch", "fork", "history", "context", "help"} <= offered
    for name in ("compact", "approve", "reject"):
        assert (name in offered) == callable(getattr(session, name, None))
    assert all(COMMANDS[name].summary for name in offered)


def test_slash_undo_and_redo_go_through_the_session(widget, session):
    added = session.insert(mw.SystemPrompt(text="Be brief."))
    result = widget.do("command", text="/undo")
    assert result["ok"] and result["message"] == "Undid: inserted system prompt."
    assert added.id not in [c.id for c in session.cards]
    assert widget.do("command", text="/redo")["ok"]
    assert added.id in [c.id for c in session.cards]


def test_slash_continue_runs_the_model_without_a_new_message(widget, session):
    before = len(session.cards)
    result = widget.do("command", text="/continue")
    assert result["ok"] and result["data"]["sent"]
    _wait_idle(session)
    kinds = [c.kind for c in session.cards[before:]]
    assert kinds == ["model_reply"]  # no user input was added (T12)


def test_slash_branch_defaults_to_the_last_card_and_fork_takes_a_position(widget, session):
    branched = widget.do("command", text="/branch")
    copy = mw.Session.open(branched["data"]["session_id"], workspace=session.workspace.root)
    assert branched["ok"] and branched["message"].startswith("Branched “widget test” at the reply “")
    assert f"into “widget test (branch)” (id {copy.id}): 2 cards" in branched["message"]
    assert branched["data"]["offer_open"]  # the view offers to open it in place
    assert [c.id for c in copy.cards] == [c.id for c in session.cards]
    forked = widget.do("command", text="/fork -1")
    assert forked["ok"]
    assert len(mw.Session.open(forked["data"]["session_id"], workspace=session.workspace.root).cards) == 1


def test_panels_open_from_their_commands(widget):
    for name in ("history", "context", "help", "settings"):
        result = widget.do("command", text=f"/{name}")
        assert result["ok"] and result["data"] == {"open": name}


def test_an_unknown_command_or_wrong_arguments_are_refused_in_plain_words(widget, session):
    cards = [c.id for c in session.cards]
    unknown = widget.do("command", text="/teleport now")
    assert not unknown["ok"]
    assert unknown["message"].startswith("Unknown command /teleport — type /help")
    usage = widget.do("command", text="/undo twice")
    assert not usage["ok"] and usage["message"].startswith("Usage: /undo")
    missing = widget.do("command", text="/delete")
    assert not missing["ok"] and "Usage: /delete CARD" in missing["message"]
    assert [c.id for c in session.cards] == cards


def test_slash_compact_refuses_too_little_then_shows_the_status_and_the_divider(widget, session):
    cards = [c.id for c in session.cards]
    refused = widget.do("command", text="/compact")
    assert not refused["ok"] and refused["message"] == (
        "Nothing worth compacting: the conversation has 2 messages so far, and a summary needs at least 4."
    )
    assert [c.id for c in session.cards] == cards and widget.of("status") == []  # nothing was sent
    for i in range(5):
        session.send(f"question {i}\nlong: 900", wait=True)
    done = widget.do("command", text="/compact")
    divider = session.cards[-1]
    assert done["ok"] and done["message"] == f"Compacted: {divider.title_line()}."
    assert divider.title_line().startswith("12 earlier messages · compacted into a summary · ≈")
    assert [m["text"] for m in widget.of("status")][-2:] == ["Compacting the conversation…", None]
    assert [m["busy"] for m in widget.of("status")][-2:] == ["compacting", None]  # the header's word
    [added] = [m for m in widget.of("card_added") if m["card"]["id"] == divider.id]
    card = added["card"]
    assert (card["kind"], card["covered"], card["tokens_saved"]) == (
        "summary_divider",
        12,
        divider.tokens_saved,
    )


# ---- attachments (T18, T19) ------------------------------------------------------------------------


def test_chunked_files_arrive_whole_on_the_user_input(widget, session):
    text = ("line of notes\n" * 300).encode()
    offset = 0
    while offset < len(text):  # three chunks
        message = {"type": "upload", "view": "v1", "upload_id": "u1", "name": "notes.txt"}
        message.update(media_type="text/plain", size=len(text), offset=offset)
        widget.receive(widget, message, [memoryview(text[offset : offset + 1000])])
        offset += 1000
    result = widget.do("send", text="read this", attachments=["u1"])
    assert result["ok"], result["message"]
    _wait_idle(session)
    user = [c for c in session.cards if c.kind == "user_input"][-1]
    assert user.text == "read this"
    [attached] = user.attachments
    assert attached.name == "notes.txt" and attached.size == len(text)
    assert base64.b64decode(attached.data) == text and attached.text == text.decode()
    shown = [m for m in widget.of("card_added") if m["card"]["id"] == user.id][0]["card"]
    assert shown["attachments"][0]["name"] == "notes.txt" and "data" not in shown["attachments"][0]
    assert widget.uploads.held() == []  # nothing held once sent


def test_more_than_32_mb_is_refused_and_nothing_is_sent(widget, session):
    cards = [c.id for c in session.cards]
    big = b"\0" * (17 * 1024 * 1024)
    upload(widget, "a", "a.bin", "application/octet-stream", big)
    upload(widget, "b", "b.bin", "application/octet-stream", big)
    result = widget.do("send", text="two big files", attachments=["a", "b"])
    assert not result["ok"]
    assert "a message takes at most 32 MB" in result["message"] and "Nothing was sent" in result["message"]
    assert [c.id for c in session.cards] == cards
    assert widget.uploads.held() == []  # the view keeps the files and uploads them again on a retry


def test_files_dropped_on_an_edited_message_join_its_attachments_and_too_much_changes_nothing(
    widget, session
):
    question = session.cards[0]
    upload(widget, "n", "notes.txt", "text/plain", b"plum")
    result = widget.do("edit", card_id=question.id, fields={"text": "hello again"}, attachments=["n"])
    assert result["ok"], result["message"]
    edited = session.cards[0]
    assert edited.text == "hello again" and [(a.name, a.text) for a in edited.attachments] == [
        ("notes.txt", "plum")
    ]
    big = b"\0" * (33 * 1024 * 1024 // 2)
    upload(widget, "a", "a.bin", "application/octet-stream", big)
    upload(widget, "b", "b.bin", "application/octet-stream", big)
    refused = widget.do("edit", card_id=question.id, fields={"text": "lost?"}, attachments=["a", "b"])
    assert not refused["ok"] and "a message takes at most 32 MB" in refused["message"]
    assert session.cards[0] == edited  # its text and files as they were
    reply = session.cards[-1]
    upload(widget, "r", "notes.txt", "text/plain", b"plum")
    refused = widget.do("edit", card_id=reply.id, fields={"text": "x"}, attachments=["r"])
    assert refused["message"] == "Only a message of yours takes files."
    assert widget.uploads.held() == []  # the view keeps its files and uploads them again on a retry


def test_an_image_to_a_model_without_vision_is_refused_with_the_gate_sentence(widget, session):
    assert widget.of("snapshot")[0]["vision"] is False  # offline/echo takes no images
    cards = [c.id for c in session.cards]
    upload(widget, "img", "cat.png", "image/png", PNG)
    result = widget.do("send", text="what is this?", attachments=["img"])
    assert not result["ok"]
    assert (
        "has no vision input. Switch the model (`/set model vendor/model`) or delete the images."
        in result["message"]
    )
    assert [c.id for c in session.cards] == cards


def test_a_file_that_did_not_arrive_whole_is_named_as_such(widget, session):
    message = {
        "type": "upload",
        "view": "v1",
        "upload_id": "x",
        "name": "half.txt",
        "media_type": "text/plain",
    }
    widget.receive(widget, {**message, "size": 10, "offset": 0}, [memoryview(b"12345")])
    result = widget.do("send", text="", attachments=["x"])
    assert not result["ok"] and "did not arrive whole" in result["message"]


# ---- history (T17) and the ring (T16, D6) ------------------------------------------------------------


def test_history_rows_then_one_entry_as_sent(widget, session):
    session.edit(session.cards[-1].id, text="edited reply")
    session.send(None, wait=True)
    rows = widget.do("history")["data"]["entries"]
    assert [r["id"] for r in rows] == [e.id for e in session.history]
    assert rows[0]["model"] == "offline/echo" and rows[0]["answered"] and rows[0]["usage"]["input_tokens"] > 0
    entry = widget.do("history_entry", entry_id=rows[1]["id"])["data"]["entry"]
    assert entry["request"] == session.history[1].request  # what was really sent, edit included
    assert "edited reply" in str(entry["request"])
    gone = widget.do("history_entry", entry_id=99999)
    assert not gone["ok"] and "no longer in the history" in gone["message"]


def test_the_context_message_carries_the_breakdown_and_keeps_cost_apart(widget, session, monkeypatch):
    ctx = widget.of("snapshot")[0]["context"]
    assert ctx["line"] == session.context.line()
    assert set(ctx["by_kind"]) == {"user_input", "model_reply"}
    # After a reply the figure is the vendor's count of that request (exact); the next one is estimated.
    assert ctx["used_text"] == f"≈{session.context.last_request}" and ctx["window_text"] == "32k"
    assert ctx["next_text"].startswith("≈")
    assert "Cost" not in ctx["line"]

    priced = session.context.model_copy(update={"cost": 0.0123})
    monkeypatch.setattr(type(session), "context", property(lambda s: priced))
    widget.do("undo")  # any change of the timeline sends the figures again
    ctx = widget.of("context")[-1]
    assert ctx["cost"] == pytest.approx(0.0123) and ctx["cost_line"] == priced.cost_line()
    assert ctx["cost_line"].startswith("Cost: $0.012 this session")
    assert "Cost" not in ctx["line"]


# ---- tool calls by hand (T5) ---------------------------------------------------------------------------


def test_save_records_a_tool_call_and_its_typed_result_without_running_it(widget, session, tmp_path):
    anchor = session.cards[0].id
    result = widget.do(
        "tool_call",
        name="ls",
        params={"path": "."},
        result="a.py\nb.py",
        execute=False,
        anchor=anchor,
        where="after",
    )
    assert result["ok"] and result["message"] == "Saved — nothing was executed."
    card = session.card(result["data"]["card_id"])
    assert (card.kind, card.name, card.params, card.result) == (
        "tool_call",
        "ls",
        {"path": "."},
        "a.py\nb.py",
    )
    assert card.status == "saved" and [c.id for c in session.cards].index(card.id) == 1


# ---- views that are gone ------------------------------------------------------------------------------


def test_a_view_that_stops_saying_alive_stops_the_store_watch(widget, monkeypatch):
    monkeypatch.setattr(widget_timeline, "VIEW_TIMEOUT", 0.5)
    monkeypatch.setattr(widget_timeline, "WATCH_EVERY", 0.1)
    widget.hello("v2")  # restarts nothing: the watch from the fixture's hello runs on
    watcher = widget.watcher
    assert watcher is not None
    for _ in range(5):  # v2 keeps beating; v1 (the fixture's view) fell silent
        widget.receive(widget, {"type": "alive", "view": "v2"})
        time.sleep(0.2)
    assert set(widget.views) == {"v2"} and watcher.is_alive()
    watcher.join(timeout=30)  # v2 falls silent too: the tab was closed without a bye
    assert not watcher.is_alive() and widget.views == {}
    sent = len(widget.sent)
    widget.receive(widget, {"type": "alive", "view": "v2"})  # its tab wakes up
    assert widget.watcher is not None and widget.watcher.is_alive()
    _until(lambda: any(m["type"] == "context" for m in widget.sent[sent:]))


def _until(condition: Any, bound: float = 30.0) -> None:
    deadline = time.monotonic() + bound
    while not condition():
        assert time.monotonic() < deadline
        time.sleep(0.05)


# ---- approvals (A1–A3) and tool calls run by hand (T5, T6) ---------------------------------------------


def _ask_for_bash(session: mw.Session, widget: RecordingWidget) -> None:
    session.send('run it\ncall: bash {"command": "echo from-the-tool"}', wait=True)
    assert session.state == "awaiting_approval"
    assert widget.of("state")[-1]["state"] == "awaiting_approval"


def test_the_snapshot_lists_the_enabled_tools_and_which_may_run_again(widget):
    tools = {t["name"]: t for t in widget.of("snapshot")[0]["tools"]}
    assert {"ls", "read", "bash"} <= set(tools)
    assert tools["ls"]["reexecute"] and not tools["bash"]["reexecute"]
    assert tools["read"]["input_schema"]["properties"]["path"]


def test_approve_with_a_reason_runs_the_call_and_the_turn_goes_on(widget, session):
    _ask_for_bash(session, widget)
    approval = session.pending_approval
    shown = [m["card"] for m in widget.of("card_added") if m["card"]["kind"] == "approval"]
    assert shown[-1]["id"] == approval.id and shown[-1]["params"] == {"command": "echo from-the-tool"}
    result = widget.do("approve", card_id=approval.id, reason="fine", always=False)
    assert result["ok"] and result["message"] == "Approved."
    _wait_idle(session)
    assert session.state == "idle"
    call = session.card(approval.tool_card_id)
    assert "from-the-tool" in call.result and session.card(approval.id).decision == "approved"


def test_reject_sends_the_reason_to_the_model_and_always_is_remembered(widget, session):
    _ask_for_bash(session, widget)
    approval = session.pending_approval
    assert widget.do("reject", card_id=approval.id, reason="not on this machine")["ok"]
    _wait_idle(session)
    assert "not on this machine" in session.card(approval.tool_card_id).result
    _ask_for_bash(session, widget)
    assert widget.do("approve", card_id=session.pending_approval.id, reason="", always=True)["ok"]
    _wait_idle(session)
    assert "bash" in session.settings.approved_always
    refused = widget.do("approve", card_id="x", reason="")
    assert not refused["ok"] and "No approval is waiting" in refused["message"]


def test_execute_and_add_runs_the_tool_and_reexecute_records_the_new_result(widget, session, tmp_path):
    (tmp_path / "first.txt").write_text("one")
    result = widget.do("tool_call", name="ls", params={"path": "."}, result=None, execute=True, anchor=None)
    assert result["ok"], result["message"]
    _wait_idle(session)
    call = [c for c in session.cards if c.kind == "tool_call"][-1]
    assert call.name == "ls" and "first.txt" in call.result
    (tmp_path / "second.txt").write_text("two")
    assert widget.do("reexecute", card_id=call.id)["ok"]
    _wait_idle(session)
    assert "second.txt" in session.card(call.id).result
    bash = session.insert(mw.ToolCall(name="bash", params={"command": "true"}, result=""))
    refused = widget.do("reexecute", card_id=bash.id)
    assert not refused["ok"] and refused["message"]


def test_an_approval_that_can_no_longer_be_resumed_is_said_plainly(widget, session):
    from mewrk_jupyter.errors import RESUME_LOST
    from mewrk_jupyter.store import approvals as resume_rows

    _ask_for_bash(session, widget)
    approval = session.pending_approval
    with session.stored_timeline.db.tx() as conn:  # the session's storage was cleaned (A3)
        resume_rows.drop_resume_point(conn, session.id, approval.id)
    cards = len(session.cards)
    result = widget.do("approve", card_id=approval.id, reason="", always=False)
    assert not result["ok"] and result["message"] == RESUME_LOST
    assert widget.of("notice")[-1] == {"type": "notice", "level": "error", "text": RESUME_LOST}
    assert session.state == "idle" and len(session.cards) == cards  # no turn started by itself
    changed = [m["card"] for m in widget.of("card_changed") if m["card"]["id"] == approval.id]
    assert changed[-1]["decision"] == "expired"


def test_slash_skill_lists_the_skills_and_gives_one_as_a_host_message(widget, session):
    folder = session.workspace.home / "skills" / "tidy"
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: tidy\ndescription: Keep notes tidy\n---\nOne topic per file.\n"
    )
    listed = widget.do("command", text="/skill")
    assert listed["ok"] and listed["message"] == "Skills: tidy. `skill NAME` gives one to the model."
    given = widget.do("command", text="/skill tidy")
    assert given["ok"] and given["message"] == "The model reads the skill `tidy` from the next request on."
    host = session.cards[-1]
    assert host.kind == "host_message" and host.topic == "skill" and "One topic per file." in host.text
    assert given["data"]["cards"] == [host.id]
    session.send("tidy up")
    sent = session.history[-1].request["messages"][-1]["parts"]
    assert f"<system-reminder>\n{host.text}\n</system-reminder>" in [p.get("text") for p in sent]
    refused = widget.do("command", text="/skill nope")
    assert not refused["ok"] and "nope" in refused["message"]
