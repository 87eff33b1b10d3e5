"""mw.preferences() and mw.set_preferences(): global to the folder, persisted, read by running sessions (T8)."""

from __future__ import annotations

import warnings

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.store import sessions as session_rows
from mewrk_jupyter.store.db import database
from tests.conftest import forget_process_state, run_python


def test_preferences_start_at_their_defaults(workspace):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no notice when there is no file
        found = mw.preferences()
    assert isinstance(found, mw.Preferences)
    assert (found.confirm_delete, found.auto_compaction) == (False, True)
    assert (found.handoff_threshold, found.native_threshold, found.keep_user_tokens) == (80, 90, 64_000)


def test_a_change_is_saved_and_seen_by_a_fresh_process(workspace):
    saved = mw.set_preferences(confirm_delete=True, keep_user_tokens=32_000)
    assert saved.confirm_delete and saved.keep_user_tokens == 32_000
    assert (workspace / ".mewrk" / "preferences.yaml").is_file()
    forget_process_state()
    assert mw.preferences() == saved
    other = run_python(
        "import mewrk_jupyter as mw; p = mw.preferences(); print(p.confirm_delete, p.keep_user_tokens)",
        cwd=workspace,
    )
    assert other.returncode == 0, other.stderr
    assert other.stdout.split() == ["True", "32000"]


def test_a_bad_value_is_refused_and_nothing_changes(workspace):
    mw.set_preferences(handoff_threshold=50)
    path = workspace / ".mewrk" / "preferences.yaml"
    before = path.read_bytes()
    with pytest.raises(
        mw.InvalidInput,
        match=r"native_threshold must be a whole number from 20 to 97 \(percent of the window\), not 2;",
    ):
        mw.set_preferences(confirm_delete=True, native_threshold=2)
    with pytest.raises(mw.InvalidInput, match="There is no preference 'confirm'; the preferences are"):
        mw.set_preferences(confirm=True)
    assert path.read_bytes() == before
    assert mw.preferences().confirm_delete is False


def test_a_hand_written_invalid_file_is_left_out_with_a_notice(workspace):
    (workspace / ".mewrk").mkdir()
    (workspace / ".mewrk" / "preferences.yaml").write_text("confirm_delete: true\nkeep_user_tokens: lots\n")
    with pytest.warns(mw.ConfigNotice) as caught:
        found = mw.preferences()
    assert found == mw.Preferences()  # the defaults act, confirm_delete included
    (text,) = [str(w.message) for w in caught]
    assert text.startswith("preferences.yaml: keep_user_tokens must be a whole number from 0 to 128,000")
    assert "the default preferences are used" in text
    with pytest.warns(mw.ConfigNotice, match="preferences.yaml: keep_user_tokens must be"):
        mw.Session.new()


def test_the_configuration_folder_may_be_mewrk_home(workspace, tmp_path, monkeypatch):
    monkeypatch.setenv("MEWRK_HOME", str(tmp_path / "elsewhere"))
    mw.set_preferences(auto_compaction=False)
    assert (tmp_path / "elsewhere" / "preferences.yaml").read_text() == "auto_compaction: false\n"
    assert not (workspace / ".mewrk" / "preferences.yaml").exists()


def test_preferences_need_no_trust(workspace):
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "local.yaml").write_text(
        "protocol: openai-chat\nbase_url: http://127.0.0.1:9/v1\nmodels:\n  m: {context_window: 1000}\n"
    )
    assert mw.set_preferences(confirm_delete=True).confirm_delete  # the folder is not trusted
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mw.preferences().confirm_delete


def test_confirm_delete_is_no_longer_a_session_setting(workspace):
    with pytest.raises(mw.InvalidInput) as caught:
        mw.Session.new(confirm_delete=True)
    assert str(caught.value) == (
        "confirm_delete is a preference now, shared by every session of the folder: "
        "set it with mw.set_preferences(confirm_delete=True)."
    )


def test_a_session_stored_with_confirm_delete_still_opens(workspace):
    s = mw.Session.new()
    db = database(s.workspace.db_path)
    with db.tx() as conn:
        session_rows.set_settings(conn, s.id, {**s.settings.model_dump(), "confirm_delete": True})
    forget_process_state()
    again = mw.Session.open(s.id)
    assert "confirm_delete" not in again.settings.model_dump()


def test_an_older_file_s_fractions_keep_their_meaning_and_a_notice_says_how_to_write_them(workspace):
    home = workspace / ".mewrk"
    (home / "agents").mkdir(parents=True)
    (home / "preferences.yaml").write_text("confirm_delete: true\nhandoff_threshold: 0.5\n")
    (home / "agents" / "main.yaml").write_text("model: offline/echo\nsummarize_at: 0.7\n")
    with pytest.warns(mw.ConfigNotice) as caught:
        found = mw.preferences()
    assert (found.confirm_delete, found.handoff_threshold) == (True, 50)  # nothing else is left out
    assert [str(w.message) for w in caught] == [
        "preferences.yaml: handoff_threshold: 0.5 is read as 50 % of the window, as before; thresholds "
        "are written in percent now — write `handoff_threshold: 50`."
    ]
    with pytest.warns(mw.ConfigNotice) as made:
        mw.Session.new()
    said = [str(w.message) for w in made]
    assert (
        "agents/main.yaml: summarize_at: 0.7 is read as 70 % of the window, as before; thresholds are "
        "written in percent now — write `summarize_at: 70`." in said
    )
    assert any(text.startswith("preferences.yaml: handoff_threshold: 0.5 is read as 50 %") for text in said)
    # A change through mw.set_preferences writes the old value in percent too, with the same meaning.
    mw.set_preferences(confirm_delete=False)
    assert (home / "preferences.yaml").read_text() == "confirm_delete: false\nhandoff_threshold: 50\n"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert mw.preferences().handoff_threshold == 50


def test_a_new_value_given_as_a_fraction_is_refused_with_the_percent_to_write(workspace):
    with pytest.raises(mw.InvalidInput) as refused:
        mw.set_preferences(native_threshold=0.85)
    assert str(refused.value) == (
        "Preference refused: native_threshold must be a whole number from 20 to 97 (percent of the window), "
        "not 0.85 (in percent: for 85 % of the window write 85); nothing was changed."
    )
    assert not (workspace / ".mewrk" / "preferences.yaml").exists()
