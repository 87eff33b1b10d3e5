"""Handoff into a new session (C3, C5) over the real Anthropic SDK and the local wire server: the armed
request (the `handoff` tool appended, the notice), the handover session's first request (the system
prompt, the documents, the start message and nothing of the old history), and compact now's call."""

from __future__ import annotations

from typing import Any

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.background.tasks import running_background_work
from mewrk_jupyter.engine.compaction.handoff import ALONE, ARMED_NOTICE, NO_DOCUMENTS, START_MESSAGE
from mewrk_jupyter.engine.compaction.now import INSTRUCTION

from ..conftest import wait_for
from .vendors import write_vendor
from .wire import (
    anthropic_compaction,
    anthropic_compaction_reply,
    anthropic_reply,
    anthropic_tool_use,
    anthropic_usage,
)

DOCS = "# Handoff\n\n## Goal\n- Plan the trip.\n\n## Next step\n- Book the train."


@pytest.fixture
def claude(workspace, wire_server, monkeypatch):
    """Claude over Anthropic Messages with a 100k window."""
    monkeypatch.setenv("TEST_KEY", "sk-test")
    write_vendor(
        workspace,
        "anthropic",
        "anthropic-messages",
        wire_server.url,
        "  claude-test: {context_window: 100000}\n",
        "TEST_KEY",
    )
    return wire_server


def texts(content: str | list[dict[str, Any]]) -> list[str]:
    """The text blocks of a message's content."""
    if isinstance(content, str):
        return [content]
    return [block["text"] for block in content if block.get("type") == "text"]


def system_texts(body: dict[str, Any]) -> list[str]:
    return [block["text"] for block in body["system"]]


def tool_names(body: dict[str, Any]) -> list[str]:
    return [tool["name"] for tool in body.get("tools", [])]


def plain(tools: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Tools without their cache breakpoint (placed afresh on the last tool of each request)."""
    return [{k: v for k, v in tool.items() if k != "cache_control"} for tool in tools]


def chat(server, s: mw.Session, sizes: list[int]) -> None:
    """One exchange per size: the vendor counts each request at that many input tokens."""
    for i, size in enumerate(sizes):
        server.enqueue(anthropic_reply(f"Answer {i}.", usage=anthropic_usage(size, 20)))
        s.send(f"Question {i}?")


def test_at_the_threshold_the_model_is_asked_once_and_its_handoff_starts_the_new_session(claude):
    s = mw.Session.new("anthropic/claude-test", title="trip")
    s.insert(mw.SystemPrompt(text="Answer briefly."))
    chat(claude, s, [30_000, 85_000])  # the second request's check read 30k: under 80 %, nothing
    before = claude.json_bodies()[-1]
    assert "handoff" not in tool_names(before) and len(claude.requests) == 2

    claude.enqueue(
        anthropic_reply(
            "Writing the documents.",
            anthropic_tool_use("handoff", {"documents": DOCS}),
            usage=anthropic_usage(86_000, 200),
        ),
        anthropic_reply("Picking up from the documents.", usage=anthropic_usage(900, 20)),
    )
    s.send("Question 2?")  # the last request reached 85k of 100k: armed before this one
    armed = claude.json_bodies()[2]
    assert tool_names(armed) == [*tool_names(before), "handoff"]  # appended after the agent's tools
    assert plain(armed["tools"][:-1]) == plain(before["tools"])
    assert texts(armed["messages"][-1]["content"]) == [
        "Question 2?",
        f"<system-reminder>\n{ARMED_NOTICE}\n</system-reminder>",
    ]
    assert [c.kind for c in s.cards][-5:] == [
        "user_input",
        "host_message",
        "model_reply",
        "tool_call",
        "handoff",
    ]
    call, card = s.cards[-2:]
    assert card.text == DOCS and call.result.startswith("Handed over: the conversation continues")
    assert s.state == "idle"  # the original stays, stopped at its handoff card

    (handover_id,) = s.handovers
    h = mw.Session.open(handover_id)
    assert (h.title, h.handover_of, h.settings) == ("trip-handover-1", s.id, s.settings)
    if h.last_run is not None:  # None: made again after its run ended
        h.last_run.wait()
    wait_for(lambda: len(claude.requests) == 4 and h.state == "idle")
    first = claude.json_bodies()[3]
    # The handover's first request: the same system prompt and tools, the documents and the start
    # message, and nothing of the old history.
    assert system_texts(first) == system_texts(before)
    assert first["tools"] == before["tools"]
    assert [(m["role"], texts(m["content"])) for m in first["messages"]] == [("user", [DOCS, START_MESSAGE])]
    assert "Question 0?" not in str(first) and "Answer 1." not in str(first)
    assert [c.kind for c in h.cards] == ["system_prompt", "handoff", "user_input", "model_reply"]
    assert h.cards[-1].text == "Picking up from the documents."

    claude.enqueue(anthropic_reply("Still here.", usage=anthropic_usage(87_000, 20)))
    s.send("Question 3?")  # the original can still be used; it is not asked a second time
    again = claude.json_bodies()[-1]
    assert tool_names(again)[-1] == "handoff"  # the tool stays once appended
    assert sum("system-reminder" in str(m) for m in again["messages"]) == 1


def test_compact_now_asks_for_the_documents_and_opens_the_handover_waiting(claude):
    s = mw.Session.new("anthropic/claude-test", title="trip")
    s.insert(mw.SystemPrompt(text="Answer briefly."))
    chat(claude, s, [3_000, 6_000])
    before = claude.json_bodies()[-1]
    claude.enqueue(anthropic_reply(DOCS, usage=anthropic_usage(6_100, 80)))
    h = s.compact_now()

    ask = claude.json_bodies()[-1]
    assert system_texts(ask) == system_texts(before) and ask["tools"] == before["tools"]
    assert [m["role"] for m in ask["messages"]] == ["user", "assistant", "user", "assistant", "user"]
    assert texts(ask["messages"][-1]["content"]) == [INSTRUCTION]
    assert s.history[-1].response["compaction"] == "handoff"
    assert [c.kind for c in s.cards][-1] == "handoff" and s.cards[-1].text == DOCS

    assert (h.title, h.handover_of, s.handovers) == ("trip-handover-1", s.id, [h.id])
    assert [c.kind for c in h.cards] == ["system_prompt", "handoff"]
    assert h.history == [] and h.state == "idle" and len(claude.requests) == 3  # opened, not run

    claude.enqueue(anthropic_reply("Booked.", usage=anthropic_usage(400, 10)))
    h.send("Next?")
    sent = claude.json_bodies()[-1]
    assert system_texts(sent) == system_texts(before)
    assert [(m["role"], texts(m["content"])) for m in sent["messages"]] == [("user", [DOCS, "Next?"])]
    assert "Question 0?" not in str(sent)


def results(body: dict[str, Any]) -> dict[str, tuple[Any, bool]]:
    """The tool results of a request's last message, by tool_use id: content and whether it is an error."""
    return {
        block["tool_use_id"]: (block["content"], block.get("is_error", False))
        for block in body["messages"][-1]["content"]
        if block.get("type") == "tool_result"
    }


def armed_session(claude) -> mw.Session:
    """A conversation past 80 % of the window: its next request carries the `handoff` tool."""
    s = mw.Session.new("anthropic/claude-test", title="trip")
    chat(claude, s, [30_000, 85_000])
    return s


def result_text(content: Any) -> str:
    return content if isinstance(content, str) else "".join(b["text"] for b in content)


def test_a_handoff_beside_other_calls_is_refused_and_the_model_reads_why(claude):
    s = armed_session(claude)
    claude.enqueue(
        anthropic_reply(
            anthropic_tool_use("ls", {"path": "."}, id="toolu_ls"),
            anthropic_tool_use("handoff", {"documents": DOCS}, id="toolu_handoff"),
            usage=anthropic_usage(86_000, 200),
        ),
        anthropic_reply("I will hand off on its own.", usage=anthropic_usage(86_500, 20)),
    )
    s.send("Question 2?")
    got = results(claude.json_bodies()[-1])
    assert result_text(got["toolu_handoff"][0]) == ALONE and got["toolu_handoff"][1] is True
    assert got["toolu_ls"][1] is False  # the other call ran
    assert s.handovers == [] and not any(c.kind == "handoff" for c in s.cards)


def test_a_handoff_with_empty_documents_is_refused_with_a_sentence_the_model_reads(claude):
    s = armed_session(claude)
    claude.enqueue(
        anthropic_reply(anthropic_tool_use("handoff", {"documents": "   "}, id="toolu_h")),
        anthropic_reply("Understood.", usage=anthropic_usage(86_500, 20)),
    )
    s.send("Question 2?")
    content, is_error = results(claude.json_bodies()[-1])["toolu_h"]
    assert (result_text(content), is_error) == (NO_DOCUMENTS, True)
    assert s.handovers == [] and s.state == "idle"


def test_a_handoff_while_a_background_command_runs_is_refused_and_the_model_reads_why(claude, workspace):
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True)
    (agents / "main.yaml").write_text("model: anthropic/claude-test\ntools: [ls, read, bash, task_wait]\n")
    mw.trust(workspace)  # an agent whose bash may run a command in the background
    s = armed_session(claude)
    command = {"command": "sleep 30", "background": True}
    claude.enqueue(
        anthropic_reply(anthropic_tool_use("bash", command, id="toolu_bg"), usage=anthropic_usage(85_500, 20))
    )
    s.send("Question 2?")  # bash asks first, in the background as in the foreground
    assert s.state == "awaiting_approval"
    claude.enqueue(
        anthropic_reply(anthropic_tool_use("handoff", {"documents": DOCS}, id="toolu_h")),
        anthropic_reply("I will wait for the command.", usage=anthropic_usage(86_500, 20)),
    )
    s.approve()  # the command starts in the background; the model hands off meanwhile
    try:
        wait_for(lambda: s.state == "idle" and len(claude.requests) == 5)
        [work] = running_background_work(s.id)
        assert work.startswith("command `sleep 30` (task_")
        content, is_error = results(claude.json_bodies()[-1])["toolu_h"]
        assert (result_text(content), is_error) == (
            f"Background work is still running ({work}), and a new session would leave it behind: wait for "
            "it to finish, then call `handoff` again. The handoff was not made.",
            True,
        )
        assert s.handovers == [] and not any(c.kind == "handoff" for c in s.cards)
    finally:
        assert s.stop()  # the command too
    wait_for(lambda: running_background_work(s.id) == [])


def test_native_mode_at_its_threshold_compacts_through_the_provider_and_goes_on_in_the_handover(
    claude, workspace
):
    write_vendor(
        workspace,
        "anthropic",
        "anthropic-messages",
        claude.url,
        "  claude-test: {context_window: 100000, native_compaction: true}\n",
        "TEST_KEY",
    )
    s = mw.Session.new("anthropic/claude-test", title="trip", compaction="native")
    mw.set_preferences(native_threshold=80)
    chat(claude, s, [30_000, 85_000])  # the second request's check read 30k: under 80 %, nothing
    block = anthropic_compaction("The person asked two questions.", "enc-t", signature="sig-t")
    claude.enqueue(anthropic_compaction_reply(85_100, block=block, compaction_output_tokens=30))
    claude.enqueue(anthropic_reply("Going on from the compaction.", usage=anthropic_usage(900, 20)))
    run = s.send("Question 2?")  # checked before this request: 85k of 100k reached 80 %
    assert run.state == "stopped"  # the turn goes on in the handover
    call = claude.requests[2]
    assert "compact-2026-01-12" in call.header("anthropic-beta") and "context_management" in call.json
    [hid] = s.handovers
    h = mw.Session.open(hid)
    wait_for(lambda: h.state == "idle" and len(h.history) == 1)
    assert h.title == "trip-handover-1" and [c.kind for c in h.cards] == ["native_compaction", "model_reply"]
    sent = claude.json_bodies()[-1]["messages"]
    blocks = [part for m in sent if isinstance(m["content"], list) for part in m["content"]]
    assert {
        "type": "compaction",
        "content": "The person asked two questions.",
        "encrypted_content": "enc-t",
    }.items() <= next(
        b for b in blocks if b.get("type") == "compaction"
    ).items()  # the provider's item, sent back to it
    assert "Question 2?" in str(sent)  # the person's newest message is kept


def test_a_model_without_a_declared_window_never_compacts_by_itself(claude, workspace):
    write_vendor(
        workspace,
        "anthropic",
        "anthropic-messages",
        claude.url,
        "  claude-test: {native_compaction: true}\n",  # no context_window: no share of it is known
        "TEST_KEY",
    )
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True)
    (agents / "main.yaml").write_text("model: anthropic/claude-test\nsummarize_at: 20\n")
    mw.trust(workspace)
    mw.set_preferences(handoff_threshold=20, native_threshold=20)
    for mode in ("handoff", "native"):
        s = mw.Session.new(title=mode, compaction=mode)
        chat(claude, s, [900_000, 950_000, 990_000])  # far past any threshold of any window
        bodies = claude.json_bodies()[-3:]
        assert [tool_names(body).count("handoff") for body in bodies] == [0, 0, 0]
        assert not any(
            "context_management" in body or "system-reminder" in str(body["messages"]) for body in bodies
        )
        assert [c.kind for c in s.cards] == ["user_input", "model_reply"] * 3  # no divider, no notice
        assert s.handovers == [] and all("compaction" not in h.response for h in s.history)
    assert len(claude.requests) == 6  # one request per message, nothing else
