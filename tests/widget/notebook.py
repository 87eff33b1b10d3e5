"""Helpers that drive a JupyterLab notebook the way a person does: open it, run a cell, read the output."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect

from .conftest import Lab

# The first line of a test's cell: the package, by the name the README uses.
ATTACH = "import mewrk_jupyter as mw\n"


class Notebook:
    """One open notebook in JupyterLab."""

    def __init__(self, page: Page, lab: Lab, path: str):
        self.page = page
        self.lab = lab
        self.path = path

    @classmethod
    def open(cls, page: Page, lab: Lab, path: str | None = None) -> Notebook:
        """Create (if needed) and open a notebook; returns once its kernel is idle."""
        path = path or lab.new_notebook()
        # `reset`: start from a clean layout, not with the tabs an earlier test left open.
        page.goto(f"{lab.url}/lab/tree/{path}?reset&token={lab.token}")
        notebook = cls(page, lab, path)
        expect(notebook.cells.first).to_be_visible()
        expect(page.get_by_text(re.compile(r"Python 3 \(ipykernel\) \| Idle"))).to_be_visible()
        return notebook

    @property
    def cells(self) -> Locator:
        """Every cell of the notebook, in order."""
        return self.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")

    def cell(self, index: int) -> Locator:
        """The cell at `index` (negative counts from the end)."""
        return self.cells.nth(index) if index >= 0 else self.cells.nth(self.cells.count() + index)

    def run(self, code: str) -> Locator:
        """Type code into the last cell, run it with Shift+Enter and wait until it has run."""
        index = self.cells.count() - 1
        cell = self.cells.nth(index)
        editor = cell.locator(".cm-content")
        editor.click()
        self.page.keyboard.press("ControlOrMeta+a")
        self.page.keyboard.press("Delete")
        self.page.keyboard.insert_text(code)  # no key events: no auto-closed brackets
        self.page.keyboard.press("Shift+Enter")
        prompt = cell.locator(".jp-InputArea-prompt")
        expect(prompt).to_have_text(re.compile(r"\[\d+\]:"))
        return cell

    def print_value(self, expression: str) -> str:
        """Run `print(expression)` in a new cell and return what it printed."""
        cell = self.run(f"print({expression})")
        output = cell.locator(".jp-OutputArea-output")
        # The output's node can show before its text is in it (a slow cell): wait for the text itself.
        expect(output.first).to_have_text(re.compile(r"\S"))
        return "\n".join(output.all_inner_texts()).strip()


def type_lines(page: Page, lines: list[str]) -> None:
    """Type lines with real key presses, Enter between them, as a person does."""
    for i, line in enumerate(lines):
        if i:
            page.keyboard.press("Enter")
        page.keyboard.type(line)


def edit_card(page: Page, card: Locator, lines: list[str]) -> None:
    """Hover a card, click its pencil, replace its text by typing `lines` and save with Ctrl+Enter."""
    card.hover()
    card.locator("[data-act='edit']").click()
    area = card.locator("textarea")
    expect(area).to_be_focused()
    page.keyboard.press("ControlOrMeta+a")
    type_lines(page, lines)
    expect(area).to_have_value("\n".join(lines))
    page.keyboard.press("Control+Enter")
    expect(card.locator("textarea")).to_have_count(0)
