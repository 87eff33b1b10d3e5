"""What a newcomer's first commands in a kernel cost: a session on the offline models never imports the
vendor SDKs, the first export does not import nbformat's validator (about a second each), and a new
session's MCP servers start while the person writes the first message."""

from __future__ import annotations

import json
from pathlib import Path

import nbformat

from tests.conftest import wait_for
from tests.engine.test_mcp_shared import counted_server, starts

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


def test_a_new_session_starts_its_mcp_server_while_the_person_writes(kernel, tmp_path: Path, monkeypatch):  # noqa: F811
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # the kernel's: where the trust is kept
    log = counted_server(tmp_path)
    kernel.execute("%load_ext mewrk_jupyter")
    kernel.execute("%mewrk new")
    # No message sent yet and no `%mewrk mcp`: the server starts, and what the SDK checks results with
    # is loaded while it starts, so that the first call pays for neither.
    wait_for(lambda: starts(log))
    loaded = "import sys, time\nfor _ in range(1200):\n    if 'jsonschema' in sys.modules: break\n    time.sleep(0.05)\n"
    assert kernel.stdout(loaded + "print('jsonschema' in sys.modules)").strip() == "True"

    kernel.execute('%%mewrk\ncall: mcp__calc__add {"a": 2, "b": 3}')
    kernel.execute("%mewrk approve")  # the safety level asks first
    result = "s = current_session()\ns.last_run.wait()\nprint([c.result for c in s.cards if c.kind == 'tool_call'])"
    assert kernel.stdout("from mewrk_jupyter.magics import current_session\n" + result).strip() == "['5']"
    assert len(starts(log)) == 1
