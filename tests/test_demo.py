"""The README's first command, `python -m mewrk_jupyter`, runs offline in an empty folder and speaks in words."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_the_demo_runs_offline_and_names_cards_in_words(tmp_path):
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("MEWRK_HOME", None)
    done = subprocess.run(
        [sys.executable, "-m", "mewrk_jupyter"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "model offline/echo" in out and "Request 2" in out and "(edited)" in out
    assert "  You " in out and "  Model " in out
    assert "user_input" not in out and "model_reply" not in out
    # A terminal shows Markdown as its marks: the history reads as plain lines.
    assert "**" not in out and "```" not in out and "_`" not in out
    assert "Request 1 · offline/echo" in out and "  Came back:" in out
    assert (tmp_path / ".mewrk" / "mewrk.db").exists()


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("MEWRK_HOME", None)
    return subprocess.run(
        [sys.executable, "-m", "mewrk_jupyter", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_an_unknown_command_gets_the_usage_and_a_failing_exit_and_runs_nothing(tmp_path):
    done = _run(tmp_path, "frobnicate")
    assert done.returncode == 2
    assert "usage: python -m mewrk_jupyter" in done.stderr
    assert "invalid choice: 'frobnicate'" in done.stderr
    assert done.stdout == "" and not (tmp_path / ".mewrk").exists()


def test_help_lists_the_commands_and_runs_nothing(tmp_path):
    done = _run(tmp_path, "--help")
    assert done.returncode == 0, done.stderr
    assert "commands:" in done.stdout and "demo" in done.stdout
    assert not (tmp_path / ".mewrk").exists()


def test_the_demo_by_name_is_the_demo(tmp_path):
    done = _run(tmp_path, "demo")
    assert done.returncode == 0, done.stderr
    assert "model offline/echo" in done.stdout and "Request 2" in done.stdout
