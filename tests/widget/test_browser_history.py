"""The History panel in a real JupyterLab and Chromium: requests numbered in their session, read in words
first, the request as sent one toggle away."""

from __future__ import annotations

import json

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook
from .test_browser import widget_cell


def _send(root, text: str) -> None:
    box = root.locator("[data-testid='mw-input']")
    box.click()
    box.press_sequentially(text)
    box.press("Control+Enter")
    expect(root.locator(".mw-card[data-kind='model_reply']").last).to_contain_text(text)
    expect(root.locator("[data-testid='mw-state']")).to_have_attribute("data-state", "idle")


def test_history_panel_numbers_this_sessions_requests_and_shows_the_edit_in_words(lab, page):
    nb = Notebook.open(page, lab)
    code = ATTACH + (
        "other = mw.Session.new(title='elsewhere')\n"
        "other.send('a request of another session', wait=True)\n"
        "s = mw.Session.new()\n"
        "s.widget()"
    )
    _, root = widget_cell(nb, code)
    _send(root, "first question")

    user = root.locator(".mw-card[data-kind='user_input']")
    user.hover()
    user.locator("[data-act='edit']").click()
    area = user.locator("textarea")
    expect(area).to_be_focused()
    area.press("End")
    area.press_sequentially(", edited")
    area.press("Control+Enter")
    expect(user.locator("textarea")).to_have_count(0)
    expect(user).to_contain_text("first question, edited")
    _send(root, "second question")
    expect(root.locator(".mw-card")).to_have_count(4)

    root.locator("[data-testid='mw-history-button']").click()
    panel = root.locator("[data-testid='mw-panel']")
    rows = panel.locator(".mw-history-row")
    expect(rows).to_have_count(2)
    first, second = rows.nth(0), rows.nth(1)
    expect(first.locator(".mw-history-title")).to_have_text("Request 1")
    expect(second.locator(".mw-history-title")).to_have_text("Request 2")
    expect(first.locator("[data-testid='mw-history-change']")).to_have_text(
        "The first request of this session."
    )
    change = second.locator("[data-testid='mw-history-change']")
    expect(change).to_contain_text("Since request 1: edited You “first question” → “first question, edited”")
    expect(change).to_contain_text("You “second question”")
    sizes = second.locator(".mw-history-sizes")
    expect(sizes).to_contain_text("tools: ls, read, grep, find, write, edit, bash")
    expect(sizes).not_to_contain_text("input_schema")  # tools by name, never their schemas
    messages = second.locator("[data-testid='mw-history-messages']")
    expect(messages).to_contain_text("You: first question, edited")
    expect(messages).to_contain_text("You: second question")
    expect(second.locator("[data-testid='mw-history-received']")).to_contain_text("Model: You said")

    raw = second.locator("[data-testid='mw-history-json']")
    expect(raw).to_be_hidden()  # the readable view comes first; the JSON waits behind the toggle
    toggle = second.get_by_role("button", name="Show the request as sent (raw JSON)")
    toggle.click()
    expect(raw).to_be_visible()
    sent = raw.locator(".mw-json").first
    expect(sent).to_contain_text('model: "offline/echo"')
    for _ in range(8):  # unfold the request level by level, as a person clicks down to the message
        sent.evaluate("el => el.querySelectorAll('details:not([open])').forEach((d) => { d.open = true; })")
        page.wait_for_timeout(50)
    expect(sent).to_contain_text('"first question, edited"')
    expect(sent).to_contain_text('"second question"')
    second.get_by_role("button", name="Hide the raw JSON").click()
    expect(raw).to_be_hidden()

    assert nb.print_value("[h.number for h in s.history]") == "[1, 2]"
    # The store's ids run across sessions; the numbers a person reads do not.
    # (Other tests share this workspace's store, so its ids need not start at 1: only their order counts.)
    ids = json.loads(nb.print_value("[h.id for h in other.history + s.history]"))
    assert ids == sorted(ids) and ids[1:] != [1, 2]  # the other session's request came first
    assert (
        nb.print_value("s.history[1].request['messages'][0]['parts'][0]['text']") == "first question, edited"
    )


def test_a_requests_counts_agree_its_messages_and_the_parts_listed_under_them(lab, page):
    nb = Notebook.open(page, lab)
    code = (
        ATTACH
        + "s = mw.Session.new()\n"
        + 's.send(\'Look around.\\ncall: ls {"path": "."}\', wait=True)\ns.widget()'
    )
    _, root = widget_cell(nb, code)
    expect(root.locator(".mw-card[data-kind='model_reply']").last).to_contain_text("returned")
    root.locator("[data-testid='mw-history-button']").click()
    second = root.locator(".mw-history-row").last
    # The second request: the question, the reply with its call, the call's result.
    sizes = second.locator(".mw-history-sizes")
    expect(sizes).to_contain_text("3 messages")
    listed = second.locator("[data-testid='mw-history-messages']")
    parts = len(listed.locator("pre").inner_text().splitlines())
    assert parts == 4  # You, Model, Tool call, Tool result
    expect(sizes).to_contain_text(f"3 messages in {parts} parts")
    expect(listed.locator("summary")).to_have_text(f"The {parts} parts as sent")
