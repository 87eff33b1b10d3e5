"""Undo and redo (T9, T10): one process-wide stack of 64 steps shared by every session."""

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.cards.undo import UNDO


def texts(s):
    return [getattr(c, "text", c.kind) for c in s.cards]


def test_undo_and_redo_an_insert_an_edit_and_a_delete(workspace):
    s = mw.Session.new()
    a = s.insert(mw.UserInput(text="a"))
    s.edit(a.id, text="A")
    s.delete(a.id)
    assert texts(s) == []
    assert s.undo() == "Undid: deleted message"
    assert texts(s) == ["A"]
    s.undo()
    assert texts(s) == ["a"] and not s.cards[0].edited
    s.undo()
    assert texts(s) == []
    with pytest.raises(mw.NothingToUndo):
        s.undo()
    s.redo()
    s.redo()
    assert texts(s) == ["A"]
    s.redo()
    assert texts(s) == []
    with pytest.raises(mw.NothingToUndo):
        s.redo()


def test_an_undo_keeps_model_replies_added_since(workspace):
    s = mw.Session.new()
    s.insert(mw.SystemPrompt(text="be brief"))
    first = s.insert(mw.UserInput(text="hi"))
    s.edit(first.id, text="hello")
    s.send(wait=True)  # the model replies after the edit
    assert texts(s)[-1].startswith("Continuing") is False
    reply = s.cards[-1]
    s.undo()  # reverts the edit only
    assert s.card(first.id).text == "hi"
    assert s.cards[-1].id == reply.id


def test_box_deletion_is_one_step(workspace):
    s = mw.Session.new()
    cards = [s.insert(mw.UserInput(text=str(i))) for i in range(6)]
    s.delete(*[c.id for c in cards[1:5]])
    assert texts(s) == ["0", "5"]
    s.undo()
    assert texts(s) == ["0", "1", "2", "3", "4", "5"]
    assert [c.id for c in s.cards] == [c.id for c in cards]


def test_a_new_change_clears_that_sessions_redo(workspace):
    s = mw.Session.new()
    s.insert(mw.UserInput(text="a"))
    s.undo()
    s.insert(mw.UserInput(text="b"))
    with pytest.raises(mw.NothingToUndo, match="redo"):
        s.redo()


def test_two_sessions_share_the_64_step_stack(workspace):
    one, two = mw.Session.new(title="one"), mw.Session.new(title="two")
    for i in range(40):
        one.insert(mw.UserInput(text=f"one {i}"))
    for i in range(40):
        two.insert(mw.UserInput(text=f"two {i}"))
    assert len(UNDO.steps()) == 64
    assert len(UNDO.steps(one.id)) == 24 and len(UNDO.steps(two.id)) == 40
    # Each session undoes only its own steps, newest first.
    one.undo()
    assert texts(one)[-1] == "one 38" and len(texts(two)) == 40
    for _ in range(23):
        one.undo()
    assert len(texts(one)) == 16  # the 16 oldest steps of `one` fell off the shared stack
    with pytest.raises(mw.NothingToUndo):
        one.undo()
    two.undo()
    assert len(texts(two)) == 39


def test_branch_and_fork_start_with_no_steps(workspace):
    s = mw.Session.new()
    a = s.insert(mw.UserInput(text="a"))
    s.insert(mw.UserInput(text="b"))
    branch = s.branch(a.id)
    fork = s.fork(a.id)
    with pytest.raises(mw.NothingToUndo):
        branch.undo()
    with pytest.raises(mw.NothingToUndo):
        fork.undo()
    s.undo()
    assert texts(s) == ["a"]


def test_undo_restores_a_deleted_card_even_if_its_slot_was_taken(workspace):
    s = mw.Session.new()
    a = s.insert(mw.UserInput(text="a"))
    c = s.insert(mw.UserInput(text="c"))
    b = s.insert(mw.UserInput(text="b"), after=a.id)
    s.delete(b.id)
    UNDO.clear()
    s.insert(mw.UserInput(text="b2"), after=a.id)  # takes the same order key b had
    s.insert(b.model_copy(update={"id": "restored01"}), before=c.id)
    assert texts(s) == ["a", "b2", "b", "c"]
    s.undo()
    s.undo()
    assert texts(s) == ["a", "c"]
    s.redo()
    assert texts(s) == ["a", "b2", "c"]
