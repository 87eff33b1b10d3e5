"""A notebook that no JupyterLab window has open, worked on by the model's notebook tools: with
jupyter-collaboration's server side running, the command goes into the server's shared document of the
notebook, which saves it to the file (so a window opened later shows it); a cell to run is refused, since
it runs in a window's kernel. Without jupyter-collaboration the command is refused as before.

A real `jupyter server` with the extension on, a real kernel that the server started for another notebook
(as JupyterLab starts one), and the model's calls made in that kernel by the offline model. The shared
document's own refusals are checked on a real YNotebook, as jupyter-collaboration makes one."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import nbformat
import pytest
from jupyter_ydoc import YNotebook

from mewrk_jupyter.server.shared_notebook import Refusal, edit, read
from mewrk_jupyter.tools.base import digest

from .conftest import Server, start_server, stop_server
from .test_notebook_kernel_auth import run_in_kernel

OWN = "own.ipynb"  # the notebook whose kernel the model works in
OTHER = "other.ipynb"  # the notebook it changes, which no window has open
CELLS = [
    nbformat.v4.new_code_cell("x = 1", id="first"),
    nbformat.v4.new_markdown_cell("# Notes", id="notes"),
]
CALLS = f"""
import json
import mewrk_jupyter as mw
s = mw.Session.new(title="shared")
def call(name, **params):
    s.execute(name, params, wait=True)
    if s.state == "awaiting_approval":
        s.approve(wait=True)
    return [c for c in s.cards if c.kind == "tool_call"][-1].result
said = {{
    "read": call("notebook_read", path="{OTHER}"),
    "replace": call("notebook_edit", path="{OTHER}", mode="replace", cell_id="first", source="x = 2"),
    "insert": call("notebook_edit", path="{OTHER}", mode="insert", index=2, source="print(x)"),
    "delete": call("notebook_edit", path="{OTHER}", mode="delete", cell_id="notes"),
    "run": call("notebook_run", path="{OTHER}", index=0),
    "again": call("notebook_read", path="{OTHER}"),
}}
print("SAID:" + json.dumps(said))
"""
NOT_OPEN = f"{OTHER} is not open in JupyterLab: open it there, then ask again."


def notebook_of(cells: list[Any]) -> dict[str, Any]:
    """A notebook's JSON with these cells."""
    made = nbformat.v4.new_notebook(cells=cells)
    return json.loads(nbformat.writes(made))


def open_kernel(server: Server) -> str:
    """Put OWN and OTHER in the server's folder and start OWN's kernel, as JupyterLab does; its id."""
    with httpx.Client(base_url=server.url, headers={"Authorization": f"token {server.token}"}) as client:
        for path, cells in ((OWN, []), (OTHER, CELLS)):
            put = client.put(f"api/contents/{path}", json={"type": "notebook", "content": notebook_of(cells)})
            put.raise_for_status()
        made = client.post(
            "api/sessions", json={"path": OWN, "type": "notebook", "name": OWN, "kernel": {"name": "python3"}}
        )
        made.raise_for_status()
        return str(made.json()["kernel"]["id"])


def saved(path: Path, holds, timeout: float = 60) -> dict[str, Any]:
    """The notebook as its file reads once `holds` is true of it (jupyter-collaboration saves a moment
    after a change); AssertionError with the last reading when it never is."""
    deadline, last = time.monotonic() + timeout, None
    while time.monotonic() < deadline:
        try:
            last = json.loads(path.read_text())
        except ValueError:  # read halfway through a write
            last = None
        if last is not None and holds(last):
            return last
        time.sleep(0.2)
    raise AssertionError(f"{path.name} never read as expected; last: {last}")


@pytest.fixture(scope="module")
def collaborating(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A server with jupyter-collaboration's server side on."""
    running = start_server(tmp_path_factory.mktemp("collaboration"), collaboration=True)
    try:
        yield running
    finally:
        stop_server(running)


def test_the_models_edits_of_a_notebook_no_window_has_open_are_saved_through_the_shared_document(
    collaborating,
):
    kernel = open_kernel(collaborating)
    printed = run_in_kernel(collaborating, kernel, CALLS, timeout=120)
    assert "SAID:" in printed, printed
    said = json.loads(printed.split("SAID:", 1)[1])

    assert said["read"] == (
        f"# {OTHER} · 2 cells\n\n## cell 0 · id first · code · In [ ]\n```\nx = 1\n```\n\n"
        "## cell 1 · id notes · markdown\n```\n# Notes\n```"
    )
    assert said["replace"] == f"Replaced the source of cell 0 (id first) of {OTHER}."
    assert said["insert"].startswith("Inserted cell 2 (id "), said["insert"]
    assert said["delete"] == f"Deleted cell 1 (id notes) of {OTHER}."
    assert said["run"] == (
        f"{OTHER} is not open in JupyterLab, and a cell runs in the kernel of a window that has it open: "
        "open it there, then ask again."
    )
    assert said["again"].startswith(f"# {OTHER} · 2 cells"), said["again"]

    def changed(notebook: dict[str, Any]) -> bool:
        cells = [(c["cell_type"], "".join(c["source"])) for c in notebook["cells"]]
        return cells == [("code", "x = 2"), ("code", "print(x)")]

    on_disk = saved(collaborating.root / OTHER, changed)
    assert on_disk["cells"][0]["id"] == "first"
    nbformat.validate(nbformat.from_dict(on_disk))


def test_without_jupyter_collaboration_a_notebook_no_window_has_open_is_refused(server):
    with httpx.Client(base_url=server.url, headers={"Authorization": f"token {server.token}"}) as client:
        client.put(
            f"api/contents/{OTHER}", json={"type": "notebook", "content": notebook_of(CELLS)}
        ).raise_for_status()
        answer = client.post("mewrk/v2/notebook", json={"op": "edit", "path": OTHER, "args": {}})
    assert (answer.status_code, answer.json()) == (409, {"error": NOT_OPEN})


def test_a_notebook_missing_from_the_folder_gets_one_sentence(collaborating):
    with collaborating.client() as client:
        answer = client.post("/notebook", json={"op": "read", "path": "missing.ipynb"})
    assert (answer.status_code, answer.json()) == (
        409,
        {"error": "There is no notebook missing.ipynb in the folder this Jupyter server serves."},
    )


def shared_document() -> YNotebook:
    """A shared notebook document holding CELLS, as jupyter-collaboration makes one from the file."""
    document = YNotebook()
    document.set(notebook_of(CELLS))
    return document


def refusal(args: dict[str, Any]) -> Refusal:
    """The refusal of an edit with `args` on a fresh document, which it leaves as it was."""
    document = shared_document()
    with pytest.raises(Refusal) as refused:
        edit(document, OTHER, args)
    assert [c["source"] for c in read(document, {})["cells"]] == ["x = 1", "# Notes"]
    return refused.value


def test_an_edit_the_shared_document_cannot_make_changes_nothing_and_says_why():
    assert str(refusal({"mode": "replace", "index": 5, "source": "y"})) == (
        f"{OTHER} has 2 cells (indices 0 to 1); there is no cell 5."
    )
    assert str(refusal({"mode": "delete", "cell_id": "nope"})) == (
        f"{OTHER} has no cell with id nope: read the notebook again for its ids."
    )
    assert str(refusal({"mode": "insert", "index": 3, "source": "y"})) == (
        f"{OTHER} has 2 cells: a cell goes in at an index from 0 to 2."
    )
    assert str(refusal({"mode": "move"})) == "`mode` is replace, insert or delete."
    assert str(refusal({"mode": "replace", "source": "y"})) == "Name the cell by `cell_id` or by `index`."


def test_a_cell_a_person_changed_since_the_model_read_it_is_left_alone_with_both_texts():
    changed = refusal({"mode": "replace", "index": 0, "source": "y", "expected": "x = 0"})
    assert str(changed) == "Cell 0 changed since it was read: nothing was changed."
    assert (changed.data["expected"], changed.data["current"]) == ("x = 0", "x = 1")
    waited = refusal({"mode": "delete", "index": 0, "expected_digest": digest("x = 0")})
    assert str(waited) == "Cell 0 changed while the call waited for approval: nothing was changed."
    assert (waited.data["digest"], waited.data["current"]) == (True, "x = 1")
    # The text it still reads goes through.
    document = shared_document()
    edit(document, OTHER, {"mode": "replace", "index": 0, "source": "y", "expected_digest": digest("x = 1")})
    assert read(document, {"cells": [0]})["cells"][0]["source"] == "y"
