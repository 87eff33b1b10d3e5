"""The timeline widget in a real JupyterLab and Chromium: what a person does and sees, checked kernel-side."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook


def widget_cell(nb: Notebook, code: str):
    cell = nb.run(code)
    root = cell.locator(".mw-root")
    expect(root).to_be_visible()
    return cell, root


def test_edit_in_the_widget_then_undo_changes_the_kernel_session(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, ATTACH + "s = mw.Session.new()\ns.send('hello', wait=True)\ns.widget()")
    reply = root.locator(".mw-card[data-kind='model_reply']")
    expect(reply).to_contain_text("hello")
    original = nb.print_value("s.cards[-1].text")
    assert "hello" in original

    reply.hover()
    reply.locator("[data-act='edit']").click()
    area = reply.locator("textarea")
    expect(area).to_be_focused()
    area.fill("Edited **in the browser**")
    area.press("Control+Enter")
    expect(reply.locator("textarea")).to_have_count(0)
    expect(reply.locator(".mw-card-body strong")).to_have_text("in the browser")
    expect(reply.locator(".mw-card-foot")).to_contain_text("edited")
    assert nb.print_value("s.cards[-1].text") == "Edited **in the browser**"

    cells_before = nb.cells.count()
    reply.locator(".mw-card-body").click()
    expect(reply).to_be_focused()
    page.keyboard.press("Control+z")
    expect(reply).not_to_contain_text("in the browser")
    expect(reply).to_contain_text("hello")
    assert nb.print_value("s.cards[-1].text") == original

    reply.locator(".mw-card-body").click()
    page.keyboard.press("Control+x")  # redo, not "cut cell": JupyterLab's shortcuts stay out of the widget
    expect(reply.locator(".mw-card-body strong")).to_have_text("in the browser")
    assert nb.cells.count() == cells_before + 1  # only the print cell was added; none was cut
    assert nb.print_value("s.cards[-1].text") == "Edited **in the browser**"


def test_context_menu_inserts_above_by_the_upper_half_and_escape_cancels(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(
        nb, ATTACH + "s = mw.Session.new()\ns.send('first question', wait=True)\ns.widget()"
    )
    reply = root.locator(".mw-card[data-kind='model_reply']")
    expect(reply).to_be_visible()
    box = reply.bounding_box()
    page.mouse.click(box["x"] + 40, box["y"] + 4, button="right")  # upper half: insert before
    menu = page.locator(".mw-menu")
    expect(menu).to_be_visible()
    expect(menu).to_have_attribute("data-jp-suppress-context-menu", "")
    expect(menu.locator(".mw-menu-heading")).to_have_text("Insert above")
    expect(page.locator(".lm-Menu")).to_have_count(0)  # JupyterLab's own menu stayed away
    menu.locator("[data-testid='insert-system_prompt']").click()
    draft = root.locator(".mw-card.mw-draft")
    draft.locator("textarea").fill("Answer in one line.")
    draft.locator("textarea").press("Control+Enter")
    expect(root.locator(".mw-card.mw-draft")).to_have_count(0)
    expect(root.locator(".mw-card").nth(1)).to_contain_text("Answer in one line.")
    assert nb.print_value("[c.kind for c in s.cards]") == "['user_input', 'system_prompt', 'model_reply']"

    # Keyboard: Shift+F10 on a focused card opens the menu and inserts after it; Esc cancels the draft.
    reply.locator(".mw-card-body").click()
    page.keyboard.press("Shift+F10")
    expect(menu.locator(".mw-menu-heading")).to_have_text("Insert below")
    page.keyboard.press("ArrowDown")  # the first entry is focused on open; move to "You"
    expect(menu.locator("[data-testid='insert-user_input']")).to_be_focused()
    page.keyboard.press("Enter")
    draft = root.locator(".mw-card.mw-draft")
    expect(draft.locator("textarea")).to_be_focused()
    page.keyboard.press("Escape")
    expect(root.locator(".mw-card.mw-draft")).to_have_count(0)
    assert nb.print_value("len(s.cards)") == "3"

    # A draft whose card is deleted elsewhere keeps its text and is saved at the end: nothing typed is lost.
    reply.locator(".mw-card-body").click()
    page.keyboard.press("Shift+F10")
    page.keyboard.press("ArrowDown")
    page.keyboard.press("Enter")
    draft = root.locator(".mw-card.mw-draft")
    draft.locator("textarea").fill("still here")
    assert nb.print_value("len(s.delete(s.cards[-1].id))") == "1"
    expect(root.locator(".mw-card[data-kind='model_reply']")).to_have_count(0)
    expect(draft.locator("textarea")).to_have_value("still here")
    draft.locator("textarea").press("Control+Enter")
    expect(root.locator(".mw-card.mw-draft")).to_have_count(0)
    assert nb.print_value("[c.kind for c in s.cards]") == "['user_input', 'system_prompt', 'user_input']"


def test_markdown_of_a_reply_is_sanitised(lab, page):
    nb = Notebook.open(page, lab)
    payload = '<img src=x onerror="window.__mewrk_pwned=1"><script>window.__mewrk_pwned=2</script> *ok*'
    _, root = widget_cell(nb, ATTACH + f"s = mw.Session.new()\ns.send({payload!r}, wait=True)\ns.widget()")
    reply = root.locator(".mw-card[data-kind='model_reply']")
    expect(reply.locator("em")).to_have_text("ok")
    assert page.evaluate("window.__mewrk_pwned") is None
    assert reply.locator("script").count() == 0
    assert reply.locator("[onerror]").count() == 0


def test_every_view_disables_send_while_a_turn_runs_and_stop_ends_it(lab, page):
    nb = Notebook.open(page, lab)
    nb.run(ATTACH + "s = mw.Session.new(model='offline/slow')\ns.widget()")
    nb.run("s.widget()")  # a second view of the same session
    roots = page.locator(".mw-root")
    expect(roots).to_have_count(2)
    first, second = roots.nth(0), roots.nth(1)
    dashboard = first.locator("[data-testid='mw-dashboard']")
    expect(dashboard).to_have_text(
        re.compile(r"Agent: main · offline/slow · Reasoning: off · Context: ≈0 / 32k \(0 %\)")
    )
    expect(dashboard).to_have_attribute("data-level", "ok")

    first.locator("[data-testid='mw-input']").fill("talk\nlong: 400")
    first.locator("[data-testid='mw-send']").click()
    for root in (first, second):
        expect(root.locator("[data-testid='mw-send']")).to_be_disabled()
        expect(root.locator("[data-testid='mw-stop']")).to_be_enabled()
    expect(second.locator(".mw-card[data-kind='model_reply']")).to_contain_text("the timeline")
    expect(first.locator("[data-testid='mw-input']")).to_have_value("")

    second.locator("[data-testid='mw-stop']").click()  # any view stops the turn (R3)
    for root in (first, second):
        expect(root.locator("[data-testid='mw-send']")).to_be_enabled()
        expect(root.locator(".mw-card[data-kind='model_reply'] .mw-card-foot")).to_contain_text("interrupted")
    assert nb.print_value("(s.state, s.cards[-1].interrupted)") == "('idle', True)"
    text = nb.print_value("len(s.cards[-1].text)")
    shown = first.locator(".mw-card[data-kind='model_reply'] .mw-card-body").inner_text()
    assert int(text) >= len(shown.strip()) > 0


def test_box_select_deletes_many_and_one_undo_restores_them(lab, page):
    nb = Notebook.open(page, lab)
    code = ATTACH + "s = mw.Session.new()\ns.send('one', wait=True)\ns.send('two', wait=True)\ns.widget()"
    _, root = widget_cell(nb, code)
    cards = root.locator(".mw-card")
    expect(cards).to_have_count(4)
    before = nb.print_value("[c.id for c in s.cards]")

    start, end = cards.nth(0).bounding_box(), cards.nth(1).bounding_box()
    page.keyboard.down("Control")  # Ctrl+drag selects a range (T10)
    page.mouse.move(start["x"] + 60, start["y"] + start["height"] / 2)
    page.mouse.down()
    page.mouse.move(end["x"] + 60, end["y"] + end["height"] / 2, steps=5)
    page.mouse.up()
    page.keyboard.up("Control")
    expect(root.locator(".mw-card.mw-selected")).to_have_count(2)

    cards.nth(1).click(button="right")
    page.locator(".mw-menu [data-testid='delete']").click()
    expect(cards).to_have_count(2)
    assert nb.print_value("len(s.cards)") == "2"

    cards.nth(0).locator(".mw-card-body").click()
    page.keyboard.press("Control+z")
    expect(cards).to_have_count(4)
    assert nb.print_value("[c.id for c in s.cards]") == before


def test_refusals_show_in_plain_words_on_the_card_or_the_composer(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, ATTACH + "s = mw.Session.new(model='offline/slow')\ns.widget()")
    expect(root.locator(".mw-empty")).to_contain_text("The timeline is empty")
    root.locator(".mw-empty").click()
    expect(root).to_be_focused()
    page.keyboard.press("Control+z")  # nothing to undo yet: the composer says so
    notice = root.locator("[data-testid='mw-notice']")
    expect(notice).to_have_text("Nothing to undo in this session.")
    expect(notice).to_have_attribute("data-level", "error")

    nb.run("run = s.send('go\\nlong: 600')")  # in a kernel the turn runs in the background
    question = root.locator(".mw-card[data-kind='user_input']")
    expect(question).to_be_visible()
    expect(root.locator("[data-testid='mw-send']")).to_be_disabled()
    question.click(button="right")
    page.locator(".mw-menu [data-testid='fork']").click()
    error = question.locator(".mw-card-error")
    expect(error).to_contain_text("The model is running")
    assert "Traceback" not in root.inner_text()
    root.locator("[data-testid='mw-stop']").click()
    expect(root.locator("[data-testid='mw-send']")).to_be_enabled()
    assert nb.print_value("[x.id for x in mw.list_sessions() if x.parent_id == s.id]") == "[]"  # no fork


def test_the_dashboard_turns_amber_then_red(lab, page):
    nb = Notebook.open(page, lab)
    code = ATTACH + "s = mw.Session.new(model='offline/tiny')\ns.send('x' * 3300, wait=True)\ns.widget()"
    _, root = widget_cell(nb, code)
    dashboard = root.locator("[data-testid='mw-dashboard']")
    # The last request was under 1k; the next one carries the echoed reply as well, ≈1.8k of the 2k window,
    # and the dashboard warns of it before it is sent.
    expect(dashboard).to_have_text(
        re.compile(r"Context: last request ≈\d+ / 2k \([1-4]\d %\) · next ≈1\.\dk$")
    )
    expect(dashboard).to_have_attribute("data-level", "amber")
    assert dashboard.inner_text().strip() == nb.print_value("s.context.line()")
    arc = root.locator("[data-testid='mw-ring'] .mw-ring-arc")
    amber = arc.evaluate("el => getComputedStyle(el).stroke")

    root.locator("[data-testid='mw-input']").fill("y" * 400)
    root.locator("[data-testid='mw-input']").press("Control+Enter")
    expect(dashboard).to_have_attribute("data-level", "red")
    red = arc.evaluate("el => getComputedStyle(el).stroke")
    assert amber != red


def test_thousands_of_cards_render_through_a_virtualised_list(lab, page):
    nb = Notebook.open(page, lab)
    code = ATTACH + (
        "s = mw.Session.new()\n"
        "for i in range(1500):\n"
        "    s.insert(mw.UserInput(text=f'card number {i}'))\n"
        "s.widget()"
    )
    _, root = widget_cell(nb, code)
    expect(root.locator(".mw-card").last).to_contain_text("card number 1499")  # opens at the newest card
    assert root.locator(".mw-card").count() < 80
    root.locator(".mw-timeline").evaluate("el => { el.scrollTop = 0; }")
    expect(root.locator(".mw-card[data-index='0']")).to_contain_text("card number 0")
    assert root.locator(".mw-card").count() < 80
