"""Compaction with instructions (C7): the summary request carries what the person asked for (and what a
`before_compact` hook adds), the divider says instructions were given, the summary prompt is the prompt
profile's to change, and a summary is read and edited from its divider."""

from __future__ import annotations

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.compaction.prompt import INSTRUCTION
from mewrk_jupyter.providers.offline_summary import SUMMARY_REQUEST
from mewrk_jupyter.widget.commands import run_command

LONG = "long: 900"


def chat(s: mw.Session, n: int = 5) -> None:
    for i in range(n):
        s.send(f"question {i}\n{LONG}")


def question_of(s: mw.Session) -> str:
    """The text the summary call asked at its end."""
    call = s.history[-1]
    assert call.response["compaction"] == "summary"
    return [p["text"] for p in call.request["messages"][-1]["parts"] if p["type"] == "text"][-1]


def test_the_summary_request_carries_the_persons_instructions_and_the_divider_says_so(workspace):
    s = mw.Session.new("offline/echo")
    chat(s)
    divider = s.compact(instructions="keep the decisions about the schema")
    asked = question_of(s)
    assert asked.startswith(INSTRUCTION)
    assert asked.endswith("The person's instructions for this summary: keep the decisions about the schema")
    assert divider.instructions == "keep the decisions about the schema"
    assert divider.title_line().endswith("· with instructions")


def test_slash_compact_takes_instructions(workspace):
    s = mw.Session.new("offline/echo")
    chat(s)
    said = run_command(s, "/compact keep the file names").message
    assert said.startswith("Compacted:") and said.endswith("with instructions.")
    assert s.cards[-1].instructions == "keep the file names"


def test_blank_instructions_are_none_and_bad_ones_are_refused(workspace):
    s = mw.Session.new("offline/echo")
    chat(s)
    with pytest.raises(mw.InvalidInput, match="instructions are text"):
        s.compact(instructions=3)
    divider = s.compact(instructions="   ")
    assert divider.instructions is None and "instructions" not in question_of(s)


def test_a_before_compact_hook_adds_instructions(workspace):
    hooks = workspace / ".mewrk" / "hooks"
    hooks.mkdir(parents=True)
    (hooks / "keep.yaml").write_text(
        "event: before_compact\ncommand: |\n  echo 'Keep every ticket number (BUG-…) word for word.'\n"
    )
    mw.trust(workspace)
    s = mw.Session.new("offline/echo")
    chat(s)
    divider = s.compact(instructions="short")
    asked = question_of(s)
    assert "The person's instructions for this summary: short" in asked
    assert asked.endswith("Keep every ticket number (BUG-…) word for word.")
    assert divider.instructions == "short\nKeep every ticket number (BUG-…) word for word."


def test_the_summary_prompt_is_the_prompt_profiles(workspace):
    prompts = workspace / ".mewrk" / "prompts"
    prompts.mkdir(parents=True)
    (prompts / "default.yaml").write_text("summary:\n  instruction: Summarise in three bullet points.\n")
    s = mw.Session.new("offline/echo")
    chat(s)
    s.compact()
    asked = question_of(s)
    assert asked == f"{SUMMARY_REQUEST}\nSummarise in three bullet points."


def test_a_summary_is_read_and_edited_from_its_divider(workspace):
    s = mw.Session.new("offline/echo")
    chat(s)
    divider = s.compact()
    s.edit(divider.id, summary="## Goal\n- the person wants a parser")
    s.send("go on")
    sent = s.history[-1].request["messages"][0]["parts"][0]["text"]
    assert "the person wants a parser" in sent and "question 0" not in sent
    s.undo()
    assert s.card(divider.id).summary.startswith("## Goal\n- question 0")
    with pytest.raises(mw.InvalidInput, match="no editable field 'covered'"):
        s.edit(divider.id, covered=3)


def test_compact_now_carries_instructions_to_the_handoff_and_to_a_native_compaction(workspace):
    s = mw.Session.new("offline/echo", title="plan")
    s.configure(compaction="handoff")
    s.send("hello")
    s.compact_now(instructions="keep the open tickets")
    call = s.history[-1]
    assert call.response["compaction"] == "handoff"
    asked = [p["text"] for p in call.request["messages"][-1]["parts"] if p["type"] == "text"][-1]
    assert asked.endswith("The person's instructions for these documents: keep the open tickets")
    native = mw.Session.new("offline/echo")
    native.configure(compaction="native")
    native.send("hello")
    h = native.compact_now(instructions="keep it short")
    assert native.history[-1].request["instructions"] == "keep it short"
    card = h.cards[-1]
    assert card.kind == "native_compaction" and card.text.endswith("· with instructions")
