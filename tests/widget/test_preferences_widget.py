"""The widget reads confirm_delete from the folder's preferences, so a change reaches an open widget (T8)."""

from __future__ import annotations

import mewrk_jupyter as mw


def test_set_preferences_reaches_an_open_widget_at_its_next_snapshot(session, widget):
    assert widget.hello("v1")["confirm_delete"] is False
    mw.set_preferences(workspace=session.workspace.root, confirm_delete=True)
    assert widget.hello("v2")["confirm_delete"] is True  # the same widget, not a new one
    mw.set_preferences(workspace=session.workspace.root, confirm_delete=False)
    widget.snapshot()
    assert widget.sent[-1]["type"] == "snapshot" and widget.sent[-1]["confirm_delete"] is False


def test_an_invalid_preferences_file_leaves_the_widget_on_the_default(session, widget):
    (session.workspace.home / "preferences.yaml").write_text("confirm_delete: maybe\n")
    assert widget.hello()["confirm_delete"] is False
