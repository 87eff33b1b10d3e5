"""Hatchling build hook: build the two front ends before packaging — the widget's (js/, bundled into
mewrk_jupyter/static) and the JupyterLab plugin (labextension/, built into mewrk_jupyter/labextension,
which the wheel also installs as share/jupyter/labextensions/mewrk-jupyter).

Runs for the wheel, the sdist and editable installs. Each is rebuilt (`npm ci` when needed, then
`npm run build`) only when its build is missing or its stamp — a hash of its sources, lock file and build
script, written by its build.mjs — does not match the sources. Without npm (or, for the plugin, without
JupyterLab's `jupyter-builder`), an existing build is used as it is, with a warning when it looks stale.
MEWRK_SKIP_JS_BUILD=1 skips the step.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # imported outside a build, e.g. by tests/widget/test_bundle.py for source_stamp
    BuildHookInterface = object  # type: ignore[assignment,misc]

BUNDLE_FILES = ("widget.js", "widget.css")


def _digest(folder: Path, last: list[Path]) -> str:
    """The hash js/stamp.mjs computes: the files of folder/src in path order, then `last`, each by its path."""
    files = sorted(
        (p for p in (folder / "src").rglob("*") if p.is_file()),
        key=lambda p: p.relative_to(folder).as_posix(),
    )
    digest = hashlib.sha256()
    for path in files + last:
        digest.update(path.relative_to(folder).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def source_stamp(js: Path) -> str:
    """The hash js/build.mjs writes next to the bundle: same files, same order, same bytes."""
    last = [js / "package-lock.json", js / "build.mjs", js / "package.json"]
    # The protocol's schema, from which the build generates src/protocol.generated.ts.
    last += [path for path in (js / "protocol.schema.json",) if path.is_file()]
    return _digest(js, last)


def labextension_stamp(lab: Path) -> str:
    """The hash labextension/build.mjs writes into the plugin's build: same files, same order, same bytes."""
    return _digest(
        lab, [lab / name for name in ("build.mjs", "package-lock.json", "package.json", "tsconfig.json")]
    )


def _state(
    sources: Path, built: list[Path], stamp: Path, stamp_of: Callable[[Path], str]
) -> tuple[bool, bool]:
    """(build present, build matches the sources); without the sources a present build counts as current."""
    present = all(path.exists() for path in built)
    if not (sources / "src").is_dir():
        return present, present
    return present, present and stamp.is_file() and stamp.read_text().strip() == stamp_of(sources)


def bundle_state(root: Path) -> tuple[bool, bool]:
    """(bundle present, bundle matches js/ sources); without js/ sources a present bundle counts as current."""
    static = root / "mewrk_jupyter" / "static"
    return _state(
        root / "js", [static / name for name in BUNDLE_FILES], static / "widget.stamp", source_stamp
    )


def labextension_state(root: Path) -> tuple[bool, bool]:
    """(plugin build present, build matches labextension/ sources), as bundle_state says it of the widget."""
    built = root / "mewrk_jupyter" / "labextension"
    return _state(
        root / "labextension",
        [built / "package.json", built / "static"],
        built / "build.stamp",
        labextension_stamp,
    )


class FrontEnd(NamedTuple):
    """One front end the hook builds: where its sources are, what its build is and what building it takes."""

    name: str
    what: str  # what its build is called in a sentence
    sources: str
    built: str
    state: Callable[[Path], tuple[bool, bool]]
    tools: tuple[str, ...]


FRONT_ENDS = (
    FrontEnd(
        "mewrk widget", "the front-end bundle", "js", "mewrk_jupyter/static/widget.js", bundle_state, ("npm",)
    ),
    FrontEnd(
        "mewrk JupyterLab plugin",
        "the JupyterLab plugin",
        "labextension",
        "mewrk_jupyter/labextension",
        labextension_state,
        # The builder comes with JupyterLab 4.6 and later; a build in an environment without it (pip's
        # isolated build environment holds only hatchling) packages the committed build.
        ("npm", "jupyter-builder"),
    ),
)

TOOL_HINTS = {
    "npm": "Install Node.js 18+ with npm",
    "jupyter-builder": "Install JupyterLab 4.6 or later (it brings jupyter-builder) where the build runs",
}


class WidgetBundleHook(BuildHookInterface):
    """Builds the widget's bundle (mewrk_jupyter/static) and the JupyterLab plugin (mewrk_jupyter/labextension)
    from their sources when they are missing or stale."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if os.environ.get("MEWRK_SKIP_JS_BUILD") == "1":
            self.app.display_info("mewrk widget: MEWRK_SKIP_JS_BUILD=1, not building the front end")
            return
        for front_end in FRONT_ENDS:
            self._build(Path(self.root), front_end)

    def _build(self, root: Path, front_end: FrontEnd) -> None:
        name, sources = front_end.name, root / front_end.sources
        present, current = front_end.state(root)
        if current:
            self.app.display_info(f"{name}: {front_end.what} is up to date")
            return
        found = {tool: shutil.which(tool) for tool in front_end.tools}
        missing = [tool for tool, path in found.items() if path is None]
        if missing:
            tool = missing[0]
            if present:
                self.app.display_warning(
                    f"{name}: {tool} is not installed, so {front_end.what} was not rebuilt; packaging the "
                    f"existing {front_end.built}, which does not match {front_end.sources}/src"
                )
                return
            raise RuntimeError(
                f"{name}: {front_end.built} is missing and {tool} is not installed to build it from "
                f"{front_end.sources}/. {TOOL_HINTS[tool]}, or install mewrk_jupyter from a wheel."
            )
        npm = str(found["npm"])
        lock = sources / "package-lock.json"
        installed = sources / "node_modules" / ".package-lock.json"
        if not installed.is_file() or installed.stat().st_mtime < lock.stat().st_mtime:
            self.app.display_info(f"{name}: npm ci")
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=sources, check=True)
        self.app.display_info(f"{name}: building {front_end.built} from {front_end.sources}/src")
        subprocess.run([npm, "run", "build"], cwd=sources, check=True)
        if not front_end.state(root)[1]:
            raise RuntimeError(f"{name}: the build ran but left {front_end.what} stale or missing")
