"""Hatchling build hook: bundle the widget's front end (js/) into mewrk_jupyter/static before packaging.

Runs for the wheel, the sdist and editable installs. The bundle is rebuilt (`npm ci` when needed,
then `npm run build`) only when it is missing or its stamp — a hash of js/src, the lock file, the
build script and the protocol's schema, written by js/build.mjs — does not match the sources. Without npm, an existing
bundle is used as it is, with a warning when it looks stale. MEWRK_SKIP_JS_BUILD=1 skips the step.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any

try:
    from hatchling.builders.hooks.plugin.interface import BuildHookInterface
except ImportError:  # imported outside a build, e.g. by tests/widget/test_bundle.py for source_stamp
    BuildHookInterface = object  # type: ignore[assignment,misc]

BUNDLE_FILES = ("widget.js", "widget.css")


def source_stamp(js: Path) -> str:
    """The hash js/build.mjs writes next to the bundle: same files, same order, same bytes."""
    files = sorted(
        (p for p in (js / "src").rglob("*") if p.is_file()), key=lambda p: p.relative_to(js).as_posix()
    )
    files += [js / "package-lock.json", js / "build.mjs", js / "package.json"]
    # The protocol's schema, from which the build generates src/protocol.generated.ts.
    files += [path for path in (js / "protocol.schema.json",) if path.is_file()]
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(js).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def bundle_state(root: Path) -> tuple[bool, bool]:
    """(bundle present, bundle matches js/ sources); without js/ sources a present bundle counts as current."""
    static = root / "mewrk_jupyter" / "static"
    present = all((static / name).is_file() for name in BUNDLE_FILES)
    js = root / "js"
    if not (js / "src").is_dir():
        return present, present
    stamp = static / "widget.stamp"
    current = present and stamp.is_file() and stamp.read_text().strip() == source_stamp(js)
    return present, current


class WidgetBundleHook(BuildHookInterface):
    """Builds mewrk_jupyter/static/widget.{js,css} from js/ when they are missing or stale."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        root = Path(self.root)
        js = root / "js"
        if os.environ.get("MEWRK_SKIP_JS_BUILD") == "1":
            self.app.display_info("mewrk widget: MEWRK_SKIP_JS_BUILD=1, not building the front end")
            return
        present, current = bundle_state(root)
        if current:
            self.app.display_info("mewrk widget: the front-end bundle is up to date")
            return
        npm = shutil.which("npm")
        if npm is None:
            if present:
                self.app.display_warning(
                    "mewrk widget: npm is not installed, so the front end was not rebuilt; "
                    "packaging the existing mewrk_jupyter/static/widget.js, which does not match js/src"
                )
                return
            raise RuntimeError(
                "mewrk widget: mewrk_jupyter/static/widget.js is missing and npm is not installed to build it "
                "from js/. Install Node.js 18+ with npm, or install mewrk_jupyter from a wheel."
            )
        lock = js / "package-lock.json"
        installed = js / "node_modules" / ".package-lock.json"
        if not installed.is_file() or installed.stat().st_mtime < lock.stat().st_mtime:
            self.app.display_info("mewrk widget: npm ci")
            subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=js, check=True)
        self.app.display_info("mewrk widget: bundling js/src into mewrk_jupyter/static")
        subprocess.run([npm, "run", "build"], cwd=js, check=True)
        if not bundle_state(root)[1]:
            raise RuntimeError("mewrk widget: the front-end build ran but left no current bundle")
