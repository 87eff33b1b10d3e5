"""Run one of the repository's notebooks top to bottom in a real kernel, offline, in a fresh folder."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"


def run_notebook(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, str]]:
    """Execute `notebooks/<name>` in `tmp_path` (its own HOME); each code cell's source and what it showed.

    A cell that raised fails the test at once, naming the error, unless the notebook tags it
    `raises-exception` (a cell that fails on purpose, as a person's mistake does).
    """
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MEWRK_HOME", raising=False)
    (tmp_path / "home").mkdir()
    shutil.copy(NOTEBOOKS / name, tmp_path / name)
    nb = nbformat.read(tmp_path / name, as_version=4)
    NotebookClient(
        nb, timeout=60, kernel_name="python3", resources={"metadata": {"path": str(tmp_path)}}
    ).execute(env=dict(os.environ))

    def shown(cell) -> str:
        texts, stream = [], None
        for out in cell.outputs:
            assert out.output_type != "error" or "raises-exception" in cell.metadata.get("tags", []), out
            name = out.get("name") if out.output_type == "stream" else None
            if name is not None and name == stream:  # one print the kernel sent in two pieces, shown as one
                texts[-1] += out.get("text", "")
            else:
                texts.append(out.get("data", {}).get("text/markdown", "") + out.get("text", ""))
            stream = name
        return "\n".join(texts)

    return [(cell.source, shown(cell)) for cell in nb.cells if cell.cell_type == "code"]
