"""The widget reads confirm_delete from the folder's preferences, so a change reaches an open widget (T8)."""

from __future__ import annotations

import time

import mewrk_jupyter as mw
from mewrk_jupyter.widget import timeline as widget_timeline
from tests.conftest import wait_for


def test_set_preferences_reaches_an_open_widget_at_its_next_snapshot(session, widget):
    assert widget.hello("v1")["confirm_delete"] is False
    mw.set_preferences(workspace=session.workspace.root, confirm_delete=True)
    assert widget.hello("v2")["confirm_delete"] is True  # the same widget, not a new one
    mw.set_preferences(workspace=session.workspace.root, confirm_delete=False)
    widget.snapshot()
    assert widget.sent[-1]["type"] == "snapshot" and widget.sent[-1]["confirm_delete"] is False


def test_the_store_watch_tells_open_views_when_the_preference_changes(session, widget, monkeypatch):
    monkeypatch.setattr(widget_timeline, "WATCH_EVERY", 0.05)
    widget.hello("v1")
    mw.set_preferences(workspace=session.workspace.root, confirm_delete=True)
    wait_for(lambda: widget.of("preferences"))
    assert widget.of("preferences") == [{"type": "preferences", "confirm_delete": True}]
    (session.workspace.home / "preferences.yaml").write_text("confirm_delete: false  # by hand\n")
    wait_for(lambda: len(widget.of("preferences")) == 2)
    assert widget.of("preferences")[-1]["confirm_delete"] is False
    time.sleep(0.3)  # several more looks at the folder: an unchanged preference is not said again
    assert len(widget.of("preferences")) == 2


def test_an_invalid_preferences_file_leaves_the_widget_on_the_default(session, widget):
    (session.workspace.home / "preferences.yaml").write_text("confirm_delete: maybe\n")
    assert widget.hello()["confirm_delete"] is False
