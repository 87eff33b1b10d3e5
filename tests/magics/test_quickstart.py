"""The demo notebook runs top to bottom in a real kernel, offline, without an error."""

from __future__ import annotations

from .notebooks import run_notebook

TOOLS_CELL = "s.last_run.wait()  # only needed when the notebook runs all cells at once\n%mewrk tools"


def test_quickstart_notebook_runs(tmp_path, monkeypatch):
    by_source = dict(run_notebook("quickstart.ipynb", tmp_path, monkeypatch))
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
