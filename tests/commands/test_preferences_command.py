"""`%mewrk preferences` and `/preferences` show the folder's preferences, as they are now."""

from __future__ import annotations

import mewrk_jupyter as mw
from tests.widget.recording import RecordingWidget


def test_preferences_are_shown_in_a_notebook_without_a_session(mewrk):
    shown = mewrk("preferences")
    assert "| `confirm_delete` | `false` | true or false |" in shown
    assert "| `keep_user_tokens` | `64,000` | a whole number from 0 to 128,000 |" in shown
    assert "| `handoff_threshold` | `80` | a whole number from 20 to 97 (percent of the window) |" in shown
    mw.set_preferences(confirm_delete=True)
    assert "| `confirm_delete` | `true` |" in mewrk("preferences")


def test_the_composer_says_them_in_a_sentence_with_the_file_s_problem(mewrk):
    mewrk("new")
    from mewrk_jupyter import magics

    session = magics.current_session()
    (session.workspace.home / "preferences.yaml").write_text("native_threshold: 99\n")
    view = RecordingWidget(session)
    try:
        view.hello()
        answer = view.do("command", text="/preferences")
    finally:
        view.close()
    assert answer["ok"]
    assert answer["message"].startswith(
        "preferences.yaml: native_threshold must be a whole number from 20 to 97 (percent of the window), not 99 — this file is left out"
    )
    assert (
        "Preferences: confirm_delete false, auto_compaction true, handoff_threshold 80" in answer["message"]
    )
    assert "mw.set_preferences(confirm_delete=True)" in answer["message"]
