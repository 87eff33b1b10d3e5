"""The front-end bundle inside the package is present and built from the js/ sources as they stand."""

from __future__ import annotations

import importlib.util
import json
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


def _project(
    tmp_path: Path, *, bundle: bool, current: bool, plugin: bool = True, plugin_current: bool = True
) -> Path:
    """A minimal project tree: js/ and labextension/ sources and, if asked, builds whose stamps may match them."""
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
    lab = tmp_path / "labextension"
    (lab / "src").mkdir(parents=True)
    (lab / "src" / "index.ts").write_text("export default {};\n")
    for name in ("build.mjs", "package-lock.json", "package.json", "tsconfig.json"):
        (lab / name).write_text("{}\n")
    if plugin:
        built = tmp_path / "mewrk_jupyter" / "labextension"
        (built / "static").mkdir(parents=True)
        (built / "package.json").write_text("{}\n")
        (built / "build.stamp").write_text(hook.labextension_stamp(lab) if plugin_current else "old\n")
    return tmp_path


def _run_hook(
    root: Path, monkeypatch, npm: str | None, builder: str | None = "/usr/bin/jupyter-builder"
) -> list[str]:
    hook = _hook()
    app = _App()

    class Probe(hook.WidgetBundleHook):
        def __init__(self) -> None:
            pass

        root = property(lambda self: str(ROOT_OF[0]))
        app = property(lambda self: APP[0])

    ROOT_OF, APP = [root], [app]
    tools = {"npm": npm, "jupyter-builder": builder}
    monkeypatch.setattr(hook.shutil, "which", lambda name: tools[name])

    def no_npm_run(*args, **kwargs):
        raise AssertionError(f"npm should not run: {args}")

    monkeypatch.setattr(hook.subprocess, "run", no_npm_run)
    monkeypatch.delenv("MEWRK_SKIP_JS_BUILD", raising=False)
    Probe().initialize("standard", {})
    return app.lines


def test_the_build_hook_leaves_a_current_bundle_alone(tmp_path, monkeypatch):
    lines = _run_hook(_project(tmp_path, bundle=True, current=True), monkeypatch, npm="/usr/bin/npm")
    assert lines == [
        "mewrk widget: the front-end bundle is up to date",
        "mewrk JupyterLab plugin: the JupyterLab plugin is up to date",
    ]


def test_without_npm_the_build_hook_packages_a_stale_bundle_with_a_warning(tmp_path, monkeypatch):
    lines = _run_hook(_project(tmp_path, bundle=True, current=False), monkeypatch, npm=None)
    assert len(lines) == 2 and "npm is not installed" in lines[0] and "up to date" in lines[1]


def test_without_npm_and_without_a_bundle_the_build_says_what_to_install(tmp_path, monkeypatch):
    with pytest.raises(RuntimeError, match="npm is not installed"):
        _run_hook(_project(tmp_path, bundle=False, current=False), monkeypatch, npm=None)


@pytest.mark.skipif(
    not (ROOT / "labextension" / "src").is_dir(), reason="installed without the labextension/ sources"
)
def test_the_committed_jupyterlab_plugin_matches_its_sources():
    present, current = _hook().labextension_state(ROOT)
    assert present
    assert current, (
        "mewrk_jupyter/labextension is stale: run `npm run build` in labextension/ and commit the result"
    )
    built = json.loads((ROOT / "mewrk_jupyter" / "labextension" / "package.json").read_text())
    assert built["name"] == "mewrk-jupyter"
    assert (ROOT / "mewrk_jupyter" / "labextension" / built["jupyterlab"]["_build"]["load"]).is_file()


def test_without_jupyterlabs_builder_a_stale_plugin_is_packaged_with_a_warning(tmp_path, monkeypatch):
    project = _project(tmp_path, bundle=True, current=True, plugin_current=False)
    lines = _run_hook(project, monkeypatch, npm="/usr/bin/npm", builder=None)
    assert lines[0] == "mewrk widget: the front-end bundle is up to date"
    assert lines[1].startswith("mewrk JupyterLab plugin: jupyter-builder is not installed")
    assert "packaging the existing mewrk_jupyter/labextension" in lines[1]


def test_without_jupyterlabs_builder_and_without_a_plugin_build_the_build_says_what_to_install(
    tmp_path, monkeypatch
):
    project = _project(tmp_path, bundle=True, current=True, plugin=False)
    with pytest.raises(RuntimeError, match="Install JupyterLab 4.6 or later"):
        _run_hook(project, monkeypatch, npm="/usr/bin/npm", builder=None)
