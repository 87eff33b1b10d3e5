"""The words a person reads: card kinds in words, plurals right, undo notices, no requirement codes."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter import commands, magics
from mewrk_jupyter.cards.words import LABELS, NOUNS, cards_of, count, count_kind, label, noun

ROOT = Path(__file__).resolve().parents[2]
CODE = re.compile(r"\b[TADNSRCP]\d{1,2}\b")


def test_python_labels_are_the_widgets_labels():
    source = (ROOT / "js" / "src" / "card.ts").read_text()
    block = source[
        source.index("export const LABELS") : source.index("};", source.index("export const LABELS"))
    ]
    in_ts = dict(re.findall(r'(\w+): "([^"]+)"', block))
    assert in_ts == LABELS
    assert set(NOUNS) == set(LABELS)


def test_kinds_in_words_with_plurals_right():
    assert (label("model_reply"), label("user_input")) == ("Model", "You")
    assert (noun("model_reply"), noun("model_reply", 2)) == ("reply", "replies")
    assert (count(1, "message"), count(2, "message"), count(0, "message")) == (
        "1 message",
        "2 messages",
        "0 messages",
    )
    assert count(1_200, "token") == "1,200 tokens"
    assert count_kind(1, "tool_call") == "1 tool call" and count_kind(3, "thinking") == "3 thinking blocks"
    assert cards_of(["system_prompt"]) == "system prompt"
    assert cards_of(["user_input", "user_input"]) == "2 messages"
    assert cards_of(["user_input", "model_reply"]) == "2 cards"


def test_undo_and_redo_say_what_they_did_in_words(workspace):
    s = mw.Session.new()
    prompt = s.insert(mw.SystemPrompt(text="Be brief."))
    s.delete(prompt.id)
    assert s.undo() == "Undid: deleted system prompt"
    assert s.redo() == "Redid: deleted system prompt"
    assert s.undo() == "Undid: deleted system prompt"
    assert s.undo() == "Undid: inserted system prompt"
    s.send("hello")
    s.edit(s.cards[-1].id, text="An answer I prefer.")
    assert s.undo() == "Undid: edited reply"
    s.delete(*[c.id for c in s.cards])
    assert s.undo() == "Undid: deleted 2 cards"
    first = s.insert(mw.UserInput(text="one"))
    second = s.insert(mw.UserInput(text="two"))
    s.delete(first.id, second.id)
    assert s.undo() == "Undid: deleted 2 messages"


def test_refusals_name_card_kinds_in_words(workspace):
    s = mw.Session.new()
    s.send("hello")
    with pytest.raises(mw.InvalidInput) as refused:
        s.edit(s.cards[-1].id, colour="red")
    message = str(refused.value)
    assert message.startswith("A reply has no editable field 'colour'") and "model_reply" not in message


def test_help_texts_carry_no_requirement_codes():
    assert not CODE.search(magics.help_markdown())
    for command in commands.COMMANDS.values():
        assert not CODE.search(command.summary), command.name
    assert not CODE.search(magics.MewrkMagics.mewrk.__doc__ or "")
