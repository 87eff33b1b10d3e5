"""The README's "Settings: three layers" examples, run as written: the Python block, then the magics in
IPython (after `%mewrk new`, which makes a session current), in an empty folder of their own."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _blocks() -> list[str]:
    """The code blocks of the section, in order."""
    text = README.read_text(encoding="utf-8")
    section = text.split("### Settings: three layers", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, re.S)


def test_the_three_layers_examples_run_as_written(tmp_path):
    python, magics = _blocks()
    script = python + "print('model', s.settings.model)\n%load_ext mewrk_jupyter\n%mewrk new\n" + magics
    (tmp_path / "readme.ipy").write_text(script)
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    env.pop("MEWRK_HOME", None)
    done = subprocess.run(
        [sys.executable, "-m", "IPython", "--no-banner", "--colors=NoColor", "readme.ipy"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert "model offline/thinker" in out
    assert "Changed model 'offline/big' → 'offline/thinker'." in out  # %mewrk set, on the new session
    assert "| `confirm_delete` | `true` | true or false |" in out  # set_preferences, read by the magic
    assert "**Conversation settings**" in out and "| `agents/main.yaml` | editable |" in out
    home = tmp_path / ".mewrk"
    assert (home / "preferences.yaml").read_text() == "confirm_delete: true\n"
    assert (home / "agents" / "main.yaml").read_text() == "model: offline/big\n"
