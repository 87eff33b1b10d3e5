"""The README's two set-up commands: CI runs exactly the test command, and the first one leaves JupyterLab ready."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _bash_block_after(text: str, heading: str) -> str:
    start = text.index(heading)
    block = re.search(r"```bash\n(.*?)\n```", text[start:], re.S)
    assert block, f"no bash block after {heading!r}"
    return block.group(1).strip()


def test_ci_runs_exactly_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text()
    command = _bash_block_after(readme, "Run the tests:")
    lines = [
        line.strip()
        for line in (ROOT / ".ci" / "run").read_text().splitlines()
        if line.strip() and not line.lstrip().startswith("#")
    ]
    # Only the shell's own set-up before it: strict mode and the clone's root as the folder.
    assert lines[-1] == f"exec {command}", lines
    assert all(line.startswith(("set ", "cd ")) for line in lines[:-1]), lines


def test_the_test_command_installs_what_a_fresh_clone_lacks_and_requires_every_part() -> None:
    script = (ROOT / "tests" / "run.sh").read_text()
    for step in ("apt-get install", "npm ci", 'pip install -e ".[test]"', "python -m pytest"):
        assert step in script, step
    assert "MEWRK_REQUIRE_BROWSER=1" in script and "MEWRK_REQUIRE_GATES=1" in script


def test_the_first_command_installs_jupyterlab() -> None:
    pyproject = (ROOT / "pyproject.toml").read_text()
    dependencies = re.search(r"^dependencies = \[\n(.*?)^\]", pyproject, re.S | re.M)
    assert dependencies, "pyproject.toml has no [project] dependencies list"
    assert re.search(r'^\s*"jupyterlab>=', dependencies.group(1), re.M)
