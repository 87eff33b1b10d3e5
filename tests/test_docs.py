"""docs/requirements.md defines every requirement code that the code and the tests name."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "requirements.md"
# Where codes are used: the package, the tests and the widget's TypeScript source.
SOURCES = [("mewrk_jupyter", "*.py"), ("tests", "*.py"), ("js/src", "*.ts")]
# A code, or a range of codes of one letter ("A1–A3", "T4-T11").
CODE = re.compile(r"\b([TCASDRNPX])([0-9]{1,2})(?:\s*[–-]\s*\1([0-9]{1,2}))?\b")
ENTRY = re.compile(r"^### ([TCASDRNPX][0-9]{1,2}) — \S", re.MULTILINE)
PATH = re.compile(r"`((?:mewrk_jupyter|tests|js)/[^`\s]*)`")


def codes_used() -> dict[str, set[str]]:
    """Each code named in the sources, with the files that name it; a range names every code in it."""
    used: dict[str, set[str]] = {}
    for folder, pattern in SOURCES:
        for path in sorted((ROOT / folder).rglob(pattern)):
            if path == Path(__file__).resolve():
                continue
            for letter, first, last in CODE.findall(path.read_text(encoding="utf-8")):
                for n in range(int(first), int(last or first) + 1):
                    used.setdefault(f"{letter}{n}", set()).add(str(path.relative_to(ROOT)))
    return used


def test_every_code_used_has_an_entry() -> None:
    defined = set(ENTRY.findall(PAGE.read_text(encoding="utf-8")))
    missing = {code: sorted(files) for code, files in codes_used().items() if code not in defined}
    assert not missing, f"codes without an entry in docs/requirements.md: {missing}"


def test_each_code_has_one_entry() -> None:
    entries = ENTRY.findall(PAGE.read_text(encoding="utf-8"))
    assert len(entries) == len(set(entries)), sorted(c for c in entries if entries.count(c) > 1)


def test_the_places_the_page_names_exist() -> None:
    named = PATH.findall(PAGE.read_text(encoding="utf-8"))
    assert named
    gone = sorted({p for p in named if not (ROOT / p.rstrip("/")).exists()})
    assert not gone, f"docs/requirements.md names places that do not exist: {gone}"
