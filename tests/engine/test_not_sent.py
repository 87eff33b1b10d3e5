"""A signed thinking block that a change above it made unsendable says so, by the rule assembly applies."""

from __future__ import annotations

import mewrk_jupyter as mw
from mewrk_jupyter.engine.assembly.assemble import BROKEN_SIGNATURE
from mewrk_jupyter.engine.render import card_markdown, timeline_markdown


def signed_parts(entry) -> list[dict]:
    """The thinking parts of a request that went with their signature."""
    parts = [p for m in entry.request["messages"] for p in m["parts"] if p["type"] == "thinking"]
    return [p for p in parts if p.get("signature")]


def test_an_edit_above_a_signed_block_is_reported_and_undo_clears_the_report(workspace):
    s = mw.Session.new(model="offline/thinker")
    s.send("hello")
    question, thinking, _reply = s.cards
    assert thinking.is_signed and s.not_sent() == {}
    s.edit(question.id, text="hello there")
    assert s.not_sent() == {thinking.id: BROKEN_SIGNATURE}
    s.send()
    assert signed_parts(s.history[-1]) == []  # the report says what assembly did
    later = s.cards[3]  # the continue's own thinking, signed after the edited question
    assert later.kind == "thinking" and s.not_sent() == {thinking.id: BROKEN_SIGNATURE}
    s.undo()  # the edit above the first block is undone; the continue's cards stay (T9)
    assert s.not_sent() == {later.id: BROKEN_SIGNATURE}  # now the later block's prefix changed
    s.send()
    assert [p["signature"] for p in signed_parts(s.history[-1])][0] == thinking.signature


def test_undo_alone_clears_the_report(workspace):
    s = mw.Session.new(model="offline/thinker")
    s.send("hello")
    question, thinking, _ = s.cards
    s.edit(question.id, text="hello there")
    assert s.not_sent() == {thinking.id: BROKEN_SIGNATURE}
    s.undo()
    assert s.not_sent() == {}


def test_a_change_below_or_on_the_block_keeps_it_sent(workspace):
    s = mw.Session.new(model="offline/thinker")
    s.send("hello")
    _question, thinking, reply = s.cards
    s.edit(reply.id, text="an edited answer")
    s.edit(thinking.id, text="what the person would rather read")  # the signed original still goes
    s.insert(mw.UserInput(text="below"), after=reply.id)
    assert s.not_sent() == {}


def test_a_new_card_above_and_a_deleted_one_count_as_changes_too(workspace):
    s = mw.Session.new(model="offline/thinker")
    s.send("hello")
    question, thinking, _ = s.cards
    s.insert(mw.SystemPrompt(text="Be brief."), before=question.id)
    assert set(s.not_sent()) == {thinking.id}
    s.undo()
    assert s.not_sent() == {}


def test_the_markdown_views_say_it(workspace):
    s = mw.Session.new(model="offline/thinker")
    s.send("hello")
    question, thinking, _ = s.cards
    assert "not sent" not in timeline_markdown(s)
    s.edit(question.id, text="hello there")
    note = f"not sent: {BROKEN_SIGNATURE}"
    assert note in card_markdown(s.card(thinking.id), s.not_sent().get(thinking.id))
    assert note in timeline_markdown(s)
    assert f"Not sent: {BROKEN_SIGNATURE}" in s.cards._repr_html_()
