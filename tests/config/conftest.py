"""A configuration folder in tmp_path, and a helper that writes files into it."""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest

ANTHROPIC = """\
protocol: anthropic-messages
api_key: ${ANTHROPIC_API_KEY}
models:
  claude-sonnet-4-5: {context_window: 200000, vision: true, thinking: signed}
"""


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """An empty `.mewrk` folder."""
    folder = tmp_path / ".mewrk"
    folder.mkdir()
    return folder


@pytest.fixture
def write(home: Path) -> Callable[[str, str], Path]:
    """Write `text` (dedented) to `rel` under the config folder."""

    def _write(rel: str, text: str) -> Path:
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"), encoding="utf-8")
        return path

    return _write
