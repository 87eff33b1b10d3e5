"""A branch or fork opened in place: the widget follows the new session, and the header's way back returns."""

from __future__ import annotations

import mewrk_jupyter as mw

from .recording import Client, RecordingWidget, truth


def _open_branch(widget: RecordingWidget, session: mw.Session) -> mw.Session:
    made = widget.do("branch", card_id=session.cards[-1].id)
    assert made["ok"] and made["data"]["offer_open"]
    opened = widget.do("open_session", session_id=made["data"]["session_id"])
    assert opened["ok"], opened["message"]
    return mw.Session.open(made["data"]["session_id"], workspace=session.workspace.root)


def test_opening_a_branch_in_place_sends_every_view_its_timeline_and_the_way_back(session, widget):
    widget.hello("v1")
    widget.hello("v2")
    branch = _open_branch(widget, session)
    assert widget.session is branch and widget.session_id == branch.id
    snap = widget.of("snapshot")[-1]
    assert snap["for"] is None  # every view of this widget now shows the branch
    assert snap["session"]["id"] == branch.id and snap["session"]["title"] == "widget test (branch)"
    assert snap["came_from"] == {"id": session.id, "title": "widget test"}
    result = widget.of("result")[-1]
    assert result["message"] == f"Switched to “widget test (branch)” (id {branch.id}): offline/echo, 2 cards."
    for view in ("v1", "v2"):
        assert Client(view).apply_all(widget.sent).timeline() == truth(branch)


def test_an_edit_after_opening_lands_in_the_branch_and_the_original_no_longer_patches(session, widget):
    widget.hello()
    original_text = session.cards[-1].text
    branch = _open_branch(widget, session)
    reply_id = branch.cards[-1].id  # a branch keeps the card ids of the cards it copied
    assert widget.do("edit", card_id=reply_id, fields={"text": "only in the branch"})["ok"]
    assert branch.cards[-1].text == "only in the branch"
    assert session.cards[-1].text == original_text

    sent = len(widget.sent)
    session.insert(mw.SystemPrompt(text="Be brief."))  # a change to the session no longer shown here
    session.send("more", wait=True)
    assert [m for m in widget.sent[sent:] if m["type"] != "context"] == []
    branch.insert(mw.SystemPrompt(text="In the branch."))
    assert widget.of("card_added")[-1]["card"]["text"] == "In the branch."
    assert Client().apply_all(widget.sent).timeline() == truth(branch)


def test_back_returns_to_the_original_then_has_nowhere_further_to_go(session, widget):
    widget.hello()
    branch = _open_branch(widget, session)
    deeper = widget.do("fork", card_id=branch.cards[-1].id)
    assert widget.do("open_session", session_id=deeper["data"]["session_id"])["ok"]
    assert widget.of("snapshot")[-1]["came_from"] == {"id": branch.id, "title": "widget test (branch)"}

    back = widget.do("back")
    assert back["ok"] and widget.session is branch
    assert back["message"] == f"Switched to “widget test (branch)” (id {branch.id}): offline/echo, 2 cards."
    assert widget.of("snapshot")[-1]["came_from"] == {"id": session.id, "title": "widget test"}
    assert widget.do("back")["ok"] and widget.session is session
    snap = widget.of("snapshot")[-1]
    assert snap["session"]["id"] == session.id and snap["came_from"] is None
    assert Client().apply_all(widget.sent).timeline() == truth(session)

    nowhere = widget.do("back")
    assert not nowhere["ok"] and nowhere["message"] == "This view has no earlier session to go back to."
    assert widget.session is session


def test_the_slash_commands_offer_the_same_and_refusals_are_sentences(session, widget):
    widget.hello()
    typed = widget.do("command", text="/fork -1")
    assert typed["ok"] and typed["data"]["offer_open"]
    assert typed["message"].startswith("Forked “widget test” at the reply")

    missing = widget.do("open_session", session_id="nosuchsession")
    assert not missing["ok"] and missing["message"].startswith("No session `nosuchsession`")
    assert widget.session is session

    slow = mw.Session.new(workspace=session.workspace.root, model="offline/slow", title="slow")
    slow.insert(mw.UserInput(text="first"))
    other = RecordingWidget(slow)
    try:
        other.hello()
        run = slow.send("go\nlong: 400", wait=False)
        refused = other.do("branch", card_id=slow.cards[0].id)
        assert not refused["ok"] and refused["message"].startswith("The model is running")
        assert other.session is slow
        slow.stop()
        run.wait()
    finally:
        other.close()
