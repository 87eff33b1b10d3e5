"""The README's first five minutes in a notebook, run exactly as written in JupyterLab and Chromium:
its code blocks typed into cells, then the widget steps it describes (edit a reply, continue, history,
undo and redo), each checked on screen and in the kernel."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import expect

from .notebook import Notebook, edit_card

README = Path(__file__).resolve().parents[2] / "README.md"


def _notebook_blocks() -> tuple[list[str], str]:
    """The code blocks of the README's "In a notebook" section, and the dashboard line it quotes."""
    text = README.read_text()
    section = text.split("## In a notebook", 1)[1].split("\n## ", 1)[0]
    # The code of the section's opening: its subsections show more than the first five minutes.
    code = re.findall(r"```python\n(.*?)```", section.split("\n### ", 1)[0], re.S)
    dashboard = re.search(r"```text\n(Agent: .*?)\n```", section).group(1)
    return code, dashboard


def test_the_readme_first_five_minutes_work_as_written(lab, page):
    (start, question), dashboard_line = _notebook_blocks()
    nb = Notebook.open(page, lab)
    cell = nb.run(start.strip())
    said = cell.locator(".jp-OutputArea-output").first
    expect(said).to_contain_text(re.compile(r"New session .+ · offline/echo · stored in .+mewrk\.db"))
    root = cell.locator(".mw-root")
    expect(root.locator("[data-testid='mw-dashboard']")).to_have_text(dashboard_line)
    nb.run("from mewrk_jupyter.magics import current_session\ns = current_session()")  # for the checks
    assert nb.print_value("s.title") == "untitled"  # the README's comment did not become a title

    turn = nb.run(question.strip())  # the cell returns at once; its output shows the turn it started
    expect(turn.locator(".jp-OutputArea-output")).to_contain_text("What does this notebook's data look like?")
    reply = root.locator(".mw-card[data-kind='model_reply']").first
    expect(reply).to_contain_text("What does this notebook")  # every view of the session stays in step
    expect(turn.locator(".mw-root")).to_have_count(0)  # the turn, not a second copy of the timeline

    edit_card(page, reply, ["It has two columns.", "Both are numbers."])  # pencil, type, Ctrl+Enter
    assert nb.print_value("s.cards[-1].text") == "It has two columns.\nBoth are numbers."

    root.locator("[data-testid='mw-send']").click()  # the composer is empty: the model continues
    expect(root.locator(".mw-card[data-kind='model_reply']")).to_have_count(2)
    history = nb.run("%mewrk history")
    shown = history.locator(".jp-OutputArea-output")
    expect(shown).to_contain_text("Request 1")
    expect(shown).to_contain_text("Request 2")
    expect(shown).to_contain_text("It has two columns.")
    assert nb.print_value("len(s.history)") == "2"

    reply.locator(".mw-card-body").click()
    page.keyboard.press("Control+z")  # undoes the edit; the newer reply stays
    expect(reply).not_to_contain_text("two columns")
    assert nb.print_value("[c.kind for c in s.cards]") == "['user_input', 'model_reply', 'model_reply']"
    reply.locator(".mw-card-body").click()
    page.keyboard.press("Control+Shift+z")  # redoes it
    expect(reply).to_contain_text("two columns")
    reply.locator(".mw-card-body").click()
    page.keyboard.press("Control+z")
    reply.locator(".mw-card-body").click()
    page.keyboard.press("Control+x")  # redo, too, and no notebook cell was cut
    expect(reply).to_contain_text("two columns")
    assert nb.print_value("s.cards[1].text") == "It has two columns.\nBoth are numbers."
