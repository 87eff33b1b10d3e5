"""What a newcomer does in JupyterLab and Chromium: typing with Enter, restarting the kernel, opening a
second view, scrolling — each checked on screen and kernel-side."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook, edit_card, type_lines
from .test_browser import widget_cell


def test_enter_makes_a_new_line_in_the_composer_and_the_card_editor(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, ATTACH + "s = mw.Session.new()\ns.widget()")
    cells_before = nb.cells.count()
    box = root.locator("[data-testid='mw-input']")
    box.click()
    type_lines(page, ["line one", 'call: ls {"path": "."}'])
    page.keyboard.press("Shift+Enter")
    page.keyboard.type("line three")
    expect(box).to_have_value('line one\ncall: ls {"path": "."}\nline three')
    page.keyboard.press("Control+Enter")  # still sends
    expect(root.locator(".mw-card[data-kind='tool_call']")).to_have_count(1)
    expect(box).to_have_value("")
    assert nb.cells.count() == cells_before  # Enter and Shift+Enter ran no notebook cell
    first = nb.print_value("s.cards[0].text")
    assert first.splitlines() == ["line one", 'call: ls {"path": "."}', "line three"]

    reply = root.locator(".mw-card[data-kind='model_reply']").last
    expect(reply).to_be_visible()
    edit_card(page, reply, ["first", "second"])  # Enter makes the new line; Ctrl+Enter still saves
    assert nb.print_value("s.cards[-1].text.splitlines()") == "['first', 'second']"


def test_a_view_whose_kernel_restarted_says_so_and_disables_its_controls(lab, page):
    nb = Notebook.open(page, lab)
    code = (
        ATTACH
        + 's = mw.Session.new()\ns.send(\'call: write {"path": "a.txt", "content": "x"}\', wait=True)\ns.widget()'
    )
    _, root = widget_cell(nb, code)
    approve = root.locator("[data-testid='mw-approve']")
    expect(approve).to_be_enabled()
    box = root.locator("[data-testid='mw-input']")
    box.fill("typed before the restart")

    page.get_by_role("menuitem", name="Kernel").click()  # as a person does: Kernel → Restart Kernel…
    page.get_by_role("menuitem", name="Restart Kernel…").click()
    page.locator(".jp-Dialog .jp-mod-accept").click()  # the dialog's red Restart button

    lost = root.locator("[data-testid='mw-lost']")
    expect(lost).to_be_visible()
    expect(lost).to_contain_text("lost its kernel")
    expect(lost).to_contain_text(re.compile(r"re-run this cell or `%mewrk use [0-9a-f]{10}`"))
    expect(root.locator("[data-testid='mw-state']")).to_have_text("disconnected")
    expect(root.locator("[data-testid='mw-send']")).to_be_disabled()
    expect(root.locator("[data-testid='mw-stop']")).to_be_disabled()
    expect(root.locator("[data-testid='mw-approve']")).to_be_disabled()
    expect(box).to_have_value("typed before the restart")  # nothing typed is lost
    expect(root.locator(".mw-card-tools button")).to_have_count(0)


def test_after_a_restart_rerunning_the_cell_brings_its_session_back_in_the_view(lab, page):
    nb = Notebook.open(page, lab)
    cell = nb.run("%load_ext mewrk_jupyter\n%mewrk new notes")
    root = cell.locator(".mw-root")
    expect(root).to_be_visible()
    box = root.locator("[data-testid='mw-input']")
    box.fill("remember the milk")
    box.press("Control+Enter")
    expect(root.locator(".mw-card[data-kind='model_reply']")).to_have_count(1)
    session_id = nb.print_value("__import__('mewrk_jupyter').magics.current_session().id")
    sessions = nb.print_value(
        "len(__import__('mewrk_jupyter').list_sessions())"
    )  # the lab's folder is shared

    page.get_by_role("menuitem", name="Kernel").click()
    page.get_by_role("menuitem", name="Restart Kernel…").click()
    page.locator(".jp-Dialog .jp-mod-accept").click()
    lost = root.locator("[data-testid='mw-lost']")
    expect(lost).to_contain_text(
        f"Run `%load_ext mewrk_jupyter` again, then re-run this cell or `%mewrk use {session_id}`"
    )
    expect(page.get_by_text(re.compile(r"Python 3 \(ipykernel\) \| Idle"))).to_be_visible()

    # The person does what it says: the cell that made the session, run again.
    cell.locator(".cm-content").click()
    page.keyboard.press("Control+Enter")
    root = cell.locator(".mw-root")
    expect(root.locator("[data-testid='mw-lost']")).to_be_hidden()
    expect(root.locator(".mw-card[data-kind='user_input']")).to_contain_text("remember the milk")
    expect(cell.locator(".jp-OutputArea-output").first).to_contain_text(
        f"This cell's session {session_id} “notes”"
    )
    assert nb.print_value("__import__('mewrk_jupyter').magics.current_session().id") == session_id
    assert nb.print_value("len(__import__('mewrk_jupyter').list_sessions())") == sessions  # none was made


def test_notices_about_a_running_turn_clear_when_it_ends(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, ATTACH + "s = mw.Session.new(model='offline/slow')\ns.widget()")
    box = root.locator("[data-testid='mw-input']")
    box.click()
    type_lines(page, ["go", "long: 600"])
    page.keyboard.press("Control+Enter")
    question = root.locator(".mw-card[data-kind='user_input']")
    expect(root.locator("[data-testid='mw-stop']")).to_be_enabled()

    question.hover()
    question.locator("[data-act='edit']").click()
    expect(question.locator("textarea")).to_be_focused()
    page.keyboard.type(" and more")
    page.keyboard.press("Control+Enter")  # refused while the model runs, said on the card
    error = question.locator(".mw-card-error")
    expect(error).to_contain_text("The model is running")

    root.locator("[data-testid='mw-stop']").click()
    notice = root.locator("[data-testid='mw-notice']")
    expect(root.locator("[data-testid='mw-state']")).to_have_text("idle")
    expect(error).to_be_hidden()  # the refusal described the turn, which has ended
    expect(notice).not_to_contain_text("Stopping")
    assert nb.print_value("s.state") == "idle"
    question.locator("textarea").click()  # the editor kept the text: saving now works
    page.keyboard.press("Control+Enter")
    expect(question.locator("textarea")).to_have_count(0)
    assert nb.print_value("s.cards[0].text") == "go\nlong: 600 and more"


# How far the newest card's bottom is from the bottom of the visible part of its timeline, in pixels
# (0 or less: the newest card is in sight).
NEWEST_BELOW = """root => {
  const scroller = root.querySelector('.mw-timeline');
  const cards = [...root.querySelectorAll('.mw-card')];
  const newest = cards.reduce((a, b) => (Number(b.dataset.index) > Number(a.dataset.index) ? b : a));
  return newest.getBoundingClientRect().bottom - scroller.getBoundingClientRect().bottom;
}"""


def _newest_in_sight(root) -> None:
    root.page.wait_for_function(f"root => ({NEWEST_BELOW})(root) <= 1", arg=root.element_handle())


def test_new_views_open_at_the_end_and_follow_it_until_the_person_scrolls_away(lab, page):
    nb = Notebook.open(page, lab)
    nb.run("%load_ext mewrk_jupyter\n%mewrk new")
    expect(page.locator(".mw-root")).to_have_count(1)
    nb.run(
        "from mewrk_jupyter.magics import current_session\ns = current_session()\n"
        "for i in range(10):\n    s.send(f'question {i}\\nlong: 150', wait=True)\n"
        "s.send('the last question', wait=True)"
    )
    nb.run("%mewrk show")
    roots = page.locator(".mw-root")
    expect(roots).to_have_count(2)
    first, second = roots.nth(0), roots.nth(1)
    for root in (first, second):
        expect(root.locator(".mw-card[data-kind='model_reply']").last).to_contain_text("the last question")
        _newest_in_sight(root)

    # The person scrolls the second view up: a new reply must not pull it back down.
    timeline = second.locator(".mw-timeline")
    timeline.hover()
    page.mouse.wheel(0, -1500)
    page.wait_for_function(
        "el => el.scrollTop + el.clientHeight < el.scrollHeight - 200", arg=timeline.element_handle()
    )
    top = timeline.evaluate("el => el.scrollTop")
    nb.run("s.send('one more', wait=True)")
    expect(first.locator(".mw-card[data-kind='model_reply']").last).to_contain_text("one more")
    _newest_in_sight(first)  # the view left at the end follows it
    assert abs(timeline.evaluate("el => el.scrollTop") - top) <= 1

    # A view in a second notebook opens at the end too.
    sid = nb.print_value("s.id")
    other = Notebook.open(page, lab)
    _, root = widget_cell(other, ATTACH + f"mw.Session.open('{sid}').widget()")
    expect(root.locator(".mw-card[data-kind='model_reply']").last).to_contain_text("one more")
    _newest_in_sight(root)


# True when a person can see the element and click it: the topmost thing at its centre is the element.
CLICKABLE_HERE = """el => {
  const r = el.getBoundingClientRect();
  const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
  return !!hit && (hit === el || el.contains(hit));
}"""


def test_a_new_tool_call_form_opens_in_sight(lab, page):
    nb = Notebook.open(page, lab)
    code = ATTACH + (
        "s = mw.Session.new()\nfor i in range(4):\n    s.send(f'question {i}\\nlong: 120', wait=True)\ns.widget()"
    )
    _, root = widget_cell(nb, code)
    last = root.locator(".mw-card[data-kind='model_reply']").last
    expect(last).to_contain_text("the timeline")
    height = last.bounding_box()["height"]
    last.click(button="right", position={"x": 40, "y": height - 6})  # lower half: insert below
    page.locator(".mw-menu [data-testid='insert-tool_call']").click()
    form = root.locator(".mw-card.mw-draft")
    expect(form.locator("[data-testid='mw-tool-form']")).to_be_visible()
    for testid in ("mw-execute", "mw-save"):
        button = form.locator(f"[data-testid='{testid}']")
        page.wait_for_function(CLICKABLE_HERE, arg=button.element_handle())  # no scrolling by the test

    # The same for a form opened above an early card, far from the end of a long timeline.
    root.locator(".mw-card.mw-draft").locator("button", has_text="Cancel").click()
    expect(root.locator(".mw-card.mw-draft")).to_have_count(0)
    root.locator(".mw-timeline").evaluate("el => { el.scrollTop = 0; }")
    first = root.locator(".mw-card[data-index='0']")
    first.click(button="right")
    page.locator(".mw-menu [data-testid='insert-tool_call']").click()
    execute = root.locator(".mw-card.mw-draft [data-testid='mw-execute']")
    page.wait_for_function(CLICKABLE_HERE, arg=execute.element_handle())


def test_a_mewrk_cell_keeps_the_persons_line_breaks(lab, page):
    nb = Notebook.open(page, lab)
    nb.run("%load_ext mewrk_jupyter\n%mewrk new")
    cell = nb.run("%%mewrk\nfirst line\nsecond line\n\n- a point")
    shown = cell.locator(".jp-OutputArea-output").last
    expect(shown).to_contain_text("You said")
    lines = [line.strip() for line in shown.inner_text().splitlines() if line.strip()]
    assert "first line" in lines and "second line" in lines  # two lines, not "first line second line"
