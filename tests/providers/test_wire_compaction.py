"""Summary compaction (C6) over the real SDKs and the local wire servers: the summary call, exactly what
each request carries after the divider (and what it no longer carries), refusals that send nothing, undo,
a second compaction and the agent's `summarize_at` threshold."""

from __future__ import annotations

from typing import Any

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.assembly.cut import SUMMARY_OPENING
from mewrk_jupyter.engine.compaction.prompt import INSTRUCTION

from .vendors import write_vendor
from .wire import (
    anthropic_error,
    anthropic_reply,
    anthropic_usage,
    chat_reply,
    chat_usage,
    responses_reply,
    responses_usage,
)

SUMMARY = "## Goal\n- Plan the trip.\n\n## Next step\n- Book the train."
SECOND = "## Goal\n- Plan the trip.\n\n## Next step\n- Pack."


@pytest.fixture
def vendors(workspace, wire_server, monkeypatch):
    """Claude over Anthropic Messages and DeepSeek over Chat Completions, both with a 100k window."""
    monkeypatch.setenv("TEST_KEY", "sk-test")
    write_vendor(
        workspace,
        "anthropic",
        "anthropic-messages",
        wire_server.url,
        "  claude-test: {context_window: 100000}\n",
        "TEST_KEY",
    )
    write_vendor(
        workspace,
        "deepseek",
        "openai-chat",
        wire_server.openai_base_url,
        "  deepseek-chat: {context_window: 100000}\n",
        "TEST_KEY",
    )
    return wire_server


def texts(content: str | list[dict[str, Any]]) -> list[str]:
    """The text blocks of a message's content, as either protocol sends it."""
    if isinstance(content, str):
        return [content]
    return [block["text"] for block in content if block.get("type") in ("text", "input_text", "output_text")]


def plain(messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Messages without their cache breakpoints (placed afresh on the last user turns of each request)."""
    return [
        {**m, "content": [{k: v for k, v in b.items() if k != "cache_control"} for b in m["content"]]}
        for m in messages
    ]


def summarised(summary: str) -> str:
    return f"{SUMMARY_OPENING}\n\n<summary>\n{summary}\n</summary>"


# About 2,500 tokens of the person's words: the requests' sizes below are what a vendor would count.
NOTES = "\n\nThe notes: " + "train times and hotel prices " * 350


def claude_chat(server, s: mw.Session, sizes: list[int], notes: str = NOTES) -> None:
    """One exchange per size: the vendor counts each request at that many input tokens."""
    for i, size in enumerate(sizes):
        server.enqueue(anthropic_reply(f"Answer {i}.", usage=anthropic_usage(size, 20)))
        s.send(f"Question {i}?{notes}")


def test_anthropic_a_summary_then_the_request_carries_it_instead_of_the_cards(vendors):
    s = mw.Session.new("anthropic/claude-test")
    s.insert(mw.SystemPrompt(text="Answer briefly."))
    claude_chat(vendors, s, [3000, 6000])
    before = vendors.json_bodies()[-1]
    vendors.enqueue(anthropic_reply(SUMMARY, usage=anthropic_usage(6100, 40)))
    divider = s.compact()

    call = vendors.json_bodies()[-1]
    assert call["system"] == before["system"] and call["tools"] == before["tools"]  # the same prefix
    assert [m["role"] for m in call["messages"]] == ["user", "assistant", "user", "assistant", "user"]
    assert texts(call["messages"][-1]["content"]) == [INSTRUCTION]
    assert plain(call["messages"][:4]) == plain(before["messages"][:3]) + [
        {"role": "assistant", "content": [{"type": "text", "text": "Answer 1."}]}
    ]
    assert (divider.summary, divider.covered) == (SUMMARY, 4)
    assert 0 < divider.tokens_saved < 6100
    assert s.history[-1].response["compaction"] == "summary"

    vendors.enqueue(anthropic_reply("Booked.", usage=anthropic_usage(400, 10)))
    s.send("Next?")
    sent = vendors.json_bodies()[-1]
    assert [block["text"] for block in sent["system"]][-1] == "Answer briefly."  # still sent
    assert [(m["role"], texts(m["content"])) for m in sent["messages"]] == [
        ("user", [summarised(SUMMARY), "Next?"])
    ]
    assert "Question 0?" not in str(sent) and "Answer 1." not in str(sent)  # the cards above are not
    assert [c.kind for c in s.cards][:6] == [
        "system_prompt",
        "user_input",
        "model_reply",
        "user_input",
        "model_reply",
        "summary_divider",
    ]  # they stay on the timeline


def test_anthropic_undo_of_a_summary_sends_the_old_context_again(vendors):
    s = mw.Session.new("anthropic/claude-test")
    claude_chat(vendors, s, [3000, 6000])
    vendors.enqueue(anthropic_reply(SUMMARY, usage=anthropic_usage(6100, 40)))
    s.compact()
    assert s.undo() == "Undid: compacted the conversation"
    vendors.enqueue(anthropic_reply("Booked.", usage=anthropic_usage(6200, 10)))
    s.send("Next?")
    sent = vendors.json_bodies()[-1]["messages"]
    assert [texts(m["content"]) for m in sent] == [
        [f"Question 0?{NOTES}"],
        ["Answer 0."],
        [f"Question 1?{NOTES}"],
        ["Answer 1."],
        ["Next?"],
    ]


@pytest.mark.parametrize("sizes", [[3000], [1000, 1500, 2000]], ids=["two messages", "small context"])
def test_anthropic_too_little_is_refused_and_nothing_is_sent(vendors, sizes):
    s = mw.Session.new("anthropic/claude-test")
    claude_chat(vendors, s, sizes, notes="")
    received, cards, history = len(vendors.requests), list(s.cards), len(s.history)
    with pytest.raises(mw.NothingToCompact, match="^Nothing worth compacting: "):
        s.compact()
    assert (len(vendors.requests), list(s.cards), len(s.history)) == (received, cards, history)


def test_chat_completions_a_second_compaction_summarises_from_the_last_divider_on(vendors):
    s = mw.Session.new("deepseek/deepseek-chat")
    for i, size in enumerate([3000, 6000]):
        vendors.enqueue(chat_reply(f"Answer {i}.", usage=chat_usage(size, 20)))
        s.send(f"Question {i}?{NOTES}")
    vendors.enqueue(chat_reply(SUMMARY, usage=chat_usage(6100, 40)))
    s.compact()
    for i, size in enumerate([3000, 6000], start=2):
        vendors.enqueue(chat_reply(f"Answer {i}.", usage=chat_usage(size, 20)))
        s.send(f"Question {i}?{NOTES}")
    assert [(m["role"], texts(m["content"])) for m in vendors.json_bodies()[-1]["messages"][1:]] == [
        ("user", [f"{summarised(SUMMARY)}\n\nQuestion 2?{NOTES}"]),  # a message's texts join into one
        ("assistant", ["Answer 2."]),
        ("user", [f"Question 3?{NOTES}"]),
    ]
    vendors.enqueue(chat_reply(SECOND, usage=chat_usage(6100, 40)))
    second = s.compact()
    call = vendors.json_bodies()[-1]["messages"]
    users = [texts(m["content"])[0] for m in call if m["role"] == "user"]
    assert users == [
        f"{summarised(SUMMARY)}\n\nQuestion 2?{NOTES}",  # the first summary, then what followed it
        f"Question 3?{NOTES}",
        INSTRUCTION,
    ]
    assert "Question 0?" not in str(call)
    assert second.covered == 8

    vendors.enqueue(chat_reply("Packed.", usage=chat_usage(300, 10)))
    s.send("Done?")
    sent = vendors.json_bodies()[-1]["messages"]
    assert [(m["role"], texts(m["content"])) for m in sent if m["role"] != "system"] == [
        ("user", [f"{summarised(SECOND)}\n\nDone?"])
    ]


def test_anthropic_at_summarize_at_the_turn_compacts_before_its_request(vendors, workspace):
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True)
    (agents / "main.yaml").write_text("model: anthropic/claude-test\nsummarize_at: 50\n")
    mw.trust(workspace)
    s = mw.Session.new()
    claude_chat(
        vendors, s, [3000, 60_000], notes=""
    )  # 3k is under 50 % of the window: no summary before the second
    assert len(vendors.requests) == 2
    vendors.enqueue(
        anthropic_reply(SUMMARY, usage=anthropic_usage(60_100, 40)),
        anthropic_reply("Booked.", usage=anthropic_usage(500, 10)),
    )
    run = s.send("Next?")  # the last request (60k) reached 50 %: the summary comes first
    summary_call, request = vendors.json_bodies()[-2:]
    assert texts(summary_call["messages"][-1]["content"]) == ["Next?", INSTRUCTION]
    assert [(m["role"], texts(m["content"])) for m in request["messages"]] == [
        ("user", [summarised(SUMMARY)])
    ]
    assert [c.kind for c in s.cards][-3:] == ["user_input", "summary_divider", "model_reply"]
    assert s.history[-2].run_id == run.id
    assert s.cards[-2].tokens_saved is not None  # the numbers at once, inside the turn
    vendors.enqueue(anthropic_reply("Fine.", usage=anthropic_usage(600, 10)))
    s.send("And?")  # 500 tokens now: no second summary
    assert len(vendors.requests) == 5


def test_openai_responses_the_request_after_a_summary_carries_it_and_not_the_cards(vendors, workspace):
    write_vendor(
        workspace,
        "openai",
        "openai-responses",
        vendors.openai_base_url,
        "  gpt-test: {context_window: 100000}\n",
        "TEST_KEY",
    )
    s = mw.Session.new("openai/gpt-test")
    for i, size in enumerate([3000, 6000]):
        vendors.enqueue(responses_reply(f"Answer {i}.", usage=responses_usage(size, 20)))
        s.send(f"Question {i}?{NOTES}")
    vendors.enqueue(responses_reply(SUMMARY, usage=responses_usage(6100, 40)))
    divider = s.compact()
    call = vendors.json_bodies()[-1]
    assert [texts(item["content"]) for item in call["input"] if item.get("role") == "user"][-1] == [
        INSTRUCTION
    ]
    assert divider.tokens_saved > 0

    vendors.enqueue(responses_reply("Booked.", usage=responses_usage(400, 10)))
    s.send("Next?")
    sent = vendors.json_bodies()[-1]
    assert [(item.get("role"), texts(item["content"])) for item in sent["input"]] == [
        ("user", [summarised(SUMMARY), "Next?"])
    ]


def test_anthropic_a_failed_summary_call_places_no_divider_and_says_so(vendors):
    s = mw.Session.new("anthropic/claude-test")
    claude_chat(vendors, s, [3000, 6000])
    cards = list(s.cards)
    vendors.enqueue(*[anthropic_error(500, "boom", retry_after_ms=10) for _ in range(3)])
    with pytest.raises(mw.ProviderError) as err:
        s.compact()
    assert str(err.value).startswith("The summary could not be written, so nothing was compacted: ")
    assert "HTTP 500: boom" in str(err.value)
    assert list(s.cards) == cards
    assert s.history[-1].error and s.history[-1].response["compaction"] == "summary"
