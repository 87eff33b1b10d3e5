"""The context economy in a real JupyterLab and Chromium (#39): a file read twice on the offline echo
model makes the first read stale; the dashboard offers "Prune stale (1, ≈k tokens)", whose confirm says
what it saves and what it spends of the cache; the card keeps its stub and one undo brings the result
back. A card's menu prunes that card, a box selection's its tool results; an open editor shows what saving spends of the prompt cache."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook
from .test_browser import widget_cell

SETUP = ATTACH + (
    "import os, tempfile\n"
    "os.chdir(tempfile.mkdtemp(dir='.'))  # a workspace of its own\n"
    "open('a.py', 'w').write('x = 1\\n' * 40)\n"
    "s = mw.Session.new()\n"
    "for _ in range(2):\n"
    '    s.send(\'call: read {"path": "a.py"}\', wait=True)\n'
    "s.widget()"
)
STUB = "[pruned: read of a.py — 40 lines"


def test_the_dashboard_prunes_the_stale_read_after_saying_what_it_costs_and_undo_brings_it_back(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, SETUP)
    calls = root.locator(".mw-card[data-kind='tool_call']")
    expect(calls).to_have_count(2)
    offer = root.locator("[data-testid='mw-prune-stale']")
    tokens = nb.print_value("s.stale().tokens")
    expect(offer).to_have_text(f"Prune stale (1, ≈{tokens} tokens)")

    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.accept()))
    offer.click()
    expect(calls.nth(0)).to_contain_text(STUB)
    expect(calls.nth(1)).not_to_contain_text("[pruned:")
    assert re.fullmatch(
        r"Prune 1 card\? It saves ≈\d+ tokens; one undo brings them back\.\n\n"
        r"From the first pruned card on: \d+ tokens from the cache, \d+ tokens sent anew · \$0\.00; "
        r"unchanged: \d+ tokens from the cache, \d+ tokens sent anew · \$0\.00\.",
        asked[0],
    ), asked
    expect(root.locator("[data-testid='mw-notice']")).to_contain_text("Pruned 1 card: ≈")
    expect(offer).to_be_hidden()  # nothing stale is left
    assert (
        nb.print_value("[c.result[:8] for c in s.cards if c.kind == 'tool_call']")
        == "['[pruned:', '     1\\tx']"
    )

    calls.nth(1).locator(".mw-card-head").click()
    page.keyboard.press("Control+z")
    expect(calls.nth(0)).not_to_contain_text("[pruned:")
    expect(offer).to_have_text(f"Prune stale (1, ≈{tokens} tokens)")

    # A card's menu prunes that card alone, after the same confirm.
    calls.nth(1).click(button="right")
    page.once("dialog", lambda dialog: dialog.accept())
    page.locator(".mw-menu [data-testid='prune']").click()
    expect(calls.nth(1)).to_contain_text(STUB)
    expect(calls.nth(0)).not_to_contain_text("[pruned:")

    # A box selection from one call to the other prunes its tool results alone.
    calls.nth(1).locator(".mw-card-head").click()
    page.keyboard.press("Control+z")
    expect(calls.nth(1)).not_to_contain_text("[pruned:")
    calls.nth(0).scroll_into_view_if_needed()
    start = calls.nth(0).locator(".mw-card-head").bounding_box()
    end = calls.nth(1).locator(".mw-card-head").bounding_box()
    page.keyboard.down("Control")
    page.mouse.move(start["x"] + 60, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + 60, end["y"] + end["height"] / 2, steps=5)
    page.mouse.up()
    page.keyboard.up("Control")
    expect(root.locator(".mw-card.mw-selected")).to_have_count(
        5
    )  # the calls, and the messages and replies between
    calls.nth(1).click(button="right")
    entry = page.locator(".mw-menu [data-testid='prune']")
    expect(entry).to_have_text("Prune 2 of them")
    page.once("dialog", lambda dialog: dialog.accept())
    entry.click()
    expect(calls.nth(0)).to_contain_text(STUB)
    expect(calls.nth(1)).to_contain_text(STUB)
    expect(root.locator(".mw-card[data-kind='model_reply']").nth(1)).not_to_contain_text("[pruned:")


def test_an_open_editor_and_the_delete_confirm_show_what_the_change_spends_of_the_prompt_cache(lab, page):
    nb = Notebook.open(page, lab)
    confirming = "os.makedirs('.mewrk', exist_ok=True)\nopen('.mewrk/preferences.yaml', 'w').write('confirm_delete: true\\n')\n"
    _, root = widget_cell(nb, SETUP.replace("s = mw.Session.new()", confirming + "s = mw.Session.new()"))
    message = root.locator(".mw-card[data-kind='user_input']").first
    message.hover()
    message.locator("[data-act='edit']").click()
    expect(message.locator("textarea")).to_be_focused()
    line = message.locator("[data-testid='mw-cache-preview']")
    expect(line).to_have_text(
        re.compile(
            r"^Editing this card: \d+ tokens from the cache, \d+ tokens sent anew · \$0\.00; "
            r"unchanged: \d+ tokens from the cache, \d+ tokens sent anew · \$0\.00\.$"
        )
    )
    page.keyboard.press("Escape")
    expect(line).to_have_count(0)

    # With "confirm before delete" on, the confirm says what the delete spends of the cache; declined, it
    # deletes nothing.
    asked: list[str] = []
    page.once("dialog", lambda dialog: (asked.append(dialog.message), dialog.dismiss()))
    reply = root.locator(".mw-card[data-kind='model_reply']").last
    reply.hover()
    reply.locator("[data-act='delete']").click()
    for _ in range(100):  # the confirm comes once the kernel answered the preview
        if asked:
            break
        page.wait_for_timeout(100)
    assert re.fullmatch(
        r"Delete this card\?\n\nDeleting here: \d+ tokens from the cache, \d+ tokens sent anew · \$0\.00; "
        r"unchanged: \d+ tokens from the cache, \d+ tokens sent anew · \$0\.00\.",
        asked[0] if asked else "",
    ), asked
    assert nb.print_value("len(s.cards)") == "8"  # declined: nothing went
