"""The data-analysis walkthrough runs top to bottom in a real kernel, offline: a DataFrame attached and
interpolated, the model inspecting it and computing with approval, the session exported and imported; the
section where the model fixes a cell says, outside JupyterLab, why it cannot."""

from __future__ import annotations

import nbformat

from mewrk_jupyter.tools.notebook_bridge import NOT_IN_JUPYTERLAB

from .notebooks import run_notebook


def test_data_analysis_notebook_runs(tmp_path, monkeypatch):
    cells = run_notebook("data_analysis.ipynb", tmp_path, monkeypatch)
    outputs = [out for _, out in cells]
    assert any("Attached `sales` at the end of the timeline" in out for out in outputs)
    inspected = next(out for source, out in cells if source.startswith("from mewrk_jupyter.magics"))
    assert "shape: 24 rows × 3 columns" in inspected and "columns: region (" in inspected
    waiting = next(out for source, out in cells if "pending_approval" in source)
    assert waiting.startswith("awaiting_approval — totals = sales.groupby('region')")
    totals_cell = next(out for source, out in cells if "print(totals)" in source)
    assert "north" in totals_cell and "825" in totals_cell
    assert "**mewrk:**" not in "\n".join(outputs)
    notebook = nbformat.read(tmp_path / "analysis.ipynb", as_version=4)
    nbformat.validate(notebook)
    python_cells = [c for c in notebook.cells if c.cell_type == "code"]
    assert python_cells and python_cells[0].source.startswith("totals = sales.groupby")
    assert "[result]" in python_cells[0].outputs[0]["text"]
    assert "### Tool call: python" in (tmp_path / "analysis.md").read_text()
    assert outputs[-1].startswith("True")
    # Outside JupyterLab the notebook tools are not offered: the fix section's calls are answered so,
    # with how to get them (tests/widget/test_browser_notebook.py walks the section in JupyterLab).
    talk = (tmp_path / "analysis.md").read_text()
    assert f"`notebook_edit` is not offered here. {NOT_IN_JUPYTERLAB}" in talk.replace("\n", " ")
    assert "`notebook_edit(mode='replace', cell_id='monthly-totals'" in talk
    assert "`notebook_run` is not offered here." in talk
