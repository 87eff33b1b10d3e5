"""Workflows against the local wire server (X8): the steps' agents talk to a vendor through the real
Anthropic SDK, one request per step in order, each carrying its agent's system prompt and its prompt with
the input and the step before's reply filled in; the starting conversation's model (offline) reads the
result as a `<task-notification>`; the key reaches no card, no result and no step's timeline."""

from __future__ import annotations

import json

import mewrk_jupyter as mw

from ..conftest import wait_for
from .vendors import write_vendor
from .wire import anthropic_reply

WORKFLOW = """\
steps:
  - name: review
    agent: reviewer
    prompt: Review {input}.
  - name: fix
    agent: reviewer
    prompt: "Fix {input} as the review says: {review}"
"""


def test_each_step_is_one_request_to_its_agents_vendor_with_the_earlier_result_filled_in(
    workspace, wire_server, monkeypatch
):
    home = workspace / ".mewrk"
    (home / "agents").mkdir(parents=True)
    (home / "workflows").mkdir()
    (home / "agents" / "main.yaml").write_text("model: offline/echo\ntools: [read, workflow, task_wait]\n")
    (home / "agents" / "reviewer.yaml").write_text(
        "model: ant/m\ntools: [read]\nsystem_prompt: You review.\n"
    )
    (home / "workflows" / "review.yaml").write_text(WORKFLOW)
    monkeypatch.setenv("FLOW_KEY", "sk-flow-test-0000")
    write_vendor(
        workspace, "ant", "anthropic-messages", wire_server.url, "  m: {context_window: 100000}\n", "FLOW_KEY"
    )
    wire_server.enqueue(anthropic_reply("Two bugs in the lexer."), anthropic_reply("Fixed both."))
    s = mw.Session.new()
    s.send("call: workflow " + json.dumps({"name": "review", "input": "the lexer"}))
    card = wait_for(
        lambda: (c := next(c for c in s.cards if c.kind == "workflow")).state == "completed" and c
    )
    first, second = wire_server.json_bodies("anthropic.messages")
    assert [block["text"] for block in first["system"]][-1] == "You review."
    assert first["messages"][-1]["content"][-1]["text"] == "Review the lexer."
    assert (
        second["messages"][-1]["content"][-1]["text"]
        == "Fix the lexer as the review says: Two bugs in the lexer."
    )
    assert [r.header("authorization") for r in wire_server.requests] == ["Bearer sk-flow-test-0000"] * 2
    assert card.result == "Fixed both." and card.steps[0].result == "Two bugs in the lexer."
    s.send("and?")
    note = next(c for c in s.cards if c.kind == "host_message" and c.topic == "task_notification")
    assert "Fixed both." in note.text
    for session in (s, card.step_session("review"), card.step_session("fix")):
        assert "sk-flow-test" not in json.dumps([c.model_dump(mode="json") for c in session.cards])
