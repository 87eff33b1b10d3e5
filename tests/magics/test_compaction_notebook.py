"""The compaction walkthrough runs top to bottom in a real kernel, offline, and shows each step (C6, C3,
C5)."""

from __future__ import annotations

import re

from .notebooks import run_notebook


def test_compaction_notebook_runs(tmp_path, monkeypatch):
    scratch_parent = tmp_path / "tmp"
    scratch_parent.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch_parent))  # where the notebook makes its scratch folder
    outputs = [shown for _, shown in run_notebook("compaction.ipynb", tmp_path, monkeypatch)]
    text = "\n".join(outputs)
    # It writes an agent file and a preference, in a scratch folder it removes: the person's folder keeps
    # no trace of it (no .mewrk/ with a rewritten main.yaml, no auto-compaction turned off).
    assert not (tmp_path / ".mewrk").exists()
    assert list(scratch_parent.iterdir()) == []
    assert "back in your folder" in text
    assert "Compacted: 10 earlier messages · compacted into a summary · ≈" in text
    assert "## Goal\n- Question 0: tell me more. long: 900" in text
    assert "1 message(s) sent\nThis conversation continues from a summary of its earlier part" in text
    assert "Undid: compacted the conversation" in text
    assert "12 cards, 0 dividers" in text
    assert (
        "['11 earlier messages · compacted into a summary · ≈" in text
    )  # the automatic one, at the 6th request
    assert "**mewrk:**" not in text
    # Handoff (C3, C5): the 50-message session hands over at the 80 % threshold; compact now opens one.
    assert "True 80" in text and "50 messages, " in text
    assert "['user_input', 'host_message', 'model_reply', 'tool_call', 'handoff']" in text
    assert "long-handover-1 continues True" in text
    assert "['handoff', 'user_input', 'model_reply']" in text and "1 message(s) sent" in text
    sizes = re.search(
        r"last request before the handoff: (\d+) tokens; first request of the handover: (\d+)", text
    )
    assert sizes is not None and int(sizes[2]) * 10 < int(sizes[1])
    assert "Handed over to the new session “compaction-handover-1”" in text
    assert "compaction-handover-1 ['handoff'] 0 requests so far" in text
    assert "The model has not replied since the last compaction" in text
    # Native (C4): compact now in native mode opens the handover from the offline model's own item.
    assert "native-handover-1 ['native_compaction']" in text
    assert "`offline/echo` compacted the conversation natively" in text
    sizes = re.search(
        r"last request before the native compaction: (\d+) tokens; first request after: (\d+)", text
    )
    assert sizes is not None and int(sizes[2]) * 3 < int(sizes[1])
    # The three side by side, on copies of one 50-message session: the same next request each time.
    assert "50 messages in one session" in text
    sizes = dict(re.findall(r"^([a-z ]+): next request (\d+) tokens$", text, re.M))
    assert list(sizes) == ["no compaction", "summary in place", "handoff", "native compaction"]
    whole = int(sizes.pop("no compaction"))
    assert whole > 12_000  # 25 answers of about 500 tokens
    assert all(int(size) * 5 < whole for size in sizes.values()), sizes
