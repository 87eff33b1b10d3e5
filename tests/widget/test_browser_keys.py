"""Keys pressed inside the widget stay there: JupyterLab's one-letter notebook shortcuts (D D deletes a cell,
A and B insert one, X cuts, M makes Markdown) never reach the notebook, whatever element of the widget has
the focus, while the widget's own keys keep working."""

from __future__ import annotations

from playwright.sync_api import Locator, Page, expect

from .notebook import Notebook

# Command mode's one-key and two-key shortcuts (no Enter: on a button it is a click, rightly).
NOTEBOOK_KEYS = ["d", "d", "x", "a", "b", "m", "c", "v", "Shift+V", "y", "1", "Shift+M", "z"]

# Every element of the widget a person can focus with a click or Tab, text boxes aside (they type the key).
FOCUSABLE = "button:not(:disabled), summary, a[href], [tabindex]:not(input):not(textarea):not(select)"


def notebook_cells(page: Page) -> list[tuple[str, str]]:
    """Each cell of the open notebook: its type and its source, as JupyterLab shows them."""
    return page.evaluate(
        """() => [...document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell')]
             .map(c => [c.classList.contains('jp-MarkdownCell') ? 'markdown' : 'code',
                        c.querySelector('.jp-InputArea-editor .cm-content')?.innerText ?? ''])"""
    )


def press_everywhere(page: Page, root: Locator) -> int:
    """Focus each focusable element of the widget in turn and press the notebook's keys on it."""
    elements = root.locator(FOCUSABLE)
    count = elements.count()
    for i in range(count):
        element = elements.nth(i)
        if not element.is_visible():
            continue
        element.focus()
        expect(element).to_be_focused()
        for key in NOTEBOOK_KEYS:
            page.keyboard.press(key)
    return count


def test_notebook_shortcuts_pressed_in_the_widget_leave_the_notebook_as_it_was(lab, page):
    nb = Notebook.open(page, lab)
    nb.run("%load_ext mewrk_jupyter")
    widget_cell = nb.run("%mewrk new")
    nb.run('%%mewrk\nPlease look around.\ncall: ls {"path": "."}')
    root = widget_cell.locator(".mw-root")
    reply = root.locator(".mw-card[data-kind='model_reply']").last
    expect(reply).to_be_visible()
    cells = notebook_cells(page)
    assert [source for _, source in cells[:3]] == [
        "%load_ext mewrk_jupyter",
        "%mewrk new",
        '%%mewrk\nPlease look around.\ncall: ls {"path": "."}',
    ]

    # The newcomer's keys, on a card they clicked (the notebook is in command mode then).
    reply.locator(".mw-card-body").click()
    expect(reply).to_be_focused()
    for key in ["d", "d", "b", "d", "d", "x", "a", "b", "m"]:
        page.keyboard.press(key)
    assert notebook_cells(page) == cells

    # Every other focusable element: the cards, the header, the composer's buttons, each panel's controls.
    assert press_everywhere(page, root) > 5
    for opener in ["[data-testid='mw-history-button']", "[data-testid='mw-ring']"]:
        root.locator(opener).click()
        expect(root.locator("[data-testid='mw-panel']")).to_be_visible()
        press_everywhere(page, root)
    for command in ["/help", "/settings"]:
        root.locator("[data-testid='mw-input']").fill(command)
        root.locator("[data-testid='mw-input']").press("Control+Enter")
        expect(root.locator("[data-testid='mw-panel']")).to_have_attribute("data-panel", command[1:])
        press_everywhere(page, root)

    # The card menu (it floats over the page, outside the cell).
    reply.focus()
    page.keyboard.press("Shift+F10")
    menu = page.locator(".mw-menu")
    expect(menu).to_be_visible()
    for key in NOTEBOOK_KEYS:
        page.keyboard.press(key)
    expect(menu).to_be_visible()
    page.keyboard.press("Escape")
    expect(menu).to_have_count(0)
    assert notebook_cells(page) == cells

    # The widget's own keys still act: Delete removes the focused card, Ctrl+Z brings it back.
    cards = root.locator(".mw-card")
    before = cards.count()
    reply.locator(".mw-card-body").click()
    page.keyboard.press("Delete")
    expect(cards).to_have_count(before - 1)
    root.locator(".mw-card").first.locator(".mw-card-body").click()
    page.keyboard.press("Control+z")
    expect(cards).to_have_count(before)
    assert notebook_cells(page) == cells
