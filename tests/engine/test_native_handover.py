"""Native compaction into a new session, offline: compact now in native mode opens the handover from the
model's own compaction (the original left as it was), and auto-compaction at the native threshold
compacts between two requests and goes on in the new session."""

from __future__ import annotations

import json

import pytest

import mewrk_jupyter as mw


def test_compact_now_in_native_mode_opens_the_handover_from_the_providers_item(workspace):
    s = mw.Session.new(title="notes", compaction="native")  # offline/echo compacts by itself
    for i in range(3):
        s.send(f"Question {i}: what is in the notes?")
    before = [c.id for c in s.cards]
    h = s.compact_now()
    assert h.title == "notes-handover-1" and h.handover_of == s.id and s.handovers == [h.id]
    assert [c.kind for c in h.cards] == ["native_compaction"]
    assert h.cards[0].kept[-1] == "Question 2: what is in the notes?"
    assert [c.id for c in s.cards] == before  # the original stays as it was
    assert h.state == "idle" and h.history == []  # opened, not run
    h.send("go on")
    assert h.cards[-1].kind == "model_reply"
    assert "Question 2: what is in the notes?" in str(h.history[-1].request["messages"])


def test_auto_compaction_at_the_native_threshold_goes_on_in_the_new_session(workspace):
    mw.set_preferences(native_threshold=20)  # of offline/echo's 32k window: 6,400 tokens
    s = mw.Session.new(title="long", compaction="native")
    s.send("long: 7000")
    s.send("and then?")  # this request carries the long reply: over the threshold
    events = []
    s.subscribe(events.append)
    run = s.send("more")  # checked before this request: compacted natively, the turn goes on there
    assert run.state == "stopped"
    said = [getattr(e, "text", None) or "" for e in events]
    assert any(t.startswith("Compacted natively into the new session “long-handover-1”") for t in said)
    [hid] = s.handovers
    h = mw.Session.open(hid)
    h.last_run.wait(30)
    assert [c.kind for c in h.cards] == ["native_compaction", "model_reply"]
    # The new session's request is a fraction of the last one the original sent.
    assert len(json.dumps(h.history[-1].request)) * 3 < len(json.dumps(s.history[-2].request))
    # Going on in the original after the handover compacts nothing more: once, as the handoff arms once.
    s.send("back here")
    assert s.handovers == [hid] and s.cards[-1].kind == "model_reply"


def test_compact_now_in_native_mode_again_without_a_reply_is_refused_until_the_model_replies(workspace):
    s = mw.Session.new(title="notes", compaction="native")
    s.send("Question 0: what is in the notes?")
    assert s.compact_now_unavailable() is None
    first = s.compact_now()
    refused = (
        "The model has not replied since the last compaction, so there is nothing new to compact: send a "
        "message first."
    )
    assert s.compact_now_unavailable() == refused
    with pytest.raises(mw.NothingToCompact, match=f"^{refused}$"):
        s.compact_now()
    assert s.handovers == [first.id] and len(mw.list_sessions()) == 2  # no notes-handover-2
    s.send("Question 1: and then?")  # the model replied here since: compact now acts again
    assert s.compact_now().title == "notes-handover-2"
