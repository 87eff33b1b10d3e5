"""No module reads another module's underscore names: a class's privates are used by that class alone
(`self._x`, `cls._x`), and nothing imports a private name from elsewhere. IPython's display protocol
(`_repr_markdown_`, `_repr_mimebundle_`, …) and the SDKs' own conventions are public by design."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# Names that look private but are public protocols of other projects.
PUBLIC_BY_DESIGN = ("_repr_", "_ipython_", "_esm", "_css", "_asdict", "_replace", "_fields", "_make")


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__") and not name.startswith(PUBLIC_BY_DESIGN)


def _reads(path: Path) -> list[str]:
    """Each read of a private name that is not the reader's own, as `file:line name`."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and _private(node.attr):
            owner = node.value
            if isinstance(owner, ast.Name) and owner.id in ("self", "cls"):
                continue
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} .{node.attr}")
        elif (
            isinstance(node, ast.ImportFrom)
            and node.module
            and node.level == 0
            and node.module.startswith("mewrk_jupyter")
        ):
            found += [
                f"{path.relative_to(ROOT)}:{node.lineno} {a.name}" for a in node.names if _private(a.name)
            ]
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            found += [
                f"{path.relative_to(ROOT)}:{node.lineno} {a.name}" for a in node.names if _private(a.name)
            ]
    return found


def test_no_module_reads_another_modules_private_names():
    files = [
        path
        for part in ("mewrk_jupyter", "tests", "benchmarks")
        for path in sorted((ROOT / part).rglob("*.py"))
    ]
    reads = [read for path in files for read in _reads(path)]
    assert reads == [], "private names read from outside their class:\n" + "\n".join(reads)
