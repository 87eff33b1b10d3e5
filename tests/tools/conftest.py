"""A workspace folder with a sibling folder outside it, and a registry over the workspace."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from mewrk_jupyter.tools import ToolRegistry


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """An empty workspace folder."""
    root = tmp_path / "ws"
    root.mkdir()
    return root


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder beside the workspace holding `secret.txt`, which no file tool may reach."""
    folder = tmp_path / "outside"
    folder.mkdir()
    (folder / "secret.txt").write_text("top secret\n")
    return folder


@pytest.fixture
def registry(ws: Path) -> Iterator[ToolRegistry]:
    """Every built-in tool over `ws`."""
    with ToolRegistry.build(ws) as tools:
        yield tools
