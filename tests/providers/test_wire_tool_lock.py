"""The tool lock against the local wire servers of all three protocols: while the prompt cache is warm (a
request to the same model within its lifetime), a change of the offered tools — plan mode, an agent file's
tools, the host-message container — leaves the next request's tool list exactly as the last one's, and
the person is told; accepting the cache loss, or the cache cooling, lets the new list through. The
engine's `handoff` is appended after the held list."""

from __future__ import annotations

import json
import time
import warnings

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.cards.models import HostMessage
from mewrk_jupyter.engine.settings.change import describe_change
from mewrk_jupyter.engine.toolbox.handoff_tool import ARMED_TOPIC
from mewrk_jupyter.engine.toolbox.lock import CACHE_LIFETIME
from mewrk_jupyter.widget.commands import run_command

from ..widget.recording import RecordingWidget
from .three import Wire
from .vendors import write_vendor
from .wire import compact_reply, responses_reply

BUILT_IN = ["ls", "read", "grep", "find", "write", "edit", "bash", "lsp"]


def agent_tools(s: mw.Session, tools: list[str]) -> None:
    """Write the main agent's tool list (the folder stays trusted: only llm/ files carry secrets)."""
    agents = s.workspace.home / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    (agents / "main.yaml").write_text(f"model: {s.settings.model}\ntools: [{', '.join(tools)}]\n")
    mw.trust(s.workspace.root)


def cool(s: mw.Session) -> None:
    """Let the prompt cache cool: the session's requests move one cache lifetime into the past."""
    with s.stored_timeline.db.tx() as conn:
        conn.execute(
            "UPDATE history SET started_at = started_at - ?, ended_at = ended_at - ? WHERE session_id = ?",
            (CACHE_LIFETIME, CACHE_LIFETIME, s.id),
        )


def test_plan_mode_while_warm_keeps_the_tools_until_the_person_accepts(wire: Wire, wire_server):
    s = mw.Session.new(model=wire.model)
    wire_server.enqueue(wire.reply("One."), wire.reply("Two."), wire.reply("Three."))
    s.send("hello")
    first = wire.tools(wire_server.json_bodies()[-1])
    assert first == BUILT_IN and s.tool_lock is None

    s.configure(plan_mode=True)
    lock = s.tool_lock
    assert lock is not None and "still offered: write, edit, bash" in lock.text
    assert "s.accept_tool_change()" in str(lock)
    s.send("plan it")
    assert wire.tools(wire_server.json_bodies()[-1]) == first  # the list as it was, byte for byte
    assert "Plan mode is on" in json.dumps(wire_server.json_bodies()[-1])

    assert (
        s.accept_tool_change()
        == "The next request offers the new tool list, so the prompt cache starts over."
    )
    assert s.tool_lock is None
    s.send("and now")
    assert wire.tools(wire_server.json_bodies()[-1]) == ["ls", "read", "grep", "find", "lsp"]


@pytest.mark.parametrize("kept", [True, False], ids=["neutral request kept", "row stored before"])
def test_the_lock_holds_the_tools_of_the_neutral_request_or_of_the_body(wire: Wire, wire_server, kept):
    # A row keeps the neutral request beside the body, and the lock reads its tools there; a row stored
    # before rows kept it holds the same list, read back from the body by the adapters' reader.
    s = mw.Session.new(model=wire.model)
    wire_server.enqueue(wire.reply("One."), wire.reply("Two."))
    s.send("hello")
    first = wire.tools(wire_server.json_bodies()[-1])
    with s.stored_timeline.db.tx() as conn:
        (neutral,) = conn.execute("SELECT neutral FROM history WHERE session_id = ?", (s.id,)).fetchone()
        assert neutral is not None
        if not kept:
            conn.execute("UPDATE history SET neutral = NULL WHERE session_id = ?", (s.id,))
    s.configure(plan_mode=True)
    assert s.tool_lock is not None and "still offered: write, edit, bash" in s.tool_lock.text
    s.send("plan it")
    assert wire.tools(wire_server.json_bodies()[-1]) == first


def test_a_call_to_a_held_tool_in_plan_mode_is_answered_not_run(wire: Wire, wire_server, workspace):
    s = mw.Session.new(model=wire.model)
    wire_server.enqueue(wire.reply("One."))
    s.send("hello")
    s.configure(plan_mode=True)
    wire_server.enqueue(wire.call("write", {"path": "x.txt", "content": "no"}), wire.reply("A plan."))
    run = s.send("write x.txt")
    assert run.state == "done", run.error
    assert "write" in wire.tools(wire_server.json_bodies()[-1])  # still declared: the lock holds it
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert call.status == "denied" and call.result.startswith("Plan mode is on, so `write` is not offered")
    assert not (workspace / "x.txt").exists()


def test_an_agent_files_new_tools_wait_for_the_cache_to_cool(wire: Wire, wire_server):
    s = mw.Session.new(model=wire.model)
    agent_tools(s, ["read", "ls"])
    wire_server.enqueue(wire.reply("One."), wire.reply("Two."), wire.reply("Three."))
    s.send("hello")
    assert wire.tools(wire_server.json_bodies()[-1]) == ["ls", "read"]

    agent_tools(s, ["read", "ls", "grep"])
    lock = s.tool_lock
    assert lock is not None and "not offered yet: grep" in lock.text
    s.send("again")
    assert wire.tools(wire_server.json_bodies()[-1]) == ["ls", "read"]

    cool(s)
    assert s.tool_lock is None
    s.send("later")
    assert wire.tools(wire_server.json_bodies()[-1]) == ["ls", "read", "grep"]


def test_the_container_is_held_with_the_tools(wire: Wire, wire_server):
    s = mw.Session.new(model=wire.model)
    agent_tools(s, ["read"])
    wire_server.enqueue(wire.reply("One."), wire.reply("Two."), wire.reply("Three."))
    s.send("hello")
    before = s.settings
    s.configure(host_container="box_tool_result")
    said = describe_change(before, s.settings, s.tool_lock)
    assert "host messages still travel as system reminders in user messages" in said
    assert "prompt cache starts over" not in said
    s.configure(plan_mode=True)  # its guidance is a host message
    s.send("go on")
    body = wire_server.json_bodies()[-1]
    assert wire.tools(body) == ["read"]
    assert "<system-reminder>" in json.dumps(body) and "call:box" not in [t for _, t in wire.turns(body)]

    s.accept_tool_change()
    s.send("now")
    body = wire_server.json_bodies()[-1]
    assert wire.tools(body) == ["read", "box"]
    assert ("assistant", "call:box") in wire.turns(body)


def test_handoff_is_appended_after_the_held_list(wire: Wire, wire_server):
    s = mw.Session.new(model=wire.model)
    agent_tools(s, ["read", "ls"])
    wire_server.enqueue(wire.reply("One."), wire.reply("Two."))
    s.send("hello")
    agent_tools(s, ["read"])
    s.stored_timeline.append(HostMessage(topic=ARMED_TOPIC, text="Hand the work over now."))
    s.send("go on")
    assert wire.tools(wire_server.json_bodies()[-1]) == ["ls", "read", "handoff"]
    assert s.tool_lock is not None  # handoff is the engine's: the held list is still the agent's old one


def test_nothing_is_held_for_another_model_or_the_offline_models(wire: Wire, wire_server):
    s = mw.Session.new(model=wire.model)
    wire_server.enqueue(wire.reply("One."))
    s.send("hello")
    s.configure(plan_mode=True)
    assert s.tool_lock is not None
    s.configure(model="offline/echo")
    assert s.tool_lock is None
    s.send("offline now")
    assert "write" not in [t["name"] for t in s.history[-1].request["tools"]]
    s.configure(plan_mode=False)
    assert s.tool_lock is None


def test_the_widget_shows_the_lock_and_its_button_accepts_the_cache_loss(wire: Wire, wire_server):
    s = mw.Session.new(model=wire.model)
    wire_server.enqueue(wire.reply("One."), wire.reply("Two."))
    s.send("hello")
    widget = RecordingWidget(s)
    try:
        assert widget.hello()["context"]["tool_lock"] is None
        result = widget.do("configure", changes={"plan_mode": True})
        assert "still offered: write, edit, bash" in result["message"]
        line = widget.hello()["context"]["tool_lock"]
        assert line["text"] == s.tool_lock.text and line["until"] > time.time()
        result = widget.do("accept_tool_change")
        assert result["ok"] and result["message"].endswith("so the prompt cache starts over.")
        assert widget.hello()["context"]["tool_lock"] is None
        s.send("plan")
        assert "write" not in wire.tools(wire_server.json_bodies()[-1])
    finally:
        widget.close()


def test_a_tool_files_new_description_waits_too(wire: Wire, wire_server):
    s = mw.Session.new(model=wire.model)
    tools = s.workspace.home / "tools"
    tools.mkdir(parents=True, exist_ok=True)

    def declare(description: str) -> None:
        (tools / "today.yaml").write_text(
            f"name: today\ndescription: {description}\ncommand: date\nparameters: {{type: object}}\n"
        )
        mw.trust(s.workspace.root)

    declare("The date today.")
    agent_tools(s, ["read", "today"])
    wire_server.enqueue(wire.reply("One."), wire.reply("Two."))
    s.send("hello")
    declare("Today's date, in ISO form.")
    lock = s.tool_lock
    assert lock is not None and "described as before: today" in lock.text
    s.send("again")
    [sent] = [t for t in wire_server.json_bodies()[-1]["tools"] if "today" in json.dumps(t)]
    assert "The date today." in json.dumps(sent) and "ISO" not in json.dumps(sent)


def test_set_in_the_composer_says_what_the_lock_holds(wire: Wire, wire_server):
    s = mw.Session.new(model=wire.model)
    wire_server.enqueue(wire.reply("One."))
    s.send("hello")
    said = run_command(s, "/set plan_mode on").message
    assert said.startswith(
        "Changed plan_mode False → True. The prompt cache is warm, so requests keep the tools"
    )
    assert "still offered: write, edit, bash" in said


def test_a_native_handover_keeps_the_originals_held_tools(workspace, wire_server, monkeypatch):
    monkeypatch.setenv("NATIVE_KEY", "sk-native")
    write_vendor(
        workspace,
        "n",
        "openai-responses",
        wire_server.openai_base_url,
        "  m: {context_window: 100000, native_compaction: true}\n",
        "NATIVE_KEY",
    )
    s = mw.Session.new(model="n/m", compaction="native")
    wire_server.enqueue(responses_reply("One."))
    s.send("hello")
    first = [t["name"] for t in wire_server.json_bodies()[-1]["tools"]]
    s.configure(plan_mode=True)
    wire_server.enqueue(compact_reply(encrypted_content="enc-lock"))
    h = s.compact_now()
    assert h.settings.plan_mode and h.tool_lock is not None  # the original's cache: its tools hold
    wire_server.enqueue(responses_reply("Two."))
    h.send("go on")
    assert [t["name"] for t in wire_server.json_bodies()[-1]["tools"]] == first


def test_python_is_told_what_the_lock_holds_until_when_and_how_to_accept(wire: Wire, wire_server):
    s = mw.Session.new(model=wire.model)
    wire_server.enqueue(wire.reply("One."), wire.reply("Two."), wire.reply("Three."), wire.reply("Four."))
    s.send("hello")
    with pytest.warns(mw.ToolChangeHeld) as told:
        s.configure(plan_mode=True)
    [said] = [str(w.message) for w in told]
    assert said == str(s.tool_lock) and "still offered: write, edit, bash" in said
    assert " until " in said and said.endswith(
        "s.accept_tool_change() offers the new list now, at the cost of the cached prompt."
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error", mw.ToolChangeHeld)  # what was said is not said again
        s.send("plan it")
    agent_tools(s, ["read", "ls"])  # a file's change: said when the next message goes
    with pytest.warns(mw.ToolChangeHeld, match=r"^The prompt cache is warm, .*still offered: "):
        s.send("again")
    s.accept_tool_change()
    with warnings.catch_warnings():
        warnings.simplefilter("error", mw.ToolChangeHeld)
        s.send("now")
    assert wire.tools(wire_server.json_bodies()[-1]) == ["ls", "read"]
