"""A `%%mewrk` cell holds a message to the model: in a real JupyterLab and Chromium its editor shows it as
Markdown, not as Python (no keyword or string colours in the words a person wrote), while a Python cell
keeps Python's, and the cell turns back into Python when its first line stops saying `%%mewrk`."""

from __future__ import annotations

import time

from playwright.sync_api import Locator, Page, expect

from .notebook import Notebook

MESSAGE = "import this: it's for the *model*, not def or class"
CODE = "import math\ndef area(r):\n    return math.pi * r ** 2"
# A bound for the editor to take its new language, not an assertion about speed.
SETTLE = 60.0

# The words the editor shows in the theme's keyword colour (bold) and in its string colour, what a person
# sees as Python's highlighting, and in italics, Markdown's emphasis (so that a message is seen to be read as
# Markdown, not merely as nothing while its language loads). JupyterLab's CodeMirror theme marks tokens by generated class names, so
# the test reads the colours, as an eye does.
HIGHLIGHTED = """(content) => {
  const colour = (variable) => {
    const probe = document.createElement("span");
    probe.style.color = `var(${variable})`;
    document.body.appendChild(probe);
    const value = getComputedStyle(probe).color;
    probe.remove();
    return value;
  };
  const keyword = colour("--jp-mirror-editor-keyword-color");
  const string = colour("--jp-mirror-editor-string-color");
  const found = { keyword: [], string: [], emphasis: [] };
  for (const span of content.querySelectorAll(".cm-line span")) {
    const style = getComputedStyle(span);
    if (style.color === keyword && Number(style.fontWeight) >= 600) found.keyword.push(span.textContent);
    if (style.color === string) found.string.push(span.textContent);
    if (style.fontStyle === "italic") found.emphasis.push(span.textContent);
  }
  return found;
}"""


def highlighted(cell: Locator) -> dict[str, list[str]]:
    """The words of a cell's editor in keyword and in string colour."""
    return cell.locator(".cm-content").evaluate(HIGHLIGHTED)


def settled(cell: Locator, done) -> dict[str, list[str]]:
    """The cell's highlighting once `done(highlighting)` holds, or as it stands when the bound runs out."""
    deadline = time.monotonic() + SETTLE
    found = highlighted(cell)
    while not done(found) and time.monotonic() < deadline:
        time.sleep(0.2)
        found = highlighted(cell)
    return found


def as_python(found: dict[str, list[str]]) -> bool:
    return bool(found["keyword"])


def as_message(found: dict[str, list[str]]) -> bool:
    return not found["keyword"] and not found["string"] and "model" in "".join(found["emphasis"])


def type_message_cell(page: Page, nb: Notebook) -> Locator:
    """In the notebook's last cell, type `%%mewrk` and the message with real key presses."""
    cell = nb.cell(-1)
    cell.locator(".cm-content").click()
    page.keyboard.type("%%mewrk")
    page.keyboard.press("Enter")
    page.keyboard.type(MESSAGE)
    expect(cell.locator(".cm-content")).to_have_text(f"%%mewrk{MESSAGE}")  # lines join in its text
    return cell


def test_a_mewrk_cells_message_is_not_highlighted_as_python(lab, page):
    nb = Notebook.open(page, lab)
    code = nb.run(CODE)  # Shift+Enter leaves a new cell below, where the message goes
    message = type_message_cell(page, nb)

    assert {"import", "def", "return"} <= set(settled(code, as_python)["keyword"])
    found = settled(message, as_message)
    assert as_message(found), f"the message is not highlighted as Markdown: {found}"

    # The first line no longer says %%mewrk: the cell is Python again (`import` a keyword, the apostrophe
    # opening a string that runs on to the line's end); put the %% back and it is a message again.
    message.locator(".cm-line").first.click()
    page.keyboard.press("Home")
    page.keyboard.press("Delete")
    page.keyboard.press("Delete")
    expect(message.locator(".cm-line").first).to_have_text("mewrk")
    python = settled(message, as_python)
    assert "import" in python["keyword"] and python["string"] == ["'s for the *model*, not def or class"], (
        python
    )

    page.keyboard.type("%%")
    found = settled(message, as_message)
    assert as_message(found), f"the message is not highlighted as Markdown: {found}"
    assert {"import", "def", "return"} <= set(highlighted(code)["keyword"])


def test_a_saved_mewrk_cell_is_still_a_message_when_the_notebook_opens_again(lab, page):
    path = lab.new_notebook()
    cells = [
        {"cell_type": "code", "source": CODE, "metadata": {}, "outputs": [], "execution_count": None},
        {
            "cell_type": "code",
            "source": f"%%mewrk\n{MESSAGE}",
            "metadata": {},
            "outputs": [],
            "execution_count": None,
        },
    ]
    notebook = lab.api("GET", f"/api/contents/{path}")["content"]
    notebook["cells"] = cells
    # Saved by a kernel, as a person's notebook is: its language is Python's from the moment it opens.
    notebook["metadata"]["language_info"] = {"name": "python", "codemirror_mode": {"name": "ipython"}}
    lab.api("PUT", f"/api/contents/{path}", {"type": "notebook", "format": "json", "content": notebook})

    nb = Notebook.open(page, lab, path)
    assert {"import", "def", "return"} <= set(settled(nb.cell(0), as_python)["keyword"])
    found = settled(nb.cell(1), as_message)
    assert as_message(found), f"the message is not highlighted as Markdown: {found}"
