"""The header links a handover session to its original and back — in JupyterLab and Chromium (C3, C5)."""

from __future__ import annotations

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook
from .test_browser import widget_cell


def test_the_header_links_the_original_and_its_handover_each_opening_the_other_in_place(lab, page):
    nb = Notebook.open(page, lab)
    code = ATTACH + "s = mw.Session.new(title='plan')\ns.send('first question', wait=True)\ns.widget()"
    _, root = widget_cell(nb, code)
    original_id = nb.print_value("s.id")
    header = root.locator(".mw-header .mw-title")
    expect(header).to_contain_text("plan · ")
    expect(root.locator("[data-testid='mw-handover']")).to_have_count(0)

    nb.run("h = s.compact_now()")  # the view shows the new link as it happens
    handover_id = nb.print_value("h.id")
    onward = root.locator("[data-testid='mw-handover']")
    expect(onward).to_have_text("“plan-handover-1”")
    expect(root.locator("[data-testid='mw-session-links']")).to_have_text("continued in “plan-handover-1”")

    onward.click()
    expect(header).to_have_text(f"plan-handover-1 · {handover_id} · offline/echo")
    backward = root.locator("[data-testid='mw-handover-of']")
    expect(backward).to_have_text("“plan”")
    expect(root.locator(".mw-card")).to_have_count(1)  # the native-compaction card (echo compacts by itself)
    expect(root.locator("[data-testid='mw-handover']")).to_have_count(0)

    backward.click()
    expect(header).to_have_text(f"plan · {original_id} · offline/echo")
    expect(root.locator("[data-testid='mw-handover']")).to_have_text("“plan-handover-1”")
