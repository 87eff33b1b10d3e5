"""One module per attack for bench_attacks.py: ATTACK (a sentence), TRIALS, and trial(folder) -> bool."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any


@contextmanager
def as_a_newcomer(folder: Path) -> Iterator[list[str]]:
    """A person with nothing trusted yet (their own config folder inside the trial's folder), no MEWRK_HOME;
    yields the configuration notices shown meanwhile."""
    saved = {name: os.environ.get(name) for name in ("MEWRK_USER_CONFIG", "MEWRK_HOME")}
    os.environ["MEWRK_USER_CONFIG"] = str(folder / "person-config")
    os.environ.pop("MEWRK_HOME", None)
    notices: list[str] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            yield notices
            notices.extend(str(w.message) for w in caught)
    finally:
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def write(folder: Path, rel: str, text: str | bytes) -> Path:
    """Write a file of the workspace's `.mewrk/` folder."""
    path = folder / ".mewrk" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text)
    return path


_wire: list = []


def wire_server():
    """One local Anthropic-compatible server (tests/providers/wire) for every trial of this run."""
    if not _wire:
        from tests.providers.wire import WireServer  # the attack put the repository on sys.path

        _wire.append(WireServer().start())
    return _wire[0]


def run_kernel(code: str, cwd: Path, env: dict[str, str], *args: str) -> subprocess.CompletedProcess:
    """Run `code` (indented as written) in a new Python process, a kernel's stand-in, within a minute."""
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )


def last_json_line(script: str, args: list[str], folder: Path, hung: float) -> dict[str, Any] | None:
    """Run `script` in a new Python process in `folder` and read the JSON object on its last line; None
    when it ran past `hung` seconds or failed (its error output is printed)."""
    try:
        done = subprocess.run(
            [sys.executable, "-c", textwrap.dedent(script), *args],
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=hung,
        )
    except subprocess.TimeoutExpired:
        return None
    if done.returncode != 0:
        print(done.stderr, file=sys.stderr)
        return None
    return json.loads(done.stdout.splitlines()[-1])
