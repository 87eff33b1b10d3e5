"""What a newcomer's first commands in a kernel cost: a session on the offline models never imports the
vendor SDKs, and the first export does not import nbformat's validator (about a second each)."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

from .test_kernel import kernel  # noqa: F401  (the fixture)

# Modules that take a second or more to import, and what brings each.
HEAVY = {
    "anthropic": "the Anthropic SDK",
    "openai": "the OpenAI SDK",
    "jsonschema": "nbformat's validator",
    "nbformat": "nbformat",
}
IMPORTED = "import sys, json\nprint(json.dumps(sorted(m for m in {names} if m in sys.modules)))"


def imported(kernel) -> list[str]:  # noqa: F811
    return json.loads(kernel.stdout(IMPORTED.format(names=sorted(HEAVY))))


def test_the_offline_session_and_its_export_import_no_sdk_and_no_validator(kernel, tmp_path: Path):  # noqa: F811
    kernel.execute("%load_ext mewrk_jupyter")
    assert imported(kernel) == []
    kernel.execute("%mewrk new")
    kernel.execute("%%mewrk\nWhat is in this folder?")
    kernel.execute("from mewrk_jupyter.magics import current_session\ncurrent_session().last_run.wait()")
    kernel.execute("%mewrk history 1")
    kernel.execute("%mewrk export talk.ipynb")
    assert imported(kernel) == []

    # The notebook written without nbformat is one nbformat reads and validates, cards and all.
    notebook = nbformat.read(tmp_path / "talk.ipynb", as_version=4)
    nbformat.validate(notebook)
    assert [cell.metadata["mewrk"]["kind"] for cell in notebook.cells] == ["user_input", "model_reply"]
    assert notebook.cells[0].source.startswith("**You**\n\nWhat is in this folder?")
