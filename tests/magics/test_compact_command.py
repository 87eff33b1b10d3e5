"""`%mewrk compact` (C6): the conversation summarised in place, or the refusal, in one line."""

from __future__ import annotations

from mewrk_jupyter import magics


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
