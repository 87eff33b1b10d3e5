"""The replay walkthrough runs top to bottom in a real kernel, offline, and shows each step (#38)."""

from __future__ import annotations

from .notebooks import run_notebook


def test_replay_notebook_runs(tmp_path, monkeypatch):
    scratch_parent = tmp_path / "tmp"
    scratch_parent.mkdir()
    monkeypatch.setenv("TMPDIR", str(scratch_parent))
    outputs = [shown for _, shown in run_notebook("replay.ipynb", tmp_path, monkeypatch)]
    text = "\n".join(outputs)
    assert list(scratch_parent.iterdir()) == [] and "back in your folder" in text
    assert "42 written by the recording" in text
    assert "recorded on `offline/echo`, replayed on `offline/thinker`" in text  # the report, shown
    assert "1 same tools: True" in text and "2 same tools: True" in text
    assert "answer.txt exists again: False" in text  # nothing ran again
    assert "the branch: recorded (replay on offline/thinker)" in text
    assert "replay_check: done" in text  # replay_check on the recording's own model
    assert "Turns 2 differ from the recording." in text
    assert "-bash(command='echo 41 > answer.txt; cat answer.txt')" in text
    assert "+bash(command='echo 42 > answer.txt; cat answer.txt')" in text
    assert "done from recorded.ipynb" in text
