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
    assert (found.handoff_threshold, found.native_threshold, found.keep_user_tokens) == (0.80, 0.90, 64_000)


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
    mw.set_preferences(handoff_threshold=0.5)
    path = workspace / ".mewrk" / "preferences.yaml"
    before = path.read_bytes()
    with pytest.raises(mw.InvalidInput, match="native_threshold must be a number from 0.20 to 0.97, not 2"):
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
