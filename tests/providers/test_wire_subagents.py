"""Subagents against the local wire servers (T15, T13, T14): the parent's model spawns a subagent (an
offline helper, so the server answers the parent alone), its uncollected result reaches the next request
as a host message in both containers — the exact request shape — and with async tool calls it becomes
the output of the `agent_spawn` call."""

from __future__ import annotations

import json
from typing import Any

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.assembly.assemble import NOTIFICATION_MARK

from ..conftest import wait_for
from .vendors import write_vendor
from .wire import anthropic_reply, anthropic_tool_use, chat_reply, chat_tool_call, responses_reply
from .wire.openai_responses import responses_function_call

# The helper's task makes it call bash, which asks first: it ends when the test approves, between turns.
TASK = 'call: bash {"command": "echo from-helper"}'
MODELS = {"ant/m": "anthropic", "chat/m": "chat", "resp/m": "responses"}


@pytest.fixture
def vendors(workspace, wire_server, monkeypatch):
    folder = workspace / ".mewrk" / "agents"
    folder.mkdir(parents=True)
    (folder / "main.yaml").write_text("model: ant/m\ntools: [read, agent_spawn, task_wait]\n")
    (folder / "helper.yaml").write_text("model: offline/echo\ntools: [bash]\n")
    monkeypatch.setenv("SUB_KEY", "sk-sub-test")
    models = "  m: {context_window: 100000, async_tools: true}\n"
    write_vendor(workspace, "ant", "anthropic-messages", wire_server.url, models, "SUB_KEY")
    write_vendor(workspace, "chat", "openai-chat", wire_server.openai_base_url, models, "SUB_KEY")
    write_vendor(workspace, "resp", "openai-responses", wire_server.openai_base_url, models, "SUB_KEY")
    return wire_server


def spawn_reply(model: str) -> Any:
    """The parent model's call of agent_spawn, in its protocol."""
    params = {"agent": "helper", "task": TASK}
    if MODELS[model] == "anthropic":
        return anthropic_reply(anthropic_tool_use("agent_spawn", params, id="toolu_spawn"))
    if MODELS[model] == "chat":
        return chat_reply(tool_calls=[chat_tool_call("agent_spawn", params, id="toolu_spawn")])
    return responses_reply(responses_function_call("agent_spawn", params, call_id="toolu_spawn"))


def text_reply(model: str, text: str) -> Any:
    return {"anthropic": anthropic_reply, "chat": chat_reply, "responses": responses_reply}[MODELS[model]](
        text
    )


def spawned_and_ended(vendors, model: str, **settings: Any) -> tuple[mw.Session, mw.Subagent]:
    """A session whose model spawned the helper in its first turn; the helper ended after that turn."""
    s = mw.Session.new(model=model, **settings)
    vendors.enqueue(spawn_reply(model), text_reply(model, "Started it."))
    run = s.send("delegate")
    assert run.state == "done", run.error
    wait_for(lambda: s.pending_approval)  # the helper's bash, shown on the parent
    s.approve()
    card = wait_for(
        lambda: (c := next(c for c in s.cards if c.kind == "subagent")).state == "completed" and c
    )
    return s, card


def plain(block: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in block.items() if k != "cache_control"}


def expected_notification(card: mw.Subagent) -> str:
    return (
        f"<task-notification>\n<task-id>{card.task_id}</task-id>\n<status>completed</status>\n"
        f"<summary>The subagent `helper` completed.</summary>\n<result>\n{card.result}\n</result>\n"
        "</task-notification>"
    )


def test_anthropic_offers_the_tools_and_the_uncollected_result_is_a_system_notification(vendors):
    s, card = spawned_and_ended(vendors, "ant/m")
    first = vendors.json_bodies()[0]
    assert [t["name"] for t in first["tools"]] == ["read", "agent_spawn", "task_wait"]
    assert "from-helper" in card.result
    vendors.enqueue(anthropic_reply("Thanks."))
    s.send("what did it find?")
    body = vendors.json_bodies()[-1]
    reminder = f"<system-reminder>\n{NOTIFICATION_MARK}\n{expected_notification(card)}\n</system-reminder>"
    assert [plain(b) for b in body["messages"][-1]["content"]] == [
        {"type": "text", "text": "what did it find?"},
        {"type": "text", "text": reminder},
    ]
    assert body["messages"][-1]["role"] == "user"


def test_anthropic_box_container_the_result_is_a_bare_notification_in_a_box_result(vendors):
    s, card = spawned_and_ended(vendors, "ant/m", host_container="box_tool_result")
    vendors.enqueue(anthropic_reply("Thanks."))
    s.send("what did it find?")
    note = next(c for c in s.cards if c.kind == "host_message" and c.topic == "task_notification")
    body = vendors.json_bodies()[-1]
    call_id = f"toolu_box_{note.id}"
    assert [plain(b) for b in body["messages"][-3]["content"]] == [
        {"type": "text", "text": "what did it find?"}
    ]
    assert body["messages"][-2] == {
        "role": "assistant",
        "content": [{"type": "tool_use", "id": call_id, "name": "box", "input": {}}],
    }
    assert [plain(b) for b in body["messages"][-1]["content"]] == [
        {
            "type": "tool_result",
            "tool_use_id": call_id,
            "content": expected_notification(card),
            "is_error": False,
        }
    ]
    assert NOTIFICATION_MARK not in json.dumps(body["messages"])


@pytest.mark.parametrize("model", ["chat/m", "resp/m"])
@pytest.mark.parametrize("container", ["user_message", "box_tool_result"])
def test_openai_protocols_carry_the_notification_in_both_containers(vendors, model, container):
    s, card = spawned_and_ended(vendors, model, host_container=container)
    vendors.enqueue(text_reply(model, "Thanks."))
    s.send("what did it find?")
    sent = json.dumps(vendors.json_bodies()[-1])
    assert json.dumps(expected_notification(card))[1:-1] in sent
    assert (json.dumps(NOTIFICATION_MARK)[1:-1] in sent) == (container == "user_message")


@pytest.mark.parametrize("model", ["ant/m", "chat/m"])
def test_with_async_tool_calls_the_result_is_the_spawning_calls_output(vendors, model):
    s, card = spawned_and_ended(vendors, model, async_tools=True)
    vendors.enqueue(text_reply(model, "Thanks."))
    s.send("what did it find?")
    body = vendors.json_bodies()[-1]
    if MODELS[model] == "anthropic":
        results = [b for m in body["messages"] for b in m["content"] if b.get("type") == "tool_result"]
        assert [plain(r) for r in results] == [
            {"type": "tool_result", "tool_use_id": "toolu_spawn", "content": card.result, "is_error": False}
        ]
    else:
        [tool] = [m for m in body["messages"] if m["role"] == "tool"]
        assert tool["tool_call_id"] == "toolu_spawn" and card.result in json.dumps(tool["content"])
    assert "task-notification" not in json.dumps(body["messages"])


@pytest.mark.parametrize("where", ["parent", "subagent"])
def test_the_parents_state_says_a_subagents_approval_waits_until_it_is_answered(vendors, where):
    s = mw.Session.new(model="ant/m")
    vendors.enqueue(spawn_reply("ant/m"), text_reply("ant/m", "Started it."))
    assert s.send("delegate").state == "done"
    mirror = wait_for(lambda: s.pending_approval)  # the helper's bash asks, shown on the parent
    child = next(c for c in s.cards if c.kind == "subagent").session
    # The parent's turn ended, but its state says what waits, and which subagent's it is.
    assert (s.state, child.state) == ("subagent_awaiting_approval", "awaiting_approval")
    assert (mirror.name, mirror.session_id) == ("bash", child.id)
    # Every surface reads the state from the store: another opener, the list of sessions (HTTP, %mewrk).
    assert mw.Session.open(s.id).state == "subagent_awaiting_approval"
    assert {info.id: info.state for info in mw.list_sessions()}[s.id] == "subagent_awaiting_approval"
    (s if where == "parent" else child).approve(wait=True)
    card = wait_for(
        lambda: (c := next(c for c in s.cards if c.kind == "subagent")).state == "completed" and c
    )
    assert "from-helper" in card.result
    assert s.card(mirror.id).decision == "approved" and s.pending_approval is None
    assert (s.state, child.state) == ("idle", "idle")
