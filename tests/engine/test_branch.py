"""Branch and fork (T11): a new session with the original's settings and context; the original untouched."""

import pytest

import mewrk_jupyter as mw


def build(s):
    s.insert(mw.SystemPrompt(text="sys"))
    s.send("one")
    s.send("two")
    return s


def test_branch_copies_up_to_and_including_the_card(workspace):
    (workspace / ".mewrk" / "policy").mkdir(parents=True)
    (workspace / ".mewrk" / "policy" / "careful.yaml").write_text("safety_level: careful\nallow: [ls]\n")
    s = build(mw.Session.new(title="work", safety_level="careful", host_container="box_tool_result"))
    before = [c.model_dump() for c in s.cards]
    at = s.cards[2]  # the first reply
    b = s.branch(at.id)
    assert [c.model_dump() for c in b.cards] == before[:3]
    assert b.parent_id == s.id and b.title == "work (branch)" and b.id != s.id
    assert b.settings == s.settings and b.settings.safety_level == "careful"
    assert [c.model_dump() for c in s.cards] == before  # the original is untouched
    assert b.history == [] and b.state == "idle"  # nothing ran


def test_fork_copies_everything_above_the_card(workspace):
    s = build(mw.Session.new(title="work"))
    f = s.fork(s.cards[3].id)  # the second question
    assert [c.text for c in f.cards] == [c.text for c in s.cards[:3]]
    assert f.title == "work (fork)"


def test_a_branch_sends_exactly_the_original_context_at_that_point(workspace):
    s = build(mw.Session.new())
    s_second_request = s.history[-1].request
    b = s.branch(s.cards[3].id)  # up to the second question
    b.send()
    assert b.history[0].request == s_second_request


def test_branch_and_original_then_diverge_independently(workspace):
    s = build(mw.Session.new())
    b = s.branch(s.cards[-1].id)
    b.edit(b.cards[-1].id, text="only in the branch")
    assert s.cards[-1].text != "only in the branch"
    assert [x.id for x in mw.list_sessions()] == [s.id, b.id]
    assert mw.list_sessions()[1].parent_id == s.id


def test_branch_needs_a_card_of_this_session(workspace):
    s = mw.Session.new()
    with pytest.raises(mw.CardNotFound):
        s.branch("abc")
