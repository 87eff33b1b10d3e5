"""The `box_tool_result` host-message container against the local wire servers of all three protocols:
a host message travels as the result of a `box` call the engine wrote, `box` is declared in every request,
a call the model makes to it is answered harmlessly, and switching the container replays every earlier
host message in the new one."""

from __future__ import annotations

import json
from typing import Any

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.assembly.prefix import BOX_SECTION
from mewrk_jupyter.engine.settings.change import describe_change

from .vendors import write_vendor
from .wire import anthropic_reply, anthropic_tool_use, chat_reply, responses_reply

HOSTED = "The file notes.md changed."


@pytest.fixture
def vendors(workspace, wire_server, monkeypatch):
    monkeypatch.setenv("BOX_KEY", "sk-box-test")
    write_vendor(
        workspace, "ant", "anthropic-messages", wire_server.url, "  m: {context_window: 100000}\n", "BOX_KEY"
    )
    write_vendor(
        workspace,
        "chat",
        "openai-chat",
        wire_server.openai_base_url,
        "  m: {context_window: 100000}\n",
        "BOX_KEY",
    )
    write_vendor(
        workspace,
        "resp",
        "openai-responses",
        wire_server.openai_base_url,
        "  m: {context_window: 100000}\n",
        "BOX_KEY",
    )
    return wire_server


def session_with_a_host_message(model: str) -> mw.Session:
    """A user message, a reply, then a host message (a hook's output) on the timeline."""
    s = mw.Session.new(model=model, host_container="box_tool_result")
    s.insert(mw.UserInput(text="hello"))
    s.insert(mw.ModelReply(text="Hi."))
    folder = s.workspace.home / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "note.yaml").write_text(f"event: after_tool\ncommand: echo {HOSTED}\n")
    mw.trust(s.workspace.root)
    [added] = s.run_hooks("after_tool")
    assert HOSTED in added.text
    return s


def tool_names(body: dict[str, Any]) -> list[str]:
    return [t.get("name") or t.get("function", {}).get("name") for t in body.get("tools", [])]


def test_anthropic_the_message_is_the_result_of_a_box_call_and_box_is_declared(vendors):
    s = session_with_a_host_message("ant/m")
    host = s.cards[-1]
    vendors.enqueue(anthropic_reply("Noted."))
    s.send("go on")
    body = vendors.json_bodies()[-1]
    assert tool_names(body)[-1] == "box"
    assert BOX_SECTION in json.dumps(body["system"])
    call_id = f"toolu_box_{host.id}"
    assert body["messages"][1] == {
        "role": "assistant",
        "content": [
            {"type": "text", "text": "Hi."},
            {"type": "tool_use", "id": call_id, "name": "box", "input": {}},
        ],
    }
    results = body["messages"][2]["content"]
    assert results[0] == {
        "type": "tool_result",
        "tool_use_id": call_id,
        "content": host.text,
        "is_error": False,
    }
    assert {k: v for k, v in results[1].items() if k != "cache_control"} == {"type": "text", "text": "go on"}
    assert "<system-reminder>" not in json.dumps(body["messages"])


def test_chat_completions_the_message_is_a_tool_message_after_the_engines_call(vendors):
    s = session_with_a_host_message("chat/m")
    host = s.cards[-1]
    vendors.enqueue(chat_reply("Noted."))
    s.send("go on")
    body = vendors.json_bodies()[-1]
    assert tool_names(body)[-1] == "box"
    call_id = f"toolu_box_{host.id}"
    assistant = next(m for m in body["messages"] if m["role"] == "assistant")
    assert (
        assistant["tool_calls"][0]["id"] == call_id
        and assistant["tool_calls"][0]["function"]["name"] == "box"
    )
    tool = next(m for m in body["messages"] if m["role"] == "tool")
    assert tool["tool_call_id"] == call_id and HOSTED in json.dumps(tool["content"])


def test_responses_the_message_is_a_function_call_output(vendors):
    s = session_with_a_host_message("resp/m")
    host = s.cards[-1]
    vendors.enqueue(responses_reply("Noted."))
    s.send("go on")
    body = vendors.json_bodies()[-1]
    assert tool_names(body)[-1] == "box"
    call_id = f"toolu_box_{host.id}"
    call = next(i for i in body["input"] if i.get("type") == "function_call")
    assert call["call_id"] == call_id and call["name"] == "box"
    output = next(i for i in body["input"] if i.get("type") == "function_call_output")
    assert output["call_id"] == call_id and HOSTED in json.dumps(output["output"])


def test_a_box_call_the_model_makes_is_answered_harmlessly(vendors):
    s = mw.Session.new(model="ant/m", host_container="box_tool_result")
    vendors.enqueue(anthropic_reply(anthropic_tool_use("box", {})))
    vendors.enqueue(anthropic_reply("Fine."))
    run = s.send("hello")
    assert run.state == "done", run.error
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert call.status == "done" and call.result.startswith(
        "`box` only carries the host application's messages"
    )
    assert s.cards[-1].text == "Fine."


def test_switching_the_container_replays_earlier_host_messages_and_warns_of_the_cache(vendors):
    s = session_with_a_host_message("ant/m")
    vendors.enqueue(anthropic_reply("One."))
    s.send("first")
    assert "tool_use" in json.dumps(vendors.json_bodies()[-1]["messages"])
    said = describe_change(s.settings, s.settings.model_copy(update={"host_container": "user_message"}))
    s.configure(host_container="user_message")
    s.accept_tool_change()  # the prompt cache is warm: the tool lock would keep the container until it cools
    vendors.enqueue(anthropic_reply("Two."))
    s.send("second")
    body = vendors.json_bodies()[-1]
    assert json.dumps(f"<system-reminder>\n{s.cards[2].text}\n</system-reminder>") in json.dumps(
        body["messages"]
    )
    assert "box" not in tool_names(body) and "tool_use" not in json.dumps(body["messages"])
    assert said.endswith(
        "Every earlier host message goes in the new container from the next request on, so the prompt cache starts over."
    )


def test_a_host_message_before_any_other_message_goes_as_a_user_message(vendors, workspace):
    folder = workspace / ".mewrk" / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "start.yaml").write_text(f"event: session_start\ncommand: echo {HOSTED}\n")
    mw.trust(workspace)
    s = mw.Session.new(model="ant/m", host_container="box_tool_result")
    vendors.enqueue(anthropic_reply("Ok."))
    s.send("hi")
    first = vendors.json_bodies()[-1]["messages"][0]
    assert first["role"] == "user" and HOSTED in json.dumps(first["content"])
