"""The notebook's context in the widget, in a real JupyterLab and Chromium: what a message interpolated, on
its card and above its editor, and a `python` call's code shown as code on its approval and its card."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook
from .test_browser import widget_cell


def test_interpolation_and_python_code_are_shown_and_the_call_runs_in_the_kernel(lab, page):
    nb = Notebook.open(page, lab)
    nb.run(ATTACH + "%load_ext mewrk_jupyter\nx = 41")
    nb.run("%mewrk new")
    nb.run('%%mewrk\nx is {x}\ncall: python {"code": "x + 1"}')
    code = "from mewrk_jupyter.magics import current_session\ns = current_session()\ns.last_run.wait()\ns.widget()"
    _, root = widget_cell(nb, code)

    message = root.locator(".mw-card[data-kind='user_input']")
    expect(message.locator(".mw-card-body > .mw-plain").first).to_contain_text("x is 41")
    shown = message.locator("[data-testid='mw-interpolated']")
    expect(shown).to_contain_text("Typed as:")
    expect(shown).to_contain_text("x is {x}")
    expect(shown.locator("li")).to_have_text("{x} → 41")

    approval = root.locator(".mw-card[data-kind='approval']")
    expect(approval.locator("pre.mw-tool-code[data-testid='mw-approval-input'] code")).to_have_text("x + 1")
    approval.locator("[data-testid='mw-approve']").click()
    call = root.locator(".mw-card[data-kind='tool_call']")
    expect(call.locator("[data-testid='mw-tool-code']")).to_have_text("x + 1")
    expect(call).to_contain_text("[result]")
    expect(root.locator("[data-testid='mw-state']")).to_have_text("idle")
    assert nb.print_value("[c.result for c in s.cards if c.kind == 'tool_call'][0]") == "[result]\n42"

    # Editing the message shows what was typed and what each expression became above the text.
    message.hover()
    message.locator("[data-act='edit']").click()
    editor = message.locator(".mw-editor")
    expect(editor.locator("[data-testid='mw-interpolated']")).to_contain_text("{x} → 41")
    expect(editor.locator("textarea")).to_have_value('x is 41\ncall: python {"code": "x + 1"}\n')


def test_a_figure_the_python_tool_drew_shows_as_an_image_on_its_card(lab, page):
    nb = Notebook.open(page, lab)
    nb.run("%load_ext mewrk_jupyter")
    widget = nb.run("%mewrk new")
    root = widget.locator(".mw-root")
    box = root.locator("[data-testid='mw-input']")
    box.fill('call: python {"code": "import matplotlib.pyplot as plt; plt.plot([1,2]); plt.show()"}')
    box.press("Control+Enter")
    root.locator(".mw-card[data-kind='approval'] [data-testid='mw-approve']").click()
    call = root.locator(".mw-card[data-kind='tool_call']")
    figure = call.locator("img[data-testid='mw-tool-figure']")
    expect(figure).to_have_attribute("src", re.compile(r"^data:image/png;base64,iVBORw0KGgo"))
    expect(figure).to_have_attribute("alt", "output-1.png")
    # The browser decoded it as a picture: the figure's own size, not a broken image's.
    assert figure.evaluate("img => img.complete && img.naturalWidth") > 100
    expect(root.locator("[data-testid='mw-state']")).to_have_text("idle")


def test_an_attached_dataframe_shows_as_a_table_on_its_card(lab, page):
    nb = Notebook.open(page, lab)
    nb.run(
        "%load_ext mewrk_jupyter\nimport pandas as pd\ndf = pd.DataFrame({'city': ['Oslo', 'Lima'], 'rain': [763, 16]})"
    )
    widget = nb.run("%mewrk new")
    nb.run("%mewrk attach df")
    root = widget.locator(".mw-root")
    card = root.locator(".mw-card[data-kind='user_input']")
    table = card.locator(".mw-card-body table")
    expect(table).to_be_visible()
    expect(table.locator("th")).to_have_text(["", "city", "rain"])
    expect(table.locator("tbody tr").first.locator("td")).to_have_text(["0", "Oslo", "763"])
    expect(card.locator(".mw-card-body code").first).to_have_text("df")  # the name, as code
    expect(card).not_to_contain_text("|---")  # no raw Markdown left
    # What the person types stays as typed: a message of theirs is not read as Markdown.
    box = root.locator("[data-testid='mw-input']")
    box.fill("two *stars* stay")
    box.press("Control+Enter")
    expect(card.nth(1).locator(".mw-card-body")).to_contain_text("two *stars* stay")
