"""T4/T6 rules as pure functions: what may be inserted and what may be edited."""

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.cards import rules


def test_only_the_five_insertable_kinds_can_be_inserted():
    for card in (
        mw.SystemPrompt(text="s"),
        mw.UserInput(text="u"),
        mw.Thinking(text="t"),
        mw.ToolCall(name="ls", params={"path": "."}, result="a"),
        mw.ModelReply(text="r"),
    ):
        rules.check_insertable(card)
    for card in (mw.HostMessage(text="h"), mw.Preview(text="p"), mw.Subagent(text="x")):
        with pytest.raises(mw.InvalidInput, match="cannot be inserted by hand"):
            rules.check_insertable(card)


def test_inserted_thinking_cannot_pretend_to_be_signed():
    with pytest.raises(mw.InvalidInput, match="signature"):
        rules.check_insertable(mw.Thinking(text="t", signature="sig"))


def test_edit_marks_the_card_edited_and_leaves_the_original():
    card = mw.ModelReply(text="old")
    new = rules.apply_edit(card, {"text": "new"})
    assert (new.text, new.edited, new.id) == ("new", True, card.id)
    assert (card.text, card.edited) == ("old", False)


@pytest.mark.parametrize(
    "card, fields, error, match",
    [
        (mw.ModelReply(text="x", complete=False), {"text": "y"}, mw.NotEditable, "still being written"),
        (mw.Thinking(text="", encrypted="opaque"), {"text": "y"}, mw.NotEditable, "only be deleted"),
        (mw.Preview(text="p"), {"text": "y"}, mw.NotEditable, "read-only"),
        (mw.Subagent(text="s"), {"text": "y"}, mw.NotEditable, "read-only"),
        (mw.UserInput(text="u"), {"colour": "red"}, mw.InvalidInput, "no editable field 'colour'"),
        (mw.ToolCall(name="ls"), {"name": "rm"}, mw.InvalidInput, "editable: params, result, is_error"),
        (mw.UserInput(text="u"), {}, mw.InvalidInput, "Nothing to change"),
        (mw.UserInput(text="u"), {"text": 5}, mw.InvalidInput, "Invalid value"),
    ],
)
def test_forbidden_edits_are_refused_with_a_reason(card, fields, error, match):
    with pytest.raises(error, match=match):
        rules.apply_edit(card, fields)


def test_tool_call_params_and_result_are_editable():
    card = mw.ToolCall(name="grep", params={"pattern": "a"}, result="x")
    new = rules.apply_edit(card, {"params": {"pattern": "b"}, "result": "y"})
    assert new.params == {"pattern": "b"} and new.result == "y"
