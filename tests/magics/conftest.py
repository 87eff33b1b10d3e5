"""Fixtures for the magics: an IPython shell with the extension loaded, in a fresh workspace."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from IPython.core.interactiveshell import InteractiveShell
from IPython.utils.capture import capture_output

from mewrk_jupyter import magics


@pytest.fixture
def ip(workspace: Path, monkeypatch: pytest.MonkeyPatch):
    """The test IPython shell (no kernel) with `%load_ext mewrk_jupyter` done and no current session."""
    monkeypatch.setattr(magics, "STATE", magics.MagicState())
    shell = InteractiveShell.instance()
    shell.run_line_magic("load_ext", "mewrk_jupyter")
    return shell


@pytest.fixture
def mewrk(ip) -> Callable[..., str]:
    """Run `%mewrk LINE` (or `%%mewrk LINE` with a body) and return the Markdown it displayed."""

    def run(line: str, body: str | None = None) -> str:
        with capture_output() as captured:
            if body is None:
                ip.run_line_magic("mewrk", line)
            else:
                ip.run_cell_magic("mewrk", line, body)
        shown = [out.data.get("text/markdown", "") for out in captured.outputs]
        return "\n".join(shown) + captured.stdout + captured.stderr

    return run
