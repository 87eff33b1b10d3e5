"""`%mewrk compact` (C6): the conversation summarised in place, or the refusal, in one line."""

from __future__ import annotations

from mewrk_jupyter import magics
from mewrk_jupyter.commands import COMMANDS


def test_compact_places_the_divider_and_says_so(mewrk):
    mewrk("new")
    session = magics.current_session()
    for i in range(5):
        session.send(f"question {i}\nlong: 900")
    out = mewrk("compact")
    divider = session.cards[-1]
    assert divider.kind == "summary_divider"
    assert out.strip() == f"Compacted: {divider.title_line()}."
    assert out.startswith("Compacted: 10 earlier messages · compacted into a summary · ≈")
    again = mewrk("compact")
    assert again.strip() == (
        "**mewrk:** Nothing worth compacting: the conversation has 0 messages since the last summary, "
        "and a summary needs at least 4."
    )
    assert session.cards[-1].id == divider.id


def test_compact_now_hands_over_and_the_next_commands_act_on_the_new_session(mewrk):
    mewrk("new plan")
    original = magics.current_session()
    original.configure(compaction="handoff")
    refused = mewrk("compact now")
    assert refused.strip() == (
        "**mewrk:** The model has not replied yet, so there is nothing to compact: send a message first."
    )
    assert original.handovers == []
    original.send("first question")
    out = mewrk("compact now")
    handover = magics.current_session()
    assert handover.id != original.id and original.handovers == [handover.id]
    assert out.strip() == (
        f"Handed over to the new session “plan-handover-1” (`{handover.id}`); it waits for your next message. "
        f"`%mewrk` commands now act on it; `%mewrk use {original.id}` goes back."
    )
    assert (handover.title, handover.state, handover.history) == ("plan-handover-1", "idle", [])
    assert [c.kind for c in handover.cards] == ["handoff"]
    again = mewrk("compact now")  # acts on the handover, whose model has not replied since
    assert again.strip() == (
        "**mewrk:** The model has not replied since the last compaction, so there is nothing new to "
        "compact: send a message first."
    )
    # Words after `compact` are the summary's instructions, not an unknown option.
    later = mewrk("compact later").strip()
    assert later.startswith("**mewrk:** Nothing worth compacting: the conversation has 1 message")
    # In the mode native (offline/echo compacts by itself) the provider compacts instead.
    assert "from the provider's own compaction in the mode native, else from handoff documents" in (
        COMMANDS["compact"].summary
    )
    handover.send("go on")
    handover.configure(compaction="native")
    mewrk("compact now")
    assert [c.kind for c in magics.current_session().cards] == ["native_compaction"]


def test_compact_now_in_native_mode_is_refused_again_until_the_model_replies(mewrk):
    mewrk("new notes")
    original = magics.current_session()
    original.configure(compaction="native")  # offline/echo compacts by itself
    original.send("first question")
    mewrk("compact now")
    [handover] = original.handovers
    mewrk(f"use {original.id}")
    again = mewrk("compact now")
    assert again.strip() == (
        "**mewrk:** The model has not replied since the last compaction, so there is nothing new to "
        "compact: send a message first."
    )
    assert original.handovers == [handover] and magics.current_session().id == original.id


def test_compact_with_instructions_carries_them_to_the_summary(mewrk):
    mewrk("new")
    session = magics.current_session()
    for i in range(5):
        session.send(f"question {i}\nlong: 900")
    out = mewrk("compact keep the open questions")
    divider = session.cards[-1]
    assert divider.instructions == "keep the open questions"
    assert out.strip() == f"Compacted: {divider.title_line()}."
    assert out.strip().endswith("· with instructions.")
