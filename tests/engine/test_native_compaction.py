"""Native compaction (C4) offline: the keep budget, the card, the offline model's own item and its round
trip through a new session's request, a switch to a model without native compaction, and refusals."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import replace

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.assembly.compacted import envelope
from mewrk_jupyter.engine.assembly.context import request_size
from mewrk_jupyter.engine.compaction.native import CUT_MARK, keep_messages, native_compaction, system_prompts
from mewrk_jupyter.engine.history_summary import summarise
from mewrk_jupyter.engine.session import forget_open_sessions
from mewrk_jupyter.providers.base import ModelRequest
from mewrk_jupyter.providers.offline import OfflineProvider, estimate_tokens
from mewrk_jupyter.providers.offline_native import ALTERED, unseal

from ..native_parts import parts_of


def chat(s: mw.Session, n: int, words: int = 40) -> None:
    """`n` exchanges with the offline model, each message about `words` words long."""
    for i in range(n):
        s.send(f"Message {i}: " + "plan the trip " * (words // 3))


def seeded(card: mw.NativeCompaction, model: str = "offline/echo") -> mw.Session:
    """A new session that begins with the card, placed through its stored timeline as the handover does."""
    new = mw.Session.new(model)
    new.stored_timeline.append(card)
    return new


def test_the_budget_keeps_the_newest_messages_and_cuts_the_oldest_kept_in_the_middle():
    said = ["a" * 400, "b" * 400, "c" * 400]  # 100 tokens each, as the engine estimates them
    assert keep_messages(said, 300) == said
    assert keep_messages(said, 200) == said[1:]  # newest first: the oldest is the one left out
    kept = keep_messages(said, 250)
    assert kept[1:] == said[1:] and len(kept) == 3
    assert kept[0].startswith("a" * 10) and CUT_MARK in kept[0] and kept[0].endswith("a" * 10)
    assert estimate_tokens(kept[0]) == 50  # cut to what the budget had left
    assert keep_messages(said, 0) == []  # 0 keeps none
    assert keep_messages(said, 5) == []  # too little left for even the cut's mark


def test_offline_native_compaction_round_trip_through_a_new_session(workspace):
    s = mw.Session.new("offline/echo")
    chat(s, 6)
    last = s.history[-1]
    card = native_compaction(parts_of(s), keep_user_tokens=100)
    assert s.history[-1].response["compaction"] == "native"
    assert s.history[-1].request == {
        **last.request,
        "messages": s.history[-1].request["messages"],
        "compact": True,
    }
    assert s.context.last_request == s.history[-2].response["usage"]["input_tokens"]  # passed over

    found = envelope(card)
    assert found is not None and (found.protocol, found.model) == ("offline", "offline/echo")
    summary = unseal(json.loads(found.item)["encrypted_content"])
    assert "Message 0:" in summary and "Message 5:" in summary  # the item carries the whole conversation
    assert card.kept[-1].startswith("Message 5:") and sum(estimate_tokens(t) for t in card.kept) <= 100
    assert card.text.startswith("`offline/echo` compacted the conversation natively: ≈")

    new = seeded(card)
    run = new.send("Where were we?")
    assert run.state == "done"
    sent = new.history[-1].request["messages"]
    assert sent == [
        {"role": "user", "parts": [{"type": "text", "text": t} for t in card.kept]},
        {
            "role": "assistant",
            "parts": [{"type": "compaction", "encrypted": found.item, "protocol": "offline"}],
        },
        {"role": "user", "parts": [{"type": "text", "text": "Where were we?"}]},
    ]
    assert card.text not in json.dumps(new.history[-1].request, ensure_ascii=False)  # the line: never
    assert new.context.by_kind["native_compaction"] > sum(estimate_tokens(t) for t in card.kept)

    # A model without native compaction reads only the kept messages.
    new.configure(model="offline/tiny")
    new.send("And now?")
    moved = new.history[-1].request["messages"]
    assert moved[0] == {
        "role": "user",
        "parts": [{"type": "text", "text": t} for t in card.kept]
        + [{"type": "text", "text": "Where were we?"}],
    }
    assert "compaction" not in json.dumps(moved)


def test_the_preference_sets_the_budget_and_0_keeps_no_message(workspace):
    s = mw.Session.new("offline/echo")
    chat(s, 3)
    mw.set_preferences(keep_user_tokens=0)
    card = native_compaction(parts_of(s))
    assert card.kept == []
    new = seeded(card)
    new.send("Hello")
    assert [m["role"] for m in new.history[-1].request["messages"]] == ["assistant", "user"]


def test_an_altered_item_is_refused_by_the_offline_model_as_a_vendor_would(workspace):
    s = mw.Session.new("offline/echo")
    chat(s, 2)
    card = native_compaction(parts_of(s))
    found = envelope(card)
    assert found is not None
    item = json.loads(found.item)
    item["encrypted_content"] = item["encrypted_content"][:-3] + "xyz"
    altered = card.model_copy(update={"encrypted": replace(found, item=json.dumps(item)).dumps()})
    new = seeded(altered)
    with pytest.raises(mw.ProviderError, match="cannot read this compaction item"):
        new.send("Hello")
    assert new.history[-1].error == ALTERED  # the request was recorded; the model refused it


def test_a_second_compaction_keeps_what_the_first_item_carried(workspace):
    s = mw.Session.new("offline/echo")
    chat(s, 2)
    first = native_compaction(parts_of(s), keep_user_tokens=0)
    new = seeded(first)
    new.send("Third message about the hotel")
    second = native_compaction(parts_of(new), keep_user_tokens=64_000)
    found = envelope(second)
    assert found is not None
    summary = unseal(json.loads(found.item)["encrypted_content"])
    assert "Message 0:" in summary and "Third message about the hotel" in summary
    assert second.kept == ["Third message about the hotel"]


def test_a_model_without_native_compaction_is_refused_and_the_setting_too(workspace):
    s = mw.Session.new("offline/tiny")
    s.send("Hello")
    history = len(s.history)
    with pytest.raises(mw.InvalidInput, match="has no compaction of its own"):
        native_compaction(parts_of(s))
    assert len(s.history) == history
    with pytest.raises(mw.InvalidInput, match="compaction 'native' needs a model"):
        s.configure(compaction="native")
    assert mw.Session.new("offline/echo").configure(compaction="native").compaction == "native"


def test_a_new_conversation_compacts_natively_where_its_model_can_and_a_model_change_says_so(workspace):
    assert mw.Session.new("offline/echo").settings.compaction == "native"
    assert mw.Session.new("offline/tiny").settings.compaction == "handoff"
    assert mw.Session.new("offline/echo", compaction="handoff").settings.compaction == "handoff"
    s = mw.Session.new("offline/echo")
    changed = s.configure(model="offline/tiny")  # tiny cannot compact by itself: the other mode, said
    assert changed.compaction == "handoff"
    assert s.settings.compaction == "handoff"
    assert s.configure(model="offline/echo").compaction == "handoff"  # the person's mode from here on


def test_a_session_stored_before_native_compaction_existed_keeps_handoff(workspace):
    s = mw.Session.new("offline/echo")
    with sqlite3.connect(workspace / ".mewrk" / "mewrk.db") as conn:
        (stored,) = conn.execute("SELECT settings FROM sessions WHERE id = ?", (s.id,)).fetchone()
        settings = json.loads(stored)
        del settings["compaction"]
        conn.execute("UPDATE sessions SET settings = ? WHERE id = ?", (json.dumps(settings), s.id))
    forget_open_sessions()  # such a row is met by a process that opens it, not by one that wrote it since
    assert mw.Session.open(s.id).settings.compaction == "handoff"


def test_system_prompts_placed_mid_conversation_are_seeded_and_sent_and_the_history_names_the_call(workspace):
    s = mw.Session.new("offline/echo")
    s.insert(mw.SystemPrompt(text="Answer briefly."))
    chat(s, 1)
    s.insert(mw.SystemPrompt(text="From now on, answer in French."))
    chat(s, 1)
    card = native_compaction(parts_of(s))
    assert summarise(s.history[-1], None).title == f"Request {s.history[-1].number} · native compaction"
    prompts = system_prompts(s.cards)
    assert [p.text for p in prompts] == ["Answer briefly.", "From now on, answer in French."]
    assert not {p.id for p in prompts} & {c.id for c in s.cards}  # fresh cards for the new session
    new = mw.Session.new("offline/echo")
    for seed in (*prompts, card):
        new.stored_timeline.append(seed)
    new.send("Next?")
    assert new.history[-1].request["system"][-2:] == ["Answer briefly.", "From now on, answer in French."]


def test_a_summary_in_place_after_a_native_compaction_keeps_what_the_item_carried(workspace):
    s = mw.Session.new("offline/echo")
    chat(s, 3)
    new = seeded(native_compaction(parts_of(s), keep_user_tokens=0))
    chat(new, 3, words=900)
    divider = new.compact()
    assert "Message 0:" in divider.summary  # from the item, though no kept message says it


def test_fifty_messages_offline_the_first_request_after_is_a_fraction_of_the_last_before(workspace):
    s = mw.Session.new("offline/echo")
    for i in range(25):
        s.send(f"Message {i}: the train across the alps, hotels, times and prices for each stop.\nlong: 300")
    assert sum(c.kind in ("user_input", "model_reply") for c in s.cards) == 50
    before = request_size(s.history[-1].response["usage"])
    card = native_compaction(parts_of(s))  # the default budget keeps every one of these short messages
    new = seeded(card)
    new.send("Where were we?")
    after = request_size(new.history[-1].response["usage"])
    assert len(card.kept) == 25 and after < before / 5


def test_a_provider_refuses_a_compaction_its_model_does_not_declare():
    with pytest.raises(mw.ProviderError, match=r"^`offline/tiny` has no compaction of its own"):
        OfflineProvider().compaction(ModelRequest(model="offline/tiny"))
