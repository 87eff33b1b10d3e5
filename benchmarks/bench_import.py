"""How long `import mewrk_jupyter` takes beside its own base, and which heavy modules it loads.

Run: python benchmarks/bench_import.py [ROUNDS]
Each round starts two fresh Python processes in a folder outside the repository, as a user's notebook
is: one imports the base the package builds on (ipywidgets, anywidget, pydantic, yaml, httpx), the
other `mewrk_jupyter`; the figure is the ratio of the medians (the goal: within 2x). It is measured
twice. "installed": the package's bytecode is cached, as after `pip install` (which compiles it) or the
first import of an editable install. "from source": no cached bytecode and PYTHONDONTWRITEBYTECODE=1
(a development container), so every import compiles the package's ~180 modules; the base keeps the
bytecode its wheels installed. Then it lists the vendor SDKs, the Jupyter server, the PDF library and the other
large modules that a plain import loaded (the goal: none, until a session uses them).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE = "import ipywidgets, anywidget, pydantic, yaml, httpx"
PACKAGE = "import mewrk_jupyter"
# Modules a person on the offline model never needs at import.
HEAVY = (
    "anthropic",
    "openai",
    "boto3",
    "botocore",
    "google.auth",
    "mcp",
    "jupyter_server",
    "tornado",
    "pypdf",
    "nbformat",
    "nbclient",
    "IPython",
    "numpy",
    "pandas",
    "re2",
)
TIMED = """
import json, sys, time
started = time.perf_counter()
{statement}
print(json.dumps({{"seconds": time.perf_counter() - started, "modules": sorted(sys.modules)}}))
"""


def timed(statement: str, *, write_bytecode: bool) -> tuple[float, list[str]]:
    """Seconds `statement` took in a fresh process, and the modules loaded after it."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    if not write_bytecode:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    done = subprocess.run(
        [sys.executable, "-c", TIMED.format(statement=statement)],
        cwd=Path(tempfile.gettempdir()),
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    found = json.loads(done.stdout.splitlines()[-1])
    return found["seconds"], found["modules"]


def forget_bytecode() -> None:
    """Remove the package's cached bytecode, so that the next import compiles it."""
    for cache in (ROOT / "mewrk_jupyter").rglob("__pycache__"):
        shutil.rmtree(cache, ignore_errors=True)


def measure(rounds: int, *, cached: bool) -> tuple[float, float, list[str]]:
    """Medians of the base's and the package's import, and the modules the package's import loaded."""
    if cached:
        timed(PACKAGE, write_bytecode=True)  # writes the bytecode the rounds then read
    else:
        forget_bytecode()
    base, package = [], []
    modules: list[str] = []
    for _ in range(rounds):
        base.append(timed(BASE, write_bytecode=cached)[0])
        seconds, modules = timed(PACKAGE, write_bytecode=cached)
        package.append(seconds)
    return statistics.median(base), statistics.median(package), modules


def main(rounds: int) -> None:
    modules: list[str] = []
    for label, cached in (("installed", True), ("from source", False)):
        b, p, modules = measure(rounds, cached=cached)
        print(
            f"{label:>11}: base ({BASE[7:]}) {b:.3f} s   mewrk_jupyter {p:.3f} s   "
            f"ratio {p / b:.2f}  ({rounds} rounds)"
        )
    loaded = [name for name in HEAVY if name in modules]
    print(f"modules loaded: {len(modules)}; heavy ones among them: {', '.join(loaded) or 'none'}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
