"""The demo notebook runs top to bottom in a real kernel, offline, without an error."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
from nbclient import NotebookClient

TOOLS_CELL = "s.last_run.wait()  # only needed when the notebook runs all cells at once\n%mewrk tools"
NOTEBOOK = Path(__file__).resolve().parents[2] / "notebooks" / "quickstart.ipynb"


def test_quickstart_notebook_runs(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MEWRK_HOME", raising=False)
    (tmp_path / "home").mkdir()
    shutil.copy(NOTEBOOK, tmp_path / NOTEBOOK.name)
    nb = nbformat.read(tmp_path / NOTEBOOK.name, as_version=4)
    NotebookClient(
        nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute(env=dict(os.environ))

    def shown(cell) -> str:
        texts = []
        for out in cell.outputs:
            assert out.output_type != "error", out
            texts.append(out.get("data", {}).get("text/markdown", "") + out.get("text", ""))
        return "\n".join(texts)

    by_source = {cell.source: shown(cell) for cell in nb.cells if cell.cell_type == "code"}
    assert "New session" in by_source["%mewrk new quickstart"]
    assert "What is this workbench for?" in by_source["%%mewrk\nWhat is this workbench for?"]
    assert "Undid: edited reply" in by_source["%mewrk undo"]
    assert "Forked “quickstart” at the reply" in by_source["%mewrk fork -1"]
    assert "into “quickstart (fork)”" in by_source["%mewrk fork -1"]
    assert "`write(path='hello.txt'" in by_source["%mewrk approve"]
    assert (tmp_path / "hello.txt").read_text() == "Hello from the model"
    assert "| `write` | ask |" in by_source[TOOLS_CELL]
    assert "**mewrk:**" not in "\n".join(by_source.values())
    assert (tmp_path / ".mewrk" / "mewrk.db").exists()
