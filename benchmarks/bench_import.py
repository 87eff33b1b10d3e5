"""How long `import mewrk_jupyter` takes beside its own base, and which heavy modules it loads.

Run: python benchmarks/bench_import.py [ROUNDS]
Each round starts two fresh Python processes: one imports the base the package builds on (ipywidgets,
anywidget, pydantic, yaml, httpx), the other `mewrk_jupyter`; the figure is the ratio of the medians
(the goal: within 2x). Then it lists the vendor SDKs, the Jupyter server, the PDF library and the other
large modules that a plain import loaded (the goal: none, until a session uses them).
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
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


def timed(statement: str) -> tuple[float, list[str]]:
    """Seconds `statement` took in a fresh process, and the modules loaded after it."""
    done = subprocess.run(
        [sys.executable, "-c", TIMED.format(statement=statement)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    )
    found = json.loads(done.stdout.splitlines()[-1])
    return found["seconds"], found["modules"]


def main(rounds: int) -> None:
    base, package = [], []
    modules: list[str] = []
    for _ in range(rounds):
        base.append(timed(BASE)[0])
        seconds, modules = timed(PACKAGE)
        package.append(seconds)
    b, p = statistics.median(base), statistics.median(package)
    print(f"base ({BASE[7:]}): {b:.3f} s   mewrk_jupyter: {p:.3f} s   ratio {p / b:.2f}  ({rounds} rounds)")
    loaded = [name for name in HEAVY if name in modules]
    print(f"modules loaded: {len(modules)}; heavy ones among them: {', '.join(loaded) or 'none'}")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 7)
