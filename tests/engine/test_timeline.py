"""Insert anywhere, edit and delete under the rules of T4, T6 and T8, enforced by the session."""

import pytest

import mewrk_jupyter as mw
from tests.conftest import wait_for

pytestmark = pytest.mark.both_stores


def kinds(s):
    return [c.kind for c in s.cards]


def texts(s):
    return [getattr(c, "text", c.kind) for c in s.cards]


@pytest.mark.sqlite_file
def test_new_session_is_empty_and_uses_the_offline_model(workspace):
    s = mw.Session.new(title="t")
    assert s.cards == [] and s.state == "idle"
    assert s.settings.model == "offline/echo"
    assert (workspace / ".mewrk" / "mewrk.db").exists()


def test_insert_before_and_after_any_card(workspace):
    s = mw.Session.new()
    a = s.insert(mw.UserInput(text="a"))
    c = s.insert(mw.ModelReply(text="c"))
    b = s.insert(mw.Thinking(text="b"), before=c.id)
    s.insert(mw.SystemPrompt(text="top"), before=a)
    s.insert(mw.ToolCall(name="ls", params={"path": "."}, result="x"), after=c.id)
    assert texts(s) == ["top", "a", "b", "c", "tool_call"]
    assert all(card.origin == "person" for card in s.cards)
    assert s.card(b.id[:6]).text == "b"


def test_insert_refuses_unknown_neighbours_and_double_anchors(workspace):
    s = mw.Session.new()
    a = s.insert(mw.UserInput(text="a"))
    with pytest.raises(mw.CardNotFound, match="No card `nope`"):
        s.insert(mw.UserInput(text="x"), after="nope")
    with pytest.raises(mw.InvalidInput, match="either before= or after="):
        s.insert(mw.UserInput(text="x"), before=a.id, after=a.id)
    with pytest.raises(mw.InvalidInput, match="already on the timeline"):
        s.insert(a)
    with pytest.raises(mw.InvalidInput, match="takes a card"):
        s.insert("hello")
    assert texts(s) == ["a"]


def test_edit_changes_the_card_in_place_and_flags_it(workspace):
    s = mw.Session.new()
    a = s.insert(mw.UserInput(text="a"))
    s.insert(mw.UserInput(text="b"))
    s.edit(a.id, text="A")
    assert texts(s) == ["A", "b"]
    assert s.cards[0].id == a.id and s.cards[0].edited


def test_edit_rules_hold_through_the_session(workspace):
    s = mw.Session.new()
    s.send("hello", wait=True)
    reply = s.cards[-1]
    s.edit(reply.id, text="changed")  # a complete reply is editable
    with pytest.raises(mw.InvalidInput, match="no editable field"):
        s.edit(reply.id, model="other/model")
    with pytest.raises(mw.CardNotFound):
        s.edit("zzzz", text="x")


def test_delete_is_immediate_and_several_cards_go_at_once(workspace):
    s = mw.Session.new()
    cards = [s.insert(mw.UserInput(text=str(i))) for i in range(5)]
    s.delete(cards[1].id, cards[3])
    assert texts(s) == ["0", "2", "4"]
    with pytest.raises(mw.InvalidInput, match="at least one"):
        s.delete()


def test_nothing_changes_while_a_turn_runs(workspace):
    s = mw.Session.new(model="offline/slow")
    a = s.insert(mw.UserInput(text="first"))
    run = s.send("long: 200", wait=False)
    assert s.state == "running"
    with pytest.raises(mw.SessionBusy, match="nothing on the timeline can change"):
        s.edit(a.id, text="x")
    with pytest.raises(mw.SessionBusy):
        s.insert(mw.UserInput(text="x"))
    with pytest.raises(mw.SessionBusy):
        s.delete(a.id)
    with pytest.raises(mw.SessionBusy):
        s.undo()
    streaming = wait_for(lambda: s.cards[-1] if s.cards[-1].kind == "model_reply" else None)
    assert not streaming.complete
    with pytest.raises(mw.SessionBusy, match="running in another window"):
        s.send("again", wait=False)
    s.stop()
    run.wait()
    assert run.state == "stopped"
    assert s.state == "idle"
    reply = s.cards[-1]
    assert reply.kind == "model_reply" and reply.complete and reply.interrupted
    s.edit(reply.id, text="kept and edited")  # editable again once the turn ended
    assert [c.text for c in s.cards if c.kind == "user_input"] == ["first", "long: 200"]


def test_cards_render_as_a_table_and_cards_have_readable_reprs(workspace):
    s = mw.Session.new()
    card = s.insert(mw.UserInput(text="first line\nsecond line"))
    assert repr(card) == f"<user_input {card.id}: 'first line'>"
    html = s.cards._repr_html_()
    assert "<table" in html and card.id in html and "first line" in html


def test_engine_made_read_only_cards_refuse_edits_but_can_be_deleted(workspace):
    s = mw.Session.new()
    preview = mw.Preview(text="a diff to look at")
    secret = mw.Thinking(origin="model", text="", encrypted="opaque-provider-bytes")
    subagent = mw.Subagent(text="the subagent's report", agent="explorer")
    for card in (preview, secret, subagent):
        s.stored_timeline.append(card)
    with pytest.raises(mw.NotEditable, match="read-only"):
        s.edit(preview.id, text="x")
    with pytest.raises(mw.NotEditable, match="only be deleted"):
        s.edit(secret.id, text="x")
    with pytest.raises(mw.NotEditable, match="read-only"):
        s.edit(subagent.id, text="x")
    s.delete(preview.id, secret.id, subagent.id)
    assert s.cards == []


def test_a_card_can_be_named_by_its_position_from_the_end(workspace):
    s = mw.Session.new()
    first = s.insert(mw.UserInput(text="one"))
    last = s.insert(mw.UserInput(text="two"))
    assert s.card("-1").id == last.id and s.card("-2").id == first.id
    with pytest.raises(mw.CardNotFound, match="No card at position -3: the timeline has 2 cards"):
        s.card("-3")
    s.edit("-1", text="changed")
    assert s.cards[-1].text == "changed"
