"""How long a person waits for the commands a newcomer found slow, on a 100-card session, in JupyterLab.

Run: python benchmarks/bench_commands.py        (needs /usr/bin/chromium and the playwright package)

A 100-card session (questions, replies and `ls` calls from `offline/echo`, in the real store) is built
first; the workspace also names an MCP server (the test suite's, over stdio) and is trusted. Then, in
JupyterLab driven through Debian's Chromium, each of KERNELS new notebooks (a fresh kernel each) runs
`%load_ext mewrk_jupyter` and `%mewrk use ID`, and times what a person does, from the key press or
click to what they wait to see:

- `%mewrk export talk.ipynb`: Shift+Enter to the sentence saying where it was written;
- `%mewrk settings`: Shift+Enter to the settings panel showing the conversation's settings;
- `%mewrk history 1`: Shift+Enter to the request shown in full;
- Branch, then Open it here (the session's widget, from `%mewrk show`): the menu's Branch to the notice
  offering to open it, and Open it here to the branch's timeline in the widget;
- the first MCP call: a `%%mewrk` cell whose message makes the model call the server's `add` tool,
  Shift+Enter to the end of the turn shown in the cell (the call answered, the reply written).

Before the command, the person shows the timeline (`%mewrk show`) and asks a first question in a
`%%mewrk` cell, whose turn is timed too (in a workspace naming an MCP server, the first turn has the
server run before its request). Between those cells WRITING seconds pass, as a person reads and types.

The first run in a kernel is what a person meets (imports, the server's start), so it is shown apart:
the median over the kernels. "again" is the median of REPEAT further runs in each kernel.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # JupyterLab is started as the browser tests start it

from playwright.sync_api import Locator, Page, sync_playwright  # noqa: E402

import mewrk_jupyter as mw  # noqa: E402
from tests.widget.conftest import CHROMIUM, CHROMIUM_FLAGS, Lab, running_lab  # noqa: E402

MCP_SERVER = ROOT / "tests" / "tools" / "mcp_server.py"
CARDS = 100
KERNELS = 3
REPEAT = 3
WAIT_MS = 120_000  # a limit on waiting, never part of a figure
MCP_CALL = 'call: mcp__calc__add {"a": 2, "b": 3}'
WRITING = 3.0  # seconds a person takes to read what a cell showed and write the next one


def build_workspace(root: Path) -> str:
    """A trusted workspace naming the test MCP server, with a session of CARDS cards; its id."""
    s = mw.Session.new(workspace=root, title="commands bench")
    i = 0
    while len(s.cards) < CARDS:
        # Every third message makes the model call `ls`: a tool card between question and reply.
        text = f'call: ls {{"path": "."}}\nquestion {i}' if i % 3 == 2 else f"question {i}, " + "lorem " * 30
        s.send(text, wait=True)
        i += 1
    folder = root / ".mewrk"
    (folder / "mcp").mkdir(parents=True, exist_ok=True)
    (folder / "mcp" / "calc.yaml").write_text(f"command: {sys.executable}\nargs: [{MCP_SERVER}]\n")
    (folder / "policy").mkdir(exist_ok=True)
    (folder / "policy" / "default.yaml").write_text("safety_level: default\nallow: [ls, read, mcp__calc]\n")
    mw.trust(root)
    return s.id


class Notebook:
    """One notebook open in JupyterLab, with a fresh kernel."""

    def __init__(self, page: Page, lab: Lab) -> None:
        self.page = page
        self.widget: Locator = page.locator(".mw-root")  # the timeline widget `%mewrk show` displayed
        path = lab.new_notebook()
        page.goto(f"{lab.url}/lab/tree/{path}?reset&token={lab.token}")
        page.get_by_text("Python 3 (ipykernel) | Idle").wait_for(timeout=WAIT_MS)

    def last_cell(self) -> Locator:
        """The notebook's last cell as it is now (not whichever cell is last later)."""
        cells = self.page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .jp-Notebook .jp-Cell")
        return cells.nth(cells.count() - 1)

    def run(self, code: str, shown: str) -> tuple[float, Locator]:
        """Type `code` into the last cell and press Shift+Enter; seconds until the cell's output holds an
        element matching the CSS selector `shown` (and the cell has run), and that cell."""
        cell = self.last_cell()
        cell.locator(".cm-content").click()
        self.page.keyboard.press("ControlOrMeta+a")
        self.page.keyboard.press("Delete")
        self.page.keyboard.insert_text(code)
        handle = cell.element_handle()
        start = time.perf_counter()
        self.page.keyboard.press("Shift+Enter")
        self.page.wait_for_function(
            """([cell, shown]) => /\\[\\d+\\]/.test(cell.querySelector('.jp-InputArea-prompt').textContent)
                 && cell.querySelector('.jp-OutputArea ' + shown) !== null""",
            arg=[handle, shown],
            polling="raf",
            timeout=WAIT_MS,
        )
        return time.perf_counter() - start, cell

    def until(self, start: float, condition: str, arg: Any = None) -> float:
        """Seconds from `start` until the JavaScript `condition` holds (checked every frame)."""
        self.page.wait_for_function(condition, arg=arg, polling="raf", timeout=WAIT_MS)
        return time.perf_counter() - start


def branch_and_open(nb: Notebook, root: Any) -> tuple[float, float]:
    """Branch at the last question from the card menu, then Open it here; the seconds each took, until
    the notice offers the branch and until the widget shows the branch's timeline. Back returns after."""
    page = nb.page
    question = root.locator(".mw-card[data-kind='user_input']").last
    question.click(button="right")
    item = page.locator(".mw-menu [data-testid='branch']")
    item.wait_for()
    start = time.perf_counter()
    item.click()
    branched = nb.until(
        start,
        "(root) => root.querySelector(\"[data-testid='mw-notice-offer']\") !== null",
        root.element_handle(),
    )
    start = time.perf_counter()
    root.locator("[data-testid='mw-notice-offer']").click()
    opened = nb.until(
        start,
        """(root) => root.querySelector('.mw-header .mw-title').textContent.includes('(branch)')
             && root.querySelector('.mw-card') !== null""",
        root.element_handle(),
    )
    root.locator("[data-testid='mw-back']").click()
    nb.until(
        time.perf_counter(),
        "(root) => !root.querySelector('.mw-header .mw-title').textContent.includes('(branch)')",
        root.element_handle(),
    )
    return branched, opened


TURN_DONE = """(cell) => { const text = cell.querySelector('.jp-OutputArea').textContent;
    return text.includes('{word}') && !text.includes('Running…') && !text.includes('Starting the turn'); }"""


def turn(nb: Notebook, text: str, word: str) -> float:
    """A `%%mewrk` cell: seconds from Shift+Enter to the end of its turn, shown in the cell (with `word`)."""
    took, cell = nb.run(f"%%mewrk\n{text}", ".jp-RenderedMarkdown")
    return nb.until(time.perf_counter() - took, TURN_DONE.replace("{word}", word), cell.element_handle())


def cell_command(code: Callable[[int], str], shown: str) -> Callable[[Notebook, int], float]:
    """A command typed in a cell, waited for until its output holds `shown`."""
    return lambda nb, n: nb.run(code(n), shown)[0]


COMMANDS: dict[str, Callable[[Notebook, int], Any]] = {
    "%mewrk export talk.ipynb": cell_command(
        lambda n: f"%mewrk export talk-{n}.ipynb", ".jp-RenderedMarkdown"
    ),
    "%mewrk settings": cell_command(lambda n: "%mewrk settings", "[data-testid='mw-setting-model']"),
    "%mewrk history 1": cell_command(lambda n: "%mewrk history 1", ".jp-RenderedMarkdown pre"),
    "Branch, Open it here (widget)": lambda nb, n: branch_and_open(nb, nb.widget),
    "MCP call (%%mewrk, to the turn's end)": lambda nb, n: turn(nb, MCP_CALL, "mcp__calc__add"),
}


def one_kernel(page: Page, lab: Lab, session_id: str, name: str) -> tuple[float, float, list[Any]]:
    """A new notebook where the person opens the session, shows it and asks one question, then does
    `name`: the seconds of `%load_ext`, of that first question's turn, and of each run of `name` (the
    first, then REPEAT more)."""
    nb = Notebook(page, lab)
    loaded = nb.run("%load_ext mewrk_jupyter\nprint('loaded')", ".jp-OutputArea-output")[0]
    nb.run(f"%mewrk use {session_id}", ".jp-OutputArea-output")
    _, cell = nb.run("%mewrk show", ".mw-card")
    nb.widget = cell.locator(".mw-root")
    time.sleep(WRITING)
    asked = turn(nb, "What is in this folder?", "What is in this folder?")
    time.sleep(WRITING)
    return loaded, asked, [COMMANDS[name](nb, n) for n in range(1 + REPEAT)]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        home = root / ".home"
        home.mkdir()
        os.environ["HOME"] = str(home)  # where trust is kept: the kernels JupyterLab starts read it there
        os.environ.pop("MEWRK_HOME", None)
        session_id = build_workspace(root)
        runs: dict[str, list[list[Any]]] = {name: [] for name in COMMANDS}
        loads, asked = [], []
        with running_lab(root) as lab, sync_playwright() as pw:
            browser = pw.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROMIUM_FLAGS)
            for _ in range(KERNELS):
                for name in COMMANDS:
                    context = browser.new_context(viewport={"width": 1280, "height": 900})
                    page = context.new_page()
                    page.set_default_timeout(WAIT_MS)
                    loaded, first_question, times = one_kernel(page, lab, session_id, name)
                    loads.append(loaded)
                    asked.append(first_question)
                    runs[name].append(times)
                    context.close()
                    lab.shutdown_kernels()
            browser.close()
    print(
        f"{CARDS}-card session in JupyterLab and Chromium; a new notebook (a fresh kernel) for each command,"
    )
    print(
        f"{KERNELS} times. Seconds; first: the first run in a kernel (median); again: median of the {REPEAT} after"
    )
    print(f"{'what the person did':<46} {'first':>7} {'again':>7}")
    for name, times in (("%load_ext mewrk_jupyter", loads), ("first question (%%mewrk, to its end)", asked)):
        print(f"{name:<46} {statistics.median(times):7.3f}")
    for name, kernels in runs.items():
        if isinstance(kernels[0][0], tuple):  # Branch, then Open it here: two figures
            for i, label in enumerate(("Branch (the notice offers it)", "Open it here (its timeline shown)")):
                row(label, [[t[i] for t in k] for k in kernels])
        else:
            row(name, kernels)


def row(name: str, kernels: list[list[float]]) -> None:
    """One line of the table: the median first run, and the median of the runs after it."""
    first = statistics.median(k[0] for k in kernels)
    again = statistics.median(t for k in kernels for t in k[1:])
    print(f"{name:<46} {first:7.3f} {again:7.3f}")


if __name__ == "__main__":
    main()
