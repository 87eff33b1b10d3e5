"""Quality gates that run with the suite: ruff, the TypeScript compiler in strict mode, mypy, the
layer contract (import-linter, configured in pyproject.toml) and the size of a module.

Each fails with the tool's own output. tsc comes from js/node_modules and labextension/node_modules
(`npm ci` in each, as tests/run.sh does); without it the TypeScript gate is skipped, unless
MEWRK_REQUIRE_GATES=1 makes that a failure (as CI does).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def _passes(args: list[str], cwd: Path = ROOT) -> None:
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True)
    assert done.returncode == 0, f"`{' '.join(args)}` failed:\n{done.stdout}{done.stderr}"


def test_ruff_finds_nothing() -> None:
    _passes([sys.executable, "-m", "ruff", "check", "."])


def test_ruff_format_leaves_every_file_as_it_is() -> None:
    _passes([sys.executable, "-m", "ruff", "format", "--check", "."])


@pytest.mark.parametrize("folder", ["js", "labextension"])  # the widget's front end, the JupyterLab plugin
def test_typescript_compiles_in_strict_mode(folder: str) -> None:
    sources = ROOT / folder
    options = json.loads((sources / "tsconfig.json").read_text())["compilerOptions"]
    assert options.get("strict") is True, f"{folder}/tsconfig.json must keep strict mode on"
    tsc = sources / "node_modules" / ".bin" / "tsc"
    if not tsc.exists() or shutil.which("node") is None:
        reason = f"tsc is not installed: install Node.js and run `npm ci` in {folder}/"
        if os.environ.get("MEWRK_REQUIRE_GATES") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    _passes([str(tsc), "--noEmit", "-p", "."], cwd=sources)


def test_the_package_type_checks() -> None:
    _passes([sys.executable, "-m", "mypy"])  # the files of pyproject.toml's [tool.mypy]


def test_imports_keep_the_layers_and_make_no_cycle() -> None:
    lint_imports = Path(sys.executable).with_name("lint-imports")
    _passes([str(lint_imports) if lint_imports.exists() else "lint-imports", "--no-cache"])


# The layout rule: a module over this many lines holds more than one idea, and is split by concern.
MAX_MODULE_LINES = 450


def test_no_module_of_the_package_is_over_450_lines() -> None:
    sizes = {
        str(path.relative_to(ROOT)): len(path.read_text(encoding="utf-8").splitlines())
        for path in sorted((ROOT / "mewrk_jupyter").rglob("*.py"))
    }
    over = [f"{name}: {lines} lines" for name, lines in sizes.items() if lines > MAX_MODULE_LINES]
    assert not over, f"modules over {MAX_MODULE_LINES} lines, to split by concern:\n" + "\n".join(over)
