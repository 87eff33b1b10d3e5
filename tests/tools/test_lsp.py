"""lsp against the real jedi-language-server: definition, references, hover, diagnostics; and none installed."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from mewrk_jupyter.tools import NOT_INSTALLED, ToolRegistry, ToolResult

GEOMETRY = '''\
def area(width: float, height: float) -> float:
    """The area of a rectangle."""
    return width * height


def square(side: float) -> float:
    return area(side, side)
'''

APP = """\
from geometry import area

print(area(2, 3))
"""


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A two-file project; one server serves every test of this module, so the files stay unchanged."""
    root = tmp_path_factory.mktemp("lsp") / "ws"
    root.mkdir()
    (root / "geometry.py").write_text(GEOMETRY)
    (root / "app.py").write_text(APP)
    return root


@pytest.fixture(scope="module")
def lsp(project: Path) -> Iterator[ToolRegistry]:
    """A registry whose language server lives for the whole module."""
    with ToolRegistry.build(project) as registry:
        yield registry


def test_definition_across_files(lsp: ToolRegistry):
    result = lsp.run("lsp", {"action": "definition", "path": "app.py", "line": 3, "column": 7})
    assert result == ToolResult(text="geometry.py:1:5: def area(width: float, height: float) -> float:")


def test_references_include_the_declaration_and_every_use(lsp: ToolRegistry):
    result = lsp.run("lsp", {"action": "references", "path": "geometry.py", "line": 1, "column": 5})
    assert not result.is_error
    assert sorted(result.text.splitlines()) == [
        "app.py:1:22: from geometry import area",
        "app.py:3:7: print(area(2, 3))",
        "geometry.py:1:5: def area(width: float, height: float) -> float:",
        "geometry.py:7:12: return area(side, side)",
    ]


def test_hover_shows_the_signature_and_docstring(lsp: ToolRegistry):
    result = lsp.run("lsp", {"action": "hover", "path": "geometry.py", "line": 7, "column": 12})
    assert not result.is_error
    assert "def area(width: float, height: float) -> float" in result.text
    assert "The area of a rectangle." in result.text


def test_hover_on_nothing_says_so(lsp: ToolRegistry):
    result = lsp.run("lsp", {"action": "hover", "path": "geometry.py", "line": 5, "column": 1})
    assert result == ToolResult(text="No hover information at `geometry.py` line 5, column 1.")


def test_diagnostics_of_a_clean_file(lsp: ToolRegistry):
    assert lsp.run("lsp", {"action": "diagnostics", "path": "geometry.py"}) == ToolResult(
        text="No problems reported for `geometry.py`."
    )


def test_diagnostics_follow_the_file_as_it_changes(lsp: ToolRegistry, project: Path):
    lsp.run("write", {"path": "broken.py", "content": "def f(:\n    pass\n"})
    broken = lsp.run("lsp", {"action": "diagnostics", "path": "broken.py"})
    assert not broken.is_error
    assert broken.text.startswith("broken.py:1:7: error: SyntaxError: invalid syntax")
    lsp.run("edit", {"path": "broken.py", "old": "f(:", "new": "f():"})
    assert lsp.run("lsp", {"action": "diagnostics", "path": "broken.py"}).text == (
        "No problems reported for `broken.py`."
    )


def test_positions_are_required_and_checked(lsp: ToolRegistry):
    missing = lsp.run("lsp", {"action": "hover", "path": "app.py"})
    assert missing == ToolResult(text="`hover` needs `line` and `column` (both 1-based).", is_error=True)
    past = lsp.run("lsp", {"action": "definition", "path": "app.py", "line": 40, "column": 1})
    assert past == ToolResult(text="line 40 is past the end of `app.py` (3 lines).", is_error=True)
    action = lsp.run("lsp", {"action": "rename", "path": "app.py"})
    assert action.text == (
        "Invalid parameters for `lsp`: `action` must be one of diagnostics, definition, references, hover; "
        "got 'rename'."
    )


def test_lsp_paths_are_confined_like_the_file_tools(lsp: ToolRegistry):
    result = lsp.run("lsp", {"action": "diagnostics", "path": "../elsewhere.py"})
    assert result.is_error
    assert "is outside the workspace" in result.text


def test_a_stopped_call_is_not_sent(lsp: ToolRegistry):
    cancel = threading.Event()
    cancel.set()
    result = lsp.run("lsp", {"action": "hover", "path": "app.py", "line": 3, "column": 7}, cancel)
    assert result == ToolResult(
        text="The lsp request `textDocument/hover` was stopped before it was sent.", is_error=True
    )


def test_the_server_starts_again_after_close(project: Path):
    registry = ToolRegistry.build(project)
    params = {"action": "definition", "path": "app.py", "line": 3, "column": 7}
    first = registry.run("lsp", params)
    registry.close()
    assert registry.run("lsp", params) == first
    registry.close()


def test_no_server_installed_says_how_to_install_one(ws: Path):
    (ws / "a.py").write_text("x = 1\n")
    registry = ToolRegistry.build(ws, lsp_command=("no-such-language-server-for-mewrk",))
    result = registry.run("lsp", {"action": "diagnostics", "path": "a.py"})
    assert result == ToolResult(text=NOT_INSTALLED, is_error=True)
    assert NOT_INSTALLED == (
        "No Python language server is installed; install jedi-language-server "
        "(pip install jedi-language-server) to use lsp."
    )
