"""The ring's auto-compaction section, kernel side: it reads the preferences and the session's mode through
the settings panel's action, says why a mode cannot be chosen in the engine's own sentence, changes them
through the same gates, and the dashboard carries the threshold the ring marks. Compact now is an action
of its own; the handoff and native-compaction cards reach the views with what they show."""

from __future__ import annotations

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.cards.models import Handoff, NativeCompaction
from mewrk_jupyter.errors import InvalidInput
from mewrk_jupyter.widget.protocol import CompactNowAction, SnapshotMsg, read_action
from tests.providers.vendors import write_vendor

NATIVE_REFUSED = (
    "compaction 'native' needs a model with a compaction of its own, and `offline/tiny` has none; "
    "keep 'handoff' (a summary handed to a new session) or choose such a model."
)


def _settings(result: dict) -> dict:
    return result["data"]["settings"]["panel"]["settings"]


def test_compact_now_is_an_action_that_takes_nothing_more():
    assert read_action({"type": "action", "action": "compact_now"}) == CompactNowAction(
        type="action", action="compact_now"
    )
    with pytest.raises(InvalidInput) as refused:
        read_action({"type": "action", "action": "compact_now", "threshold": 0.5})
    assert str(refused.value) == "The widget's compact now request does not take threshold."


def test_native_is_unavailable_on_a_model_without_its_own_compaction_in_the_engines_words(session, widget):
    session.configure(model="offline/tiny")  # offline/echo has a compaction of its own; tiny has none
    shown = _settings(widget.do("settings"))
    assert shown["compaction"] == "handoff"
    assert shown["unavailable"] == {"compaction": {"native": NATIVE_REFUSED}}
    refused = widget.do("configure", changes={"compaction": "native"})
    assert not refused["ok"] and refused["message"].endswith(NATIVE_REFUSED)
    assert session.settings.compaction == "handoff"


def test_a_model_with_its_own_compaction_offers_both_modes_and_the_ring_marks_the_modes_threshold(
    session, widget
):
    write_vendor(
        session.workspace.root,
        "acme",
        "openai-responses",
        "http://127.0.0.1:9",
        "  big: {context_window: 100000, native_compaction: true}\n",
        "ACME_KEY",
    )
    session.configure(model="acme/big")
    assert session.settings.compaction == "native"  # begun on offline/echo, which compacts by itself
    session.configure(compaction="handoff")
    assert _settings(widget.do("settings"))["unavailable"] == {"compaction": {}}
    widget.hello()
    assert widget.of("snapshot")[-1]["context"]["compact_at"] == 80  # handoff's threshold

    chosen = widget.do("configure", changes={"compaction": "native"})
    assert chosen["ok"] and chosen["message"] == "Changed compaction 'handoff' → 'native'."
    assert session.settings.compaction == "native"
    assert _settings(chosen)["unavailable"] == {"compaction": {}}

    widget.sent.clear()
    saved = widget.do("set_preferences", changes={"native_threshold": 85})
    assert saved["ok"] and saved["message"] == "Preferences saved: native_threshold 85."
    # Every view gets the dashboard again: the ring's mark moves to the new threshold.
    assert widget.of("context")[-1]["compact_at"] == 85

    widget.do("set_preferences", changes={"auto_compaction": False})
    assert widget.of("context")[-1]["compact_at"] is None
    assert mw.preferences(workspace=session.workspace.root).auto_compaction is False


def test_a_threshold_out_of_range_is_refused_in_a_sentence_and_nothing_changes(session, widget):
    refused = widget.do("set_preferences", changes={"handoff_threshold": 120})
    assert not refused["ok"]
    assert refused["message"] == (
        "Preference refused: handoff_threshold must be a whole number from 20 to 97 (percent of the window), not 120; "
        "nothing was changed."
    )
    assert mw.preferences(workspace=session.workspace.root).handoff_threshold == 80
    kept = widget.do("set_preferences", changes={"keep_user_tokens": 200_000})
    assert kept["message"] == (
        "Preference refused: keep_user_tokens must be a whole number from 0 to 128,000, not 200000; "
        "nothing was changed."
    )


def test_the_ring_is_unmarked_when_the_window_is_unknown_or_auto_compaction_is_off(session, widget):
    widget.hello()
    context = widget.of("snapshot")[-1]["context"]
    # offline/echo compacts by itself, so a new conversation on it takes native's threshold
    assert context["compact_at"] == (90 if context["window"] else None)
    mw.set_preferences(workspace=session.workspace.root, auto_compaction=False)
    widget.hello()
    assert widget.of("snapshot")[-1]["context"]["compact_at"] is None


def test_the_snapshot_says_why_a_kind_cannot_be_edited(widget):
    widget.hello()
    snapshot = widget.of("snapshot")[-1]
    SnapshotMsg.model_validate(snapshot | {"cards": []})
    assert snapshot["read_only"]["native_compaction"] == (
        "A native-compaction card carries the provider's encrypted item and cannot be edited."
    )
    assert "handoff" not in snapshot["read_only"] and snapshot["editable"]["handoff"] == ["text"]


def test_handoff_and_native_compaction_cards_reach_the_views_without_the_encrypted_item(session, widget):
    widget.hello()
    session.stored_timeline.append(Handoff(text="# Goal\n\nFinish the **report**."))
    session.stored_timeline.append(
        NativeCompaction(
            text="acme/big compacted the conversation · 91k → 12k tokens",
            encrypted="gAAAAB-opaque",
            kept=["newest question", "an older question"],
        )
    )
    added = [m["card"] for m in widget.of("card_added")]
    handoff, native = added[-2], added[-1]
    assert handoff["kind"] == "handoff" and handoff["text"] == "# Goal\n\nFinish the **report**."
    assert native["kind"] == "native_compaction" and native["encrypted"] is True
    assert native["kept"] == ["newest question", "an older question"]
    assert "gAAAAB-opaque" not in str(widget.sent)
    refused = widget.do("edit", card_id=native["id"], fields={"text": "changed"})
    assert not refused["ok"] and refused["message"] == (
        "A native-compaction card carries the provider's encrypted item and cannot be edited."
    )


def test_compact_now_in_native_mode_is_closed_with_the_engines_reason_until_the_model_replies(
    session, widget
):
    refused = (
        "The model has not replied since the last compaction, so there is nothing new to compact: send a "
        "message first."
    )
    session.configure(compaction="native")
    session.send("first question")
    assert widget.do("settings")["data"]["settings"]["panel"]["compact_now"] is None
    assert widget.do("compact_now")["ok"]
    assert widget.do("settings")["data"]["settings"]["panel"]["compact_now"] == refused
    again = widget.do("compact_now")
    assert not again["ok"] and again["message"] == refused
    slash = widget.do("command", text="/compact now")
    assert not slash["ok"] and slash["message"] == refused
    assert len(session.handovers) == 1
