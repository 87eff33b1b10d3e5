"""The thinking card's "not sent" note travels to the views, and goes away when the change is undone."""

from __future__ import annotations

import mewrk_jupyter as mw
from mewrk_jupyter.engine.assembly.assemble import BROKEN_SIGNATURE

from .recording import Client, RecordingWidget


def test_an_edit_above_a_signed_block_patches_its_card_with_the_note(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    s = mw.Session.new(model="offline/thinker", workspace=tmp_path)
    s.send("hello", wait=True)
    question, thinking, _ = s.cards
    widget = RecordingWidget(s)
    try:
        snapshot = widget.hello()
        assert [row["card"].get("not_sent") for row in snapshot["cards"]] == [None, None, None]
        widget.sent.clear()
        assert widget.do("edit", card_id=question.id, fields={"text": "hello there"})["ok"]
        changed = {m["card"]["id"]: m["card"] for m in widget.of("card_changed")}
        assert changed[thinking.id]["not_sent"] == BROKEN_SIGNATURE  # the card below is patched too
        assert "not_sent" not in changed[question.id]
        client = Client().apply_all([snapshot, *widget.sent])
        assert client.cards[thinking.id]["not_sent"] == BROKEN_SIGNATURE
        widget.do("undo")
        client.apply_all(widget.sent)
        assert "not_sent" not in client.cards[thinking.id]
        # A view that opens now sees the same truth as the one that followed the patches.
        widget.do("edit", card_id=question.id, fields={"text": "hello again"})
        fresh = widget.hello("v2")
        assert {r["card"]["id"]: r["card"].get("not_sent") for r in fresh["cards"]}[thinking.id] == (
            BROKEN_SIGNATURE
        )
    finally:
        widget.close()
