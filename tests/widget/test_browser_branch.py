"""Branch from the card menu, open the branch in place, edit it, and go back — in JupyterLab and Chromium."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook, edit_card
from .test_browser import widget_cell


def test_branch_here_opens_in_place_edits_land_in_the_branch_and_back_returns(lab, page):
    nb = Notebook.open(page, lab)
    code = ATTACH + "s = mw.Session.new(title='original')\ns.send('first question', wait=True)\ns.widget()"
    _, root = widget_cell(nb, code)
    original_id = nb.print_value("s.id")
    cards = root.locator(".mw-card")
    expect(cards).to_have_count(2)
    header = root.locator(".mw-header .mw-title")
    expect(header).to_contain_text("original · ")
    back = root.locator("[data-testid='mw-back']")
    expect(back).to_be_hidden()

    question = root.locator(".mw-card[data-kind='user_input']")
    question.click(button="right")
    page.locator(".mw-menu [data-testid='branch']").click()
    notice = root.locator("[data-testid='mw-notice']")
    expect(notice).to_contain_text(
        re.compile(
            r"Branched “original” at your message “first question” into “original \(branch\)” \(id \w+\): 1 card"
        )
    )
    assert "Session.open" not in notice.inner_text()  # words, not a Python snippet
    branch_id = nb.print_value("[x.id for x in mw.list_sessions() if x.parent_id == s.id][0]")
    assert nb.print_value("[c.kind for c in s.cards]") == "['user_input', 'model_reply']"  # not moved yet

    notice.locator("[data-testid='mw-notice-offer']").click()
    expect(header).to_have_text(f"original (branch) · {branch_id} · offline/echo")
    expect(back).to_have_text("← back to “original”")
    expect(cards).to_have_count(1)  # the branch ends at the question
    expect(cards.first).to_contain_text("first question")
    expect(notice).to_contain_text(f"Switched to “original (branch)” (id {branch_id})")

    # An edit made here lands in the branch, not in the session the widget was opened on.
    question = root.locator(".mw-card[data-kind='user_input']")
    edit_card(page, question, ["asked again in the branch"])
    expect(question).to_contain_text("asked again in the branch")
    branch_cards = f"[(c.kind, c.text) for c in mw.Session.open({branch_id!r}).cards]"
    assert nb.print_value(branch_cards) == "[('user_input', 'asked again in the branch')]"
    assert nb.print_value("[c.text for c in s.cards][0]") == "first question"

    back.click()
    expect(header).to_have_text(f"original · {original_id} · offline/echo")
    expect(back).to_be_hidden()
    expect(cards).to_have_count(2)
    expect(cards.first).to_contain_text("first question")
    expect(root).not_to_contain_text("asked again in the branch")
