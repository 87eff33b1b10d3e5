"""A language server that died says so: the lsp tool never answers "No problems reported" from what the
server said before it died, nor waits out its time for a server that is gone (#41.7)."""

from __future__ import annotations

import sys
from pathlib import Path

from mewrk_jupyter.tools import ToolRegistry, ToolResult

SERVER = Path(__file__).with_name("dying_lsp.py")


def _registry(ws: Path, *args: str) -> ToolRegistry:
    # The server's script sits in the workspace, which the sandbox shows to the commands it runs.
    script = ws / "dying_lsp.py"
    script.write_text(SERVER.read_text())
    return ToolRegistry.build(ws, lsp_command=(sys.executable, str(script), *args))


def test_a_server_that_dies_on_a_change_says_it_died_instead_of_its_earlier_no_problems(ws: Path):
    (ws / "a.py").write_text("x = 1\n")
    registry = _registry(ws)
    try:
        first = registry.run("lsp", {"action": "diagnostics", "path": "a.py"})
        assert first == ToolResult(text="No problems reported for `a.py`.")
        (ws / "a.py").write_text("x = (\n")
        died = registry.run("lsp", {"action": "diagnostics", "path": "a.py"})
        assert died == ToolResult(
            text="The language server stopped (exit status 3) before it reported on `a.py`; "
            "the next lsp call starts it again.",
            is_error=True,
        )
        # The next call starts it again, and it reads the file as it is now.
        again = registry.run("lsp", {"action": "diagnostics", "path": "a.py"})
        assert again == ToolResult(text="No problems reported for `a.py`.")
    finally:
        registry.close()


def test_a_server_that_dies_as_it_opens_the_file_says_so_at_once(ws: Path):
    (ws / "a.py").write_text("x = 1\n")
    registry = _registry(ws, "--die-on-open")
    try:
        died = registry.run("lsp", {"action": "diagnostics", "path": "a.py"})
    finally:
        registry.close()
    assert died == ToolResult(
        text="The language server stopped (exit status 3) before it reported on `a.py`; "
        "the next lsp call starts it again.",
        is_error=True,
    )
