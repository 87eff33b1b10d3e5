"""The front-end bundle inside the package is present and built from the js/ sources as they stand."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

import mewrk_jupyter
from mewrk_jupyter.widget import BUNDLE, STYLES

ROOT = Path(__file__).resolve().parents[2]


def _hook():
    spec = importlib.util.spec_from_file_location("hatch_build", ROOT / "hatch_build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_bundle_ships_inside_the_package():
    assert BUNDLE.parent == Path(mewrk_jupyter.__file__).parent / "static"
    text = BUNDLE.read_text()
    assert text.lstrip().startswith(("var ", "import", "(", "function", "const", "let", "/*"))
    assert "export" in text and "import(" not in text  # one self-contained ES module, nothing fetched
    assert STYLES.read_text().count(".mw-root") >= 1


@pytest.mark.skipif(not (ROOT / "js" / "src").is_dir(), reason="installed without the js/ sources")
def test_the_committed_bundle_matches_the_sources():
    present, current = _hook().bundle_state(ROOT)
    assert present
    assert current, "mewrk_jupyter/static is stale: run `npm run build` in js/ and commit the result"
