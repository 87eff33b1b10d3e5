"""The notebook tools in JupyterLab: from a `notebook_edit` call to the change on screen, and `notebook_read`
of a 200-cell notebook.

Run: python benchmarks/bench_notebook.py        (needs /usr/bin/chromium and the playwright package)

JupyterLab runs as the browser tests run it, with the package's server extension and JupyterLab plugin,
driven through Debian's Chromium. In a notebook's own kernel, a cell calls the tools as the engine does
(the registry's handler, with the bridge this kernel found):

- edit to screen: EDITS replaces of cell 1's source, each a new text, half of them as an allowed call
  (one round trip) and half as an approved one (the cell read again and checked against what the approval
  showed, then changed); the clock starts as the call starts, or as it is approved
  (kernel side, `time.time()`) and stops when the page shows the new text in that cell's editor (a
  MutationObserver in the page notes `Date.now()`; one machine, one clock). The goal is under 100 ms.
  The cells that drive it are typed into the notebook's first cell; the edits go to the second.
- read: `notebook_read {}` of a notebook of CELLS code cells, each with a line of source and one line of
  output, READS times after one warm-up; the median. The goal is under 200 ms.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # JupyterLab is started as the browser tests start it

from playwright.sync_api import expect, sync_playwright  # noqa: E402

from tests.widget.conftest import CHROMIUM, CHROMIUM_FLAGS, running_lab  # noqa: E402
from tests.widget.notebook import Notebook  # noqa: E402

CELLS = 200
EDITS = 20
READS = 10
WAIT_MS = 120_000  # a limit on waiting, never part of a figure

TOOLS = (
    "from mewrk_jupyter.tools.notebook import notebook_tools\ntools = {t.name: t for t in notebook_tools()}\n"
)

# Notes when cell 0's editor first shows each `x = N`.
OBSERVE = """() => {
  window.seen = {};
  const panel = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook');
  const look = () => {
    const editor = panel.querySelectorAll('.jp-Cell')[1]?.querySelector('.cm-content');
    const found = editor && /^x = (\\d+)$/.exec(editor.textContent);
    if (found && !(found[1] in window.seen)) window.seen[found[1]] = Date.now();
  };
  new MutationObserver(look).observe(panel, { subtree: true, childList: true, characterData: true });
}"""

EDIT_LOOP = f"""import time, json
started = {{}}
edit = tools["notebook_edit"]
for i in range({EDITS}):
    params = {{"mode": "replace", "index": 1, "source": f"x = {{i}}"}}
    if i % 2:  # approved: read as it waited (not timed), checked and made once approved (timed)
        preview = edit.preview(params)
        started[i] = time.time() * 1000
        edit.prepared(params, preview, None)
    else:  # allowed without asking
        started[i] = time.time() * 1000
        edit.handler(params, None)
    time.sleep(0.2)
print(json.dumps(started))"""

READ_LOOP = f"""import time, json
tools["notebook_read"].handler({{}}, None)
took = []
for _ in range({READS}):
    t = time.perf_counter()
    result = tools["notebook_read"].handler({{}}, None)
    took.append((time.perf_counter() - t) * 1000)
print(json.dumps([took, len(result.text)]))"""


def big_notebook(lab, path: str) -> None:
    cells = [
        {"cell_type": "code", "source": "", "metadata": {}, "outputs": [], "execution_count": None},
        {"cell_type": "code", "source": "x = 0", "metadata": {}, "outputs": [], "execution_count": None},
        *(
            {
                "cell_type": "code",
                "source": f"value_{i} = {i} * 2\nprint(value_{i})",
                "metadata": {},
                "outputs": [{"output_type": "stream", "name": "stdout", "text": f"{i * 2}\n"}],
                "execution_count": i,
            }
            for i in range(2, CELLS)
        ),
    ]
    content = {
        "cells": cells,
        "metadata": {"kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"}},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    lab.api("PUT", f"/api/contents/{path}", {"type": "notebook", "format": "json", "content": content})


def run_first_cell(nb: Notebook, code: str) -> str:
    """Type code into the notebook's first cell, run it with Shift+Enter, and return what it printed."""
    cell = nb.cell(0)
    cell.locator(".cm-content").click()
    nb.page.keyboard.press("ControlOrMeta+a")
    nb.page.keyboard.press("Delete")
    nb.page.keyboard.insert_text(code)
    nb.page.keyboard.press("Shift+Enter")
    expect(cell.locator(".jp-InputArea-prompt")).to_have_text(re.compile(r"\[\d+\]:"))
    output = cell.locator(".jp-OutputArea-output")
    expect(output.first).to_have_text(re.compile(r"\S"))
    return output.first.inner_text()


def main() -> None:
    expect.set_options(timeout=WAIT_MS)
    with tempfile.TemporaryDirectory() as tmp, running_lab(Path(tmp)) as lab, sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
        page = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
        page.set_default_timeout(WAIT_MS)
        big_notebook(lab, "big.ipynb")
        nb = Notebook.open(page, lab, "big.ipynb")
        page.evaluate(OBSERVE)
        run_first_cell(nb, "%load_ext mewrk_jupyter\n" + TOOLS + "print(sorted(tools))")
        started = {int(k): v for k, v in json.loads(run_first_cell(nb, EDIT_LOOP)).items()}
        page.wait_for_function(f"Object.keys(window.seen).length >= {EDITS}", timeout=WAIT_MS)
        seen = {int(k): v for k, v in page.evaluate("window.seen").items()}
        allowed = [seen[i] - started[i] for i in range(0, EDITS, 2)]
        approved = [seen[i] - started[i] for i in range(1, EDITS, 2)]
        took, chars = json.loads(run_first_cell(nb, READ_LOOP))
        browser.close()
    print(f"notebook tools in JupyterLab and Chromium ({EDITS} edits, {READS} reads of {CELLS} cells)")
    for name, delays in (("allowed", allowed), ("once approved", approved)):
        print(
            f"{'notebook_edit (' + name + ') → on screen:':<40} median {statistics.median(delays):6.1f} ms, "
            f"max {max(delays):6.1f} ms (goal < 100 ms)"
        )
    print(
        f"{f'notebook_read of {CELLS} cells:':<40} median {statistics.median(took):6.1f} ms, "
        f"max {max(took):6.1f} ms (goal < 200 ms; {chars} characters)"
    )


if __name__ == "__main__":
    main()
