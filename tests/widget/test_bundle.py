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


class _App:
    def __init__(self) -> None:
        self.lines: list[str] = []

    def display_info(self, text: str) -> None:
        self.lines.append(text)

    display_warning = display_info


def _project(tmp_path: Path, *, bundle: bool, current: bool) -> Path:
    """A minimal project tree: js/ sources and, if asked, a bundle whose stamp may match them."""
    hook = _hook()
    js = tmp_path / "js"
    (js / "src").mkdir(parents=True)
    (js / "src" / "index.ts").write_text("export default {};\n")
    for name in ("package-lock.json", "build.mjs", "package.json"):
        (js / name).write_text("{}\n")
    static = tmp_path / "mewrk_jupyter" / "static"
    static.mkdir(parents=True)
    if bundle:
        (static / "widget.js").write_text("export default {};\n")
        (static / "widget.css").write_text(".mw-root {}\n")
        (static / "widget.stamp").write_text(hook.source_stamp(js) if current else "old\n")
    return tmp_path


def _run_hook(root: Path, monkeypatch, npm: str | None) -> list[str]:
    hook = _hook()
    app = _App()

    class Probe(hook.WidgetBundleHook):
        def __init__(self) -> None:
            pass

        root = property(lambda self: str(ROOT_OF[0]))
        app = property(lambda self: APP[0])

    ROOT_OF, APP = [root], [app]
    monkeypatch.setattr(hook.shutil, "which", lambda name: npm)

    def no_npm_run(*args, **kwargs):
        raise AssertionError(f"npm should not run: {args}")

    monkeypatch.setattr(hook.subprocess, "run", no_npm_run)
    monkeypatch.delenv("MEWRK_SKIP_JS_BUILD", raising=False)
    Probe().initialize("standard", {})
    return app.lines


def test_the_build_hook_leaves_a_current_bundle_alone(tmp_path, monkeypatch):
    lines = _run_hook(_project(tmp_path, bundle=True, current=True), monkeypatch, npm="/usr/bin/npm")
    assert lines == ["mewrk widget: the front-end bundle is up to date"]


def test_without_npm_the_build_hook_packages_a_stale_bundle_with_a_warning(tmp_path, monkeypatch):
    lines = _run_hook(_project(tmp_path, bundle=True, current=False), monkeypatch, npm=None)
    assert len(lines) == 1 and "npm is not installed" in lines[0]


def test_without_npm_and_without_a_bundle_the_build_says_what_to_install(tmp_path, monkeypatch):
    with pytest.raises(RuntimeError, match="npm is not installed"):
        _run_hook(_project(tmp_path, bundle=False, current=False), monkeypatch, npm=None)
