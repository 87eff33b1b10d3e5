"""Each source of host messages, in both containers, against the local wire servers of all three protocols:
the request carries the timeline exactly as it stands, the host message where its card is — a system
reminder of its own in the user role (kept apart from the person's words even where Chat Completions
joins adjacent user parts into one string), or the result of a `box` call the engine wrote."""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.cards.models import Card, HostMessage, ModelReply, ToolCall, UserInput
from mewrk_jupyter.engine.assembly.assemble import NOTIFICATION_MARK, box_call_id, host_text
from mewrk_jupyter.engine.background.tasks import TASKS
from mewrk_jupyter.engine.toolbox.policy import PLAN_OFF, PLAN_ON

from .three import Wire

REMINDER = re.compile(r"<system-reminder>\n.*?\n</system-reminder>", re.DOTALL)
HOOK_SAID = "the build is green"


def expected_turns(cards: list[Card], container: str) -> list[tuple[str, str]]:
    """The conversation the request must carry, from the timeline: each card where it stands."""
    out: list[tuple[str, str]] = []
    for card in cards:
        if isinstance(card, UserInput):
            out.append(("user", card.text))
        elif isinstance(card, ModelReply) and card.text:
            out.append(("assistant", card.text))
        elif isinstance(card, ToolCall):
            out += [("assistant", f"call:{card.name}"), ("user", f"result:{card.result}")]
        elif isinstance(card, HostMessage) and container == "box_tool_result" and out:
            out += [("assistant", "call:box"), ("user", f"result:{card.text}")]
        elif isinstance(card, HostMessage):  # a background result's reminder begins with its mark
            out.append(("user", host_text(card)))
    return out


def sent_turns(wire: Wire, body: dict) -> list[tuple[str, str]]:
    """The request's conversation; a Chat Completions user string that joins a reminder to the person's
    words is cut at the reminder's tags, each joint exactly the adapter's blank line."""
    out: list[tuple[str, str]] = []
    for role, text in wire.turns(body):
        if wire.protocol != "openai-chat" or role != "user" or not REMINDER.search(text):
            out.append((role, text))
            continue
        at = 0
        for found in REMINDER.finditer(text):
            before = text[at : found.start()]
            if before:
                assert before.endswith("\n\n"), f"a reminder not set apart: {text!r}"
                out.append((role, before.removesuffix("\n\n").removeprefix("\n\n")))
            out.append((role, found.group()))
            at = found.end()
        if rest := text[at:]:
            assert rest.startswith("\n\n"), f"a reminder not set apart: {text!r}"
            out.append((role, rest.removeprefix("\n\n")))
    return out


# ---- the sources: each makes its host message through the engine and sends the request that carries it


def file_change(s: mw.Session, wire: Wire, server) -> str:
    (s.workspace.root / "notes.md").write_text("one\ntwo\n")
    server.enqueue(wire.call("read", {"path": "notes.md"}), wire.reply("Read it."))
    assert s.send("read notes.md").state == "done"
    (s.workspace.root / "notes.md").write_text("one\nTWO\n")
    server.enqueue(wire.reply("Noted."))
    s.send("go on")
    return "The file `notes.md` changed since you last read or wrote it:\n```diff\n"


def diagnostics(s: mw.Session, wire: Wire, server) -> str:
    server.enqueue(wire.call("write", {"path": "broken.py", "content": "def f(:\n"}), wire.reply("Written."))
    assert s.send("write broken.py").state == "awaiting_approval"
    assert s.approve().state == "done"
    return "The language server reports, after your `write` of `broken.py`:\n"


def hook(s: mw.Session, wire: Wire, server) -> str:
    folder = s.workspace.home / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ci.yaml").write_text(f"event: before_request\ncommand: echo {HOOK_SAID}\n")
    mw.trust(s.workspace.root)
    server.enqueue(wire.reply("Good."))
    s.send("how is the build?")
    return f"Hook `ci` (before_request):\n{HOOK_SAID}"


def skill(s: mw.Session, wire: Wire, server) -> str:
    folder = s.workspace.home / "skills" / "review"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(
        "---\nname: review\ndescription: Review a change\n---\nRead the diff first.\n"
    )
    s.use_skill("review")
    server.enqueue(wire.reply("Reviewing."))
    s.send("review it")
    return "The person chose a skill for what follows."


def output_limit(s: mw.Session, wire: Wire, server) -> str:
    server.enqueue(wire.cut("The first half"), wire.reply(" and the rest."))
    assert s.send("write a long answer").state == "done"
    [told] = [c for c in s.cards if isinstance(c, HostMessage) and c.topic == "output_limit"]
    return told.text


def plan_on_off(s: mw.Session, wire: Wire, server) -> str:
    s.configure(plan_mode=True)
    server.enqueue(wire.reply("A plan."))
    s.send("plan it")
    s.configure(plan_mode=False)
    server.enqueue(wire.reply("Doing it."))
    s.send("go ahead")
    return PLAN_ON


def background_result(s: mw.Session, wire: Wire, server) -> str:
    server.enqueue(
        wire.call("bash", {"command": "echo done-in-background", "background": True}), wire.reply("Started.")
    )
    assert s.send("run it in the background").state == "awaiting_approval"
    assert s.approve().state == "done"
    [task] = TASKS.of(s.id)
    assert task.done.wait(30) and task.state == "completed"
    server.enqueue(wire.reply("It is done."))
    s.send("and?")  # nobody collected it with task_wait: it reaches the model before this request
    return f"<task-notification>\n<task-id>{task.id}</task-id>\n<status>completed</status>"


def mcp_failed(s: mw.Session, wire: Wire, server) -> str:
    return "The MCP server `ghost` failed to start: the command `/nonexistent/mcp-server` was not found."


def background_tools(workspace: Path, wire: Wire) -> None:
    """The conversation's agent may run a command in the background and collect it."""
    folder = workspace / ".mewrk" / "agents"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "main.yaml").write_text(f"model: {wire.model}\ntools: [ls, read, bash, task_wait]\n")
    mw.trust(workspace)


def ghost_server(workspace: Path, wire: Wire) -> None:
    """An MCP server whose command does not exist: it fails at the conversation's first request."""
    folder = workspace / ".mewrk" / "mcp"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "ghost.yaml").write_text("command: /nonexistent/mcp-server\n")
    mw.trust(workspace)


# Sources whose workspace is set up before the conversation starts.
PREPARE: dict[str, Callable[[Path, Wire], None]] = {
    "background": background_tools,
    "mcp_failed": ghost_server,
}

SOURCES: dict[str, Callable[[mw.Session, Wire, object], str]] = {
    "file_change": file_change,
    "diagnostics": diagnostics,
    "hook": hook,
    "skill": skill,
    "output_limit": output_limit,
    "plan_mode": plan_on_off,
    "background": background_result,
    "mcp_failed": mcp_failed,
}


@pytest.mark.parametrize("container", ["user_message", "box_tool_result"])
@pytest.mark.parametrize("source", list(SOURCES))
def test_each_source_reaches_the_model_in_its_container(
    source: str, container: str, wire: Wire, wire_server, workspace: Path
):
    if source in PREPARE:
        PREPARE[source](workspace, wire)
    s = mw.Session.new(model=wire.model, host_container=container)
    server = wire_server
    server.enqueue(wire.reply("Hello."))
    s.send("hello")  # a conversation under way: the first host message has a turn of the model's before it
    starts = SOURCES[source](s, wire, server)
    hosts = [c for c in s.cards if isinstance(c, HostMessage)]
    assert hosts and hosts[0].text.startswith(starts)
    if source == "plan_mode":
        assert [h.text for h in hosts] == [PLAN_ON, PLAN_OFF]
    body = server.json_bodies()[-1]
    *sent_from, answer = s.cards  # the last request carried everything above its answer
    assert isinstance(answer, ModelReply)
    turns = sent_turns(wire, body)
    assert turns == expected_turns(sent_from, container)
    if source == "background" and container == "user_message":
        assert (
            "user",
            f"<system-reminder>\n{NOTIFICATION_MARK}\n{hosts[0].text}\n</system-reminder>",
        ) in turns
    dumped = str(body)
    if container == "box_tool_result":
        assert wire.tools(body)[-1] == "box"
        # A host message before the conversation's first message has no turn of the model's to hold a
        # call: it goes as a reminder (an MCP server that failed at the first request); every other is
        # the result of a `box` call.
        leading = [h for h in hosts if s.cards.index(h) == 0]
        assert all(box_call_id(h) in dumped for h in hosts if h not in leading)
        assert sum("<system-reminder>" in text for _, text in turns) == len(leading)
    else:
        assert "box" not in wire.tools(body)
