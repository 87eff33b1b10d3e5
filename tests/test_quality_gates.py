"""Quality gates that run with the suite: ruff, the TypeScript compiler in strict mode, no import cycle
among the TypeScript modules (dpdm), mypy, the layer contract (import-linter, configured in
pyproject.toml) and the size of a module.

Each fails with the tool's own output. tsc comes from js/node_modules and labextension/node_modules,
dpdm from js/node_modules (`npm ci` in each, as tests/run.sh does); without them the TypeScript gates are
skipped, unless MEWRK_REQUIRE_GATES=1 makes that a failure (as CI does).
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


def _node_tool(folder: Path, name: str) -> Path:
    """The program `name` that `npm ci` installed in `folder`; the test skips without it, or fails if required."""
    tool = folder / "node_modules" / ".bin" / name
    if not tool.exists() or shutil.which("node") is None:
        reason = f"{name} is not installed: install Node.js and run `npm ci` in {folder.name}/"
        if os.environ.get("MEWRK_REQUIRE_GATES") == "1":
            pytest.fail(reason)
        pytest.skip(reason)
    return tool


@pytest.mark.parametrize("folder", ["js", "labextension"])  # the widget's front end, the JupyterLab plugin
def test_typescript_compiles_in_strict_mode(folder: str) -> None:
    sources = ROOT / folder
    options = json.loads((sources / "tsconfig.json").read_text())["compilerOptions"]
    assert options.get("strict") is True, f"{folder}/tsconfig.json must keep strict mode on"
    tsc = _node_tool(sources, "tsc")
    _passes([str(tsc), "--noEmit", "-p", "."], cwd=sources)


@pytest.mark.parametrize("folder", ["js", "labextension"])
def test_typescript_modules_import_no_cycle(folder: str, tmp_path: Path) -> None:
    # One dpdm, the widget's, reads both front ends: it parses with its own TypeScript and needs nothing of
    # the plugin's packages. An `import type` counts: a cycle of types still ties the modules together.
    dpdm = _node_tool(ROOT / "js", "dpdm")
    sources = ROOT / folder
    graph = tmp_path / "imports.json"
    quiet = ["--no-tree", "--no-warning", "--no-circular", "--no-progress"]  # the graph goes to the file
    _passes([str(dpdm), *quiet, "-o", str(graph), "src/**/*.ts"], cwd=sources)
    found = json.loads(graph.read_text())
    # A module it could not read would have no cycle either: every one must be in its graph.
    modules = {path.relative_to(sources).as_posix() for path in (sources / "src").rglob("*.ts")}
    assert modules <= set(found["tree"]), f"dpdm did not read {sorted(modules - set(found['tree']))}"
    cycles = [" -> ".join([*cycle, cycle[0]]) for cycle in found["circulars"]]
    assert not cycles, f"{folder}/src has import cycles:\n" + "\n".join(cycles)


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
