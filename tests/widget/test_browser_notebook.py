"""The notebook agent in a real JupyterLab and Chromium: the model reads the notebook it lives in, fixes a
failing cell after approval (the approval shows the change as a diff), runs it, inserts a cell; the open
notebook shows each change at once, the saved .ipynb holds them, and a person's own edit of a cell while a
call waits is not overwritten; Revert; bad input; and the walkthrough's section where the model fixes a
failing cell (N5)."""

from __future__ import annotations

import json
import re
import shutil
import time
import uuid
from pathlib import Path

from playwright.sync_api import expect

from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.wire import anthropic_reply, anthropic_tool_use

from .notebook import Notebook

WALKTHROUGH = Path(__file__).resolve().parents[2] / "notebooks" / "data_analysis.ipynb"

CELLS = ["print(x + )", ""]


def notebook_with_cells(lab) -> str:
    path = lab.new_notebook()
    content = lab.api("GET", f"/api/contents/{path}")["content"]
    content["cells"] = [
        {"cell_type": "code", "source": source, "metadata": {}, "outputs": [], "execution_count": None}
        for source in CELLS
    ]
    lab.api("PUT", f"/api/contents/{path}", {"type": "notebook", "format": "json", "content": content})
    return path


def saved_when(lab, path: str, want) -> dict:
    """The notebook as saved on disk, once `want` holds of it (JupyterLab saves a moment after a change)."""
    for _ in range(100):
        content = lab.api("GET", f"/api/contents/{path}")["content"]
        if want(content):
            return content
        time.sleep(0.1)
    return content


def timeline_of(page):
    """The notebook's one timeline, wherever its cell moves as the model inserts cells above it."""
    return page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .mw-root")


def send_line(root, line: str) -> None:
    box = root.locator("[data-testid='mw-input']")
    box.fill(line)
    box.press("Control+Enter")


def test_the_model_reads_fixes_runs_and_inserts_cells_of_its_notebook(lab, page):
    path = notebook_with_cells(lab)
    nb = Notebook.open(page, lab, path)
    nb.run("%load_ext mewrk_jupyter\nx = 41")
    nb.run("%mewrk new")
    root = timeline_of(page)
    expect(root).to_be_visible()
    calls = root.locator(".mw-card[data-kind='tool_call']")
    state = root.locator("[data-testid='mw-state']")

    # Reading is allowed without asking: the cells come back with their ids and sources.
    send_line(root, "call: notebook_read {}")
    expect(calls.nth(0)).to_contain_text("print(x + )")
    expect(calls.nth(0)).to_contain_text("## cell 1 · id ")
    expect(state).to_have_text("idle")

    # A replace asks first, and its approval shows the change as a diff of the cell.
    send_line(root, 'call: notebook_edit {"mode": "replace", "index": 0, "source": "print(x + 1)"}')
    approval = root.locator(".mw-card[data-kind='approval']").last
    diff = approval.locator("[data-testid='mw-approval-diff']")
    expect(diff.locator("[data-diff='del']")).to_have_text("-print(x + )")
    expect(diff.locator("[data-diff='add']")).to_have_text("+print(x + 1)")
    approval.locator("[data-testid='mw-approve']").click()
    expect(nb.cell(0).locator(".cm-content")).to_have_text("print(x + 1)")  # at once, no reload
    expect(calls.nth(1)).to_contain_text("Replaced the source of cell 0")
    expect(state).to_have_text("idle")

    # Run: the output lands in the cell and comes back to the model.
    send_line(root, 'call: notebook_run {"index": 0}')
    root.locator(".mw-card[data-kind='approval']").last.locator("[data-testid='mw-approve']").click()
    expect(nb.cell(0).locator(".jp-OutputArea-output")).to_have_text("42")
    expect(calls.nth(2)).to_contain_text("Ran cell 0")
    expect(calls.nth(2)).to_contain_text("42")
    expect(state).to_have_text("idle")

    # Insert a Markdown cell at the top.
    count = nb.cells.count()
    send_line(
        root,
        'call: notebook_edit {"mode": "insert", "index": 0, "cell_type": "markdown", "source": "# Fixed"}',
    )
    root.locator(".mw-card[data-kind='approval']").last.locator("[data-testid='mw-approve']").click()
    expect(nb.cells).to_have_count(count + 1)
    expect(nb.cell(0)).to_have_class(re.compile(r"jp-MarkdownCell"))
    expect(state).to_have_text("idle")

    saved = saved_when(lab, path, lambda c: c["cells"][0]["source"] == "# Fixed")
    assert saved["cells"][0]["cell_type"] == "markdown"
    assert saved["cells"][1]["source"] == "print(x + 1)"
    assert saved["cells"][1]["execution_count"] is not None
    assert [o.get("text") for o in saved["cells"][1]["outputs"]] == ["42\n"]


def test_a_persons_edit_while_the_call_waits_is_not_overwritten(lab, page):
    path = notebook_with_cells(lab)
    nb = Notebook.open(page, lab, path)
    nb.run("%load_ext mewrk_jupyter\n%mewrk new")
    root = timeline_of(page)
    send_line(root, 'call: notebook_edit {"mode": "replace", "index": 0, "source": "print(\'model\')"}')
    approval = root.locator(".mw-card[data-kind='approval']").last
    expect(approval.locator("[data-testid='mw-approval-diff']")).to_contain_text("+print('model')")

    # The person fixes the cell themselves while the call waits, typing as a person does.
    editor = nb.cell(0).locator(".cm-content")
    editor.click()
    page.keyboard.press("ControlOrMeta+a")
    page.keyboard.type("print('mine')")
    expect(editor).to_have_text("print('mine')")

    approval.locator("[data-testid='mw-approve']").click()
    call = root.locator(".mw-card[data-kind='tool_call']").last
    expect(call).to_contain_text("changed while your call waited for approval")
    expect(call).to_contain_text("print('mine')")
    expect(root.locator("[data-testid='mw-state']")).to_have_text("idle")
    expect(editor).to_have_text("print('mine')")  # nothing was overwritten


def test_revert_puts_cells_back_and_is_refused_once_the_cell_changed(lab, page):
    path = notebook_with_cells(lab)
    nb = Notebook.open(page, lab, path)
    nb.run("%load_ext mewrk_jupyter\n%mewrk new")
    root = timeline_of(page)
    calls = root.locator(".mw-card[data-kind='tool_call']")
    for line in (
        'call: notebook_edit {"mode": "replace", "index": 0, "source": "print(41 + 1)"}',
        'call: notebook_edit {"mode": "insert", "index": 0, "source": "import math"}',
    ):
        send_line(root, line)
        root.locator(".mw-card[data-kind='approval']").last.locator("[data-testid='mw-approve']").click()
        expect(root.locator("[data-testid='mw-state']")).to_have_text("idle")
    expect(nb.cell(0).locator(".cm-content")).to_have_text("import math")
    expect(nb.cell(1).locator(".cm-content")).to_have_text("print(41 + 1)")

    # The replaced cell goes back, by its id, although the insert moved it down.
    replaced = calls.nth(0)
    expect(replaced.locator("[data-testid='mw-change']")).to_contain_text("Changed cell 0")
    replaced.locator("[data-testid='mw-revert']").click()
    expect(nb.cell(1).locator(".cm-content")).to_have_text("print(x + )")
    expect(replaced.locator("[data-testid='mw-reverted']")).to_be_visible()
    expect(replaced.locator("[data-testid='mw-revert']")).to_have_count(0)

    # The person changes the inserted cell: its Revert is refused with a sentence, and the cell stays.
    editor = nb.cell(0).locator(".cm-content")
    editor.click()
    page.keyboard.press("End")
    page.keyboard.type(", os")
    expect(editor).to_have_text("import math, os")
    inserted = calls.nth(1)
    inserted.locator("[data-testid='mw-revert']").click()
    expect(inserted).to_contain_text("The cell changed since that call, so it was not reverted")
    expect(editor).to_have_text("import math, os")

    # The revert was saved; the person's own typing waits for their save, as in JupyterLab.
    saved = saved_when(lab, path, lambda c: c["cells"][1]["source"] == "print(x + )")
    assert [c["source"] for c in saved["cells"][:2]] == ["import math", "print(x + )"]


SETUP = """%load_ext mewrk_jupyter
import mewrk_jupyter as mw
s = mw.Session.new()
def call(name, **params):
    s.execute(name, params, wait=True)
    if s.state == "awaiting_approval":
        s.approve(wait=True)  # the cell waits, as a %mewrk cell does: the kernel is busy meanwhile
    return [c for c in s.cards if c.kind == "tool_call"][-1]"""


def test_bad_input_gets_one_sentence_and_changes_nothing(lab, page):
    path = notebook_with_cells(lab)
    nb = Notebook.open(page, lab, path)
    nb.run(SETUP)

    def result(expression: str) -> str:
        return nb.print_value(f"call({expression}).result")

    assert result("'notebook_read', cells=[7]").startswith("The notebook has ")
    assert "there is no cell 7" in result("'notebook_read', cells=[7]")
    assert result("'notebook_edit', mode='replace', cell_id='nope', source='x'") == (
        f"{path} has no cell with id nope: read the notebook again for its ids."
    )
    assert (
        result("'notebook_read', cells=['nope']")
        == "The notebook has no cell with id nope: read the notebook again for its ids."
    )
    assert (
        result("'notebook_read', path='data.csv'")
        == "data.csv is not a notebook (a notebook's name ends in .ipynb)."
    )
    assert (
        result("'notebook_read', path='../up.ipynb'")
        == f"`../up.ipynb` is outside the workspace; paths are relative to {lab.root}."
    )
    assert result("'notebook_read', path='elsewhere.ipynb'") == (
        "elsewhere.ipynb is not open in JupyterLab: open it there, then ask again."
    )
    assert result("'notebook_edit', mode='replace', index=0, cell_type='raw', source='x'") == (
        "`cell_type` is for an insert; a replace keeps the cell's type."
    )
    # A cell sent to run would wait behind the one that asks: refused, nothing queued.
    assert result("'notebook_run', index=0").startswith("This kernel is running a cell now")
    expect(nb.cell(0).locator(".jp-InputArea-prompt")).to_have_text("[ ]:")
    expect(nb.cell(0).locator(".cm-content")).to_have_text("print(x + )")

    # Edits still work from a busy kernel (they go through the server, not the kernel's own channel),
    # and `s.revert` puts the cell back.
    assert result("'notebook_edit', mode='replace', index=0, source='print(1)'").startswith(
        "Replaced the source of cell 0"
    )
    expect(nb.cell(0).locator(".cm-content")).to_have_text("print(1)")
    said = nb.print_value("s.revert([c for c in s.cards if c.kind == 'tool_call'][-1])")
    assert said == f"Put the cell's source back in {path}."
    expect(nb.cell(0).locator(".cm-content")).to_have_text("print(x + )")

    # A workspace inside the folder the server serves: a path is the workspace's, the server's name follows.
    nb.run("import os\nos.makedirs('proj', exist_ok=True)\ns = mw.Session.new(workspace='proj')")
    assert result("'notebook_read', path='a.ipynb'") == (
        "proj/a.ipynb is not open in JupyterLab: open it there, then ask again."
    )
    assert result("'notebook_read', path='../elsewhere.ipynb'").startswith(
        "`../elsewhere.ipynb` is outside the workspace"
    )


def test_the_walkthrough_model_fixes_its_failing_cell_and_reruns_it(lab, page):
    shutil.copy(WALKTHROUGH, lab.root / "walkthrough.ipynb")
    cells = json.loads(WALKTHROUGH.read_text())["cells"]
    nb = Notebook.open(page, lab, "walkthrough.ipynb")
    where = {cell["id"]: index for index, cell in enumerate(cells)}
    fixed = nb.cell(where["monthly-totals"])
    for index, cell in enumerate(cells):
        if cell["cell_type"] != "code":
            continue
        shown = nb.cell(index)
        shown.locator(".jp-InputPrompt").click()  # selects it, as a person clicking its margin does
        page.keyboard.press("Shift+Enter")
        expect(shown.locator(".jp-InputArea-prompt")).to_have_text(re.compile(r"\[\d+\]:"))
        if cell["id"] == "monthly-totals":
            expect(shown.locator(".jp-OutputArea-output")).to_contain_text("KeyError")
        elif cell["id"] == "fix-timeline":  # the edit waits here; its approval shows the diff
            root = shown.locator(".mw-root")
            approval = root.locator(".mw-card[data-kind='approval']").last
            diff = approval.locator("[data-testid='mw-approval-diff']")
            expect(diff.locator("[data-diff='add']").first).to_contain_text('["amount"]')
            approval.locator("[data-testid='mw-approve']").click()
            expect(fixed.locator(".cm-content")).to_contain_text('["amount"].sum()')
            expect(root.locator("[data-testid='mw-state']")).to_have_text("idle")
        elif cell["id"] == "fix-rerun":  # approved in the timeline, the fixed cell runs in place
            root = nb.cell(where["fix-timeline"]).locator(".mw-root")
            root.locator(".mw-card[data-kind='approval']").last.locator("[data-testid='mw-approve']").click()
            expect(fixed.locator(".jp-OutputArea-output")).to_contain_text("Name: amount")
            expect(fixed.locator(".jp-OutputArea-output")).not_to_contain_text("KeyError")
            expect(root.locator(".mw-card[data-kind='tool_call']").last).to_contain_text("Name: amount")
        elif cell["id"] == "fix-done":
            expect(shown.locator(".jp-OutputArea-output")).to_have_text("idle")
            break
    saved = saved_when(lab, "walkthrough.ipynb", lambda c: c["cells"][where["monthly-totals"]]["outputs"])
    assert "amount" in saved["cells"][where["monthly-totals"]]["source"]


def test_a_wire_protocol_vendor_reads_and_fixes_the_notebook(lab, page, wire_server):  # noqa: F811
    """The same through Anthropic's Messages API on its wire: the tools are offered in the request, the
    model's tool_use blocks act on the open notebook, and the tool results carry the cells."""
    wire_server.enqueue(
        anthropic_reply(anthropic_tool_use("notebook_read", {}, id="toolu_nb1")),
        anthropic_reply(
            anthropic_tool_use(
                "notebook_edit", {"mode": "replace", "index": 0, "source": "print(40 + 2)"}, id="toolu_nb2"
            )
        ),
        anthropic_reply("Fixed the cell."),
    )
    folder = f"ws-{uuid.uuid4().hex[:8]}"
    (lab.root / folder / ".mewrk" / "llm").mkdir(parents=True)
    (lab.root / folder / ".mewrk" / "llm" / "ant.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {wire_server.url}\napi_key: ${{NB_TEST_KEY}}\n"
        "models:\n  m: {context_window: 100000}\n"
    )
    path = notebook_with_cells(lab)
    nb = Notebook.open(page, lab, path)
    nb.run(
        "import os, mewrk_jupyter as mw\nos.environ['NB_TEST_KEY'] = 'sk-nb-test'\n"
        f"mw.trust({folder!r})\ns = mw.Session.new(model='ant/m', workspace={folder!r})\n"
        "s.send('Fix the failing cell.')\ns.widget()"
    )
    root = timeline_of(page)
    approval = root.locator(".mw-card[data-kind='approval']").last
    expect(approval.locator("[data-diff='add']")).to_have_text("+print(40 + 2)")
    approval.locator("[data-testid='mw-approve']").click()
    expect(nb.cell(0).locator(".cm-content")).to_have_text("print(40 + 2)")
    expect(root.locator(".mw-card[data-kind='model_reply']").last).to_contain_text("Fixed the cell.")

    first, second, third = wire_server.json_bodies()
    assert {"notebook_read", "notebook_edit", "notebook_run"} <= {t["name"] for t in first["tools"]}
    results = [
        b
        for m in third["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_result"
    ]
    read, edited = (
        r["content"] if isinstance(r["content"], str) else r["content"][0]["text"] for r in results
    )
    assert "print(x + )" in read and "## cell 0 · id " in read
    assert edited.startswith("Replaced the source of cell 0")
    assert "sk-nb-test" not in json.dumps([first, second, third])
