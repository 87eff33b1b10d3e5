"""The history's readable summary (T17): numbers per session, a few lines per request, what changed, and
signed thinking read as it was sent — the one summariser behind the magic, the repr and the History panel."""

from __future__ import annotations

import json

import mewrk_jupyter as mw
from mewrk_jupyter.cards.words import count
from mewrk_jupyter.engine.history_summary import (
    first_line,
    message_changes,
    summarise,
    summarise_history,
)
from mewrk_jupyter.engine.views import HistoryEntry
from mewrk_jupyter.providers import anthropic, openai_chat, openai_responses
from mewrk_jupyter.providers.base import (
    Message,
    ModelInfo,
    ModelRequest,
    TextPart,
    ThinkingPart,
    ToolResultPart,
    ToolSpec,
    ToolUsePart,
)
from mewrk_jupyter.providers.record import SentItem
from mewrk_jupyter.providers.sent import read_request


def entry(number: int, request: dict, protocol: str = "offline", **fields) -> HistoryEntry:
    base = dict(id=100 + number, number=number, run_id=None, model="offline/echo", protocol=protocol)
    base.update(
        started_at=1_700_000_000.0, ended_at=1_700_000_001.5, request=request, response=None, error=None
    )
    base.update(fields)
    return HistoryEntry(**base)


def test_requests_are_numbered_from_one_in_each_session(workspace):
    other = mw.Session.new()
    other.send("elsewhere")
    s = mw.Session.new()
    s.send("one")
    s.send("two")
    assert [h.number for h in other.history] == [1]
    assert [h.number for h in s.history] == [1, 2]
    assert [h.id for h in s.history] == [2, 3]  # the store's ids still run across sessions
    assert s.history_entry(s.history[1].id).number == 2
    text = s.history._repr_markdown_()
    assert "**Request 1**" in text and "**Request 2**" in text and "Request 3" not in text


def test_a_request_reads_in_a_few_lines_with_the_tools_by_name_only(workspace):
    s = mw.Session.new()
    for question in ("one", "two", "three"):
        s.send(question)
    text = s.history._repr_markdown_()
    assert len(text.splitlines()) < 90  # three requests, a few lines each — not hundreds
    assert "tools: ls, read, grep, find, write, edit, bash" in text
    assert "input_schema" not in text and "List a folder" not in text  # never the schemas
    third = summarise_history(s.history)[2]
    assert third.title == "Request 3"
    assert third.sizes.startswith("5 messages · ")
    assert f"{s.history[2].response['usage']['input_tokens']} tokens in" in third.sizes  # the vendor's count
    assert "≈" not in third.sizes.split("system prefix")[0]  # an exact count carries no ≈
    assert "system prefix ≈" in third.sizes
    assert third.messages[0] == "You: one" and third.messages[-1] == "You: three"
    assert third.received[-1] == "Ended: the model finished"
    assert "`%mewrk history N` shows request N in full" in text


def test_what_changed_since_the_previous_request_is_said_in_words(workspace):
    s = mw.Session.new()
    s.send("first question")
    s.edit(s.cards[0].id, text="first question, edited")
    s.delete(s.cards[1].id)
    s.send("second")
    first, second = summarise_history(s.history)
    assert first.changes == ["The first request of this session."]
    assert second.changes == [
        "Since request 1: edited You “first question” → “first question, edited”; added You “second”."
    ]
    s.send()  # continue: only the reply was added
    third = summarise_history(s.history)[2]
    assert third.changes[0].startswith("Since request 2: added Model “You said: “first question, edited")
    assert "; " not in third.changes[0]  # one clause: nothing was edited or removed


def test_message_changes_name_added_edited_and_removed_items():
    before = [SentItem("You", "hello"), SentItem("Model", "line one\nline two"), SentItem("Thinking", "t")]
    after = [SentItem("You", "hello"), SentItem("Model", "line one\nline 2"), SentItem("You", "more")]
    assert message_changes(before, after) == [
        "edited Model “line two” → “line 2”",
        "removed Thinking “t”",
        "added You “more”",
    ]
    assert message_changes(before, before) == []


def test_the_system_prefix_tools_and_model_changes_are_reported():
    one = entry(1, {"system": ["a" * 400], "messages": [], "tools": [{"name": "ls"}, {"name": "grep"}]})
    two = entry(
        2,
        {"system": ["a" * 800], "messages": [], "tools": [{"name": "ls"}, {"name": "bash"}]},
        model="offline/thinker",
    )
    [line] = summarise(two, one).changes
    assert line == (
        "Since request 1: the model went from offline/echo to offline/thinker; "
        "the system prefix changed (≈100 → ≈200 tokens); tools added: bash; tools no longer offered: grep."
    )
    same = entry(3, one.request)
    assert summarise(same, one).changes == ["Since request 1: nothing changed."]


def test_an_edited_signed_thinking_block_reads_as_it_was_sent(workspace):
    s = mw.Session.new(model="offline/thinker")
    s.send("think: plan it\nhello")
    thinking = s.cards[1]
    s.edit(thinking.id, text="an edited plan")
    s.send("second")
    part = s.history[1].request["messages"][1]["parts"][0]
    assert (part["text"], part["signed_text"]) == ("an edited plan", "plan it")  # the record is untouched
    second = summarise_history(s.history)[1]
    assert "Thinking (signed): plan it" in second.messages
    assert not any("an edited plan" in line for line in second.messages + second.changes)
    assert "edited" not in second.changes[0]  # the block went out exactly as before


def test_a_signed_block_whose_prefix_changed_reads_as_the_plain_text_that_went(workspace):
    s = mw.Session.new(model="offline/thinker")
    s.send("think: plan it\nhello")
    s.edit(s.cards[1].id, text="an edited plan")
    # An edit above the block: its signature no longer holds, so it goes as plain thinking.
    s.edit(s.cards[0].id, text="think: plan it\nhello again")
    s.send()
    second = summarise_history(s.history)[1]
    assert "Thinking: an edited plan" in second.messages
    assert second.changes[0].startswith(
        "Since request 1: edited You “hello” → “hello again”; added Thinking “an edited plan”"
    )


def test_a_tool_run_is_numbered_with_the_requests_and_skipped_when_comparing(workspace):
    s = mw.Session.new()
    s.send("one")
    s.execute("ls", {"path": "."})
    s.send("two")
    one, tool, two = summarise_history(s.history)
    assert tool.title == "Request 2 · tool ls"
    assert tool.messages == ['Input: {"path": "."}'] and tool.received[0].startswith("Result: ")
    assert two.title == "Request 3" and two.changes[0].startswith("Since request 1: added ")
    assert "Tool call: ls" in " ".join(two.messages)


def test_an_error_and_an_estimated_usage_show_as_such():
    response = {"content": [], "usage": {"input_tokens": 1200, "output_tokens": 5, "estimated": True}}
    failed = entry(1, {"messages": []}, response=response, error="The vendor said no.")
    summary = summarise(failed, None)
    assert "≈1.2k tokens in · ≈5 out" in summary.sizes
    assert summary.error == "The vendor said no." and "**Error:** The vendor said no." in summary.markdown()
    assert "no answer recorded" in summarise(entry(2, {}, ended_at=None), None).meta


def test_long_message_lists_are_cut_in_the_list_but_whole_on_their_own():
    request = {
        "messages": [{"role": "user", "parts": [{"type": "text", "text": f"m{i}"}]} for i in range(20)]
    }
    summary = summarise(entry(1, request), None)
    short = summary.markdown()
    assert "m0" in short and "… 13 more …" in short and "m19" in short and "m10\n" not in short
    assert "m10\n" in summary.markdown(messages=None)
    alone = entry(1, request)._repr_markdown_()
    assert '"text": "m10"' in alone and "**Sent**" in alone  # an entry on its own shows the JSON too


def test_first_line_and_plural():
    assert first_line("  \nhello\nworld") == "hello…"
    assert first_line("x" * 100) == "x" * 79 + "…"
    assert (count(1, "message"), count(2, "message")) == ("1 message", "2 messages")


# ---- every wire protocol reads back the same ---------------------------------------------------------


def _neutral(protocol: str, signature: str) -> ModelRequest:
    return ModelRequest(
        model="m",
        system=["Be brief."],
        tools=[ToolSpec(name="ls", description="List.", input_schema={"type": "object"})],
        messages=[
            Message(role="user", parts=[TextPart(text="list it")]),
            Message(
                role="assistant",
                parts=[
                    ThinkingPart(
                        text="shown after an edit",
                        signed_text="as signed",
                        signature=signature,
                        protocol=protocol,
                    ),
                    ToolUsePart(id="c1", name="ls", input={"path": "."}),
                ],
            ),
            Message(
                role="user",
                parts=[
                    ToolResultPart(tool_use_id="c1", content="a.txt"),
                    TextPart(text="<system-reminder>\nA file changed.\n</system-reminder>"),
                ],
            ),
        ],
    )


def test_anthropic_bodies_read_back_with_the_signed_thinking():
    info = ModelInfo(name="anthropic/claude", protocol="anthropic-messages", thinking="signed")
    body = anthropic.request_body(_neutral("anthropic-messages", "sig"), info)
    sent = read_request(body, "anthropic-messages")
    assert sent.system == ["Be brief."] and sent.tools == ["ls"] and sent.messages == 3
    assert [(i.label, i.note, i.text) for i in sent.items] == [
        ("You", "", "list it"),
        ("Thinking", "signed", "as signed"),
        ("Tool call", "", 'ls {"path": "."}'),
        ("Tool result", "", "a.txt"),
        ("Host", "", "A file changed."),
    ]


def test_openai_chat_bodies_read_back():
    info = ModelInfo(name="openai/gpt", protocol="openai-chat", reasoning_content_roundtrip="always")
    body = openai_chat.request_body(_neutral("openai-chat", "sig"), info)
    sent = read_request(body, "openai-chat")
    assert sent.system == ["Be brief."] and sent.tools == ["ls"]
    labels = [(i.label, i.text) for i in sent.items]
    assert labels[0] == ("You", "list it") and ("Tool call", 'ls {"path": "."}') in labels
    assert ("Tool result", "a.txt") in labels and ("Host", "A file changed.") in labels
    assert ("Thinking", "shown after an edit") in labels  # reasoning_content goes back as the card shows it


def test_openai_responses_bodies_read_back_with_the_reasoning_item_opaque():
    blob = json.dumps({"id": "rs_1", "summary": [], "encrypted_content": "opaque"})
    info = ModelInfo(name="openai/o4", protocol="openai-responses", thinking="signed")
    body = openai_responses.request_body(_neutral("openai-responses", blob), info, "o4")
    sent = read_request(body, "openai-responses")
    assert sent.system == ["Be brief."] and sent.tools == ["ls"]
    assert [i.label for i in sent.items] == ["You", "Thinking", "Tool call", "Tool result", "Host"]
    assert sent.items[1].note == "encrypted, sent as is" and "opaque" not in sent.items[1].text
