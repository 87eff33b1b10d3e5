"""The compaction walkthrough runs top to bottom in a real kernel, offline, and shows each step (C6)."""

from __future__ import annotations

from .notebooks import run_notebook


def test_compaction_notebook_runs(tmp_path, monkeypatch):
    outputs = [shown for _, shown in run_notebook("compaction.ipynb", tmp_path, monkeypatch)]
    text = "\n".join(outputs)
    assert "Compacted: 10 earlier messages · compacted into a summary · ≈" in text
    assert "## Goal\n- Question 0: tell me more. long: 900" in text
    assert "1 message(s) sent\nThis conversation continues from a summary of its earlier part" in text
    assert "Undid: compacted the conversation" in text
    assert "12 cards, 0 dividers" in text
    assert (
        "['11 earlier messages · compacted into a summary · ≈" in text
    )  # the automatic one, at the 6th request
    assert "**mewrk:**" not in text
