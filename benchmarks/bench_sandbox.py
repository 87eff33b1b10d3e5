"""What confining a command costs per command: building bubblewrap's view of the files, and starting a
command in it.

Run: python benchmarks/bench_sandbox.py        (needs bubblewrap: `apt install bubblewrap`)

The sandbox is the one a session's bash call gets (`sandbox_at`: a trusted workspace, its configuration
folder read-only, the secret files and Jupyter's runtime folder hidden), the environment the kernel's,
PATH included. "view" is `Sandbox.command` alone, the argv that starts `true` confined: the median of
ROUNDS rounds of VIEWS calls each, per call. "start" is `run_process(["true"], …)` in that sandbox, from
the call to the command's end: the median of STARTS runs, bubblewrap's own start included.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from mewrk_jupyter.engine.toolbox.secrets import sandbox_at  # noqa: E402
from mewrk_jupyter.engine.workspace import Workspace  # noqa: E402
from mewrk_jupyter.tools.sandbox import available  # noqa: E402
from mewrk_jupyter.tools.shell import run_process  # noqa: E402

ROUNDS = 7
VIEWS = 300
STARTS = 30


def main() -> None:
    """Print the per-command figures for this machine's PATH."""
    have = available()
    if have.kind != "bubblewrap":
        sys.exit(f"no bubblewrap sandbox here: {have.why}")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / ".mewrk").mkdir()
        sandbox = sandbox_at(Workspace.at(root), "default")
        env = dict(os.environ)
        rounds = []
        for _ in range(ROUNDS):
            began = time.perf_counter()
            for _ in range(VIEWS):
                sandbox.command(["true"], root, env)
            rounds.append((time.perf_counter() - began) / VIEWS)
        starts = []
        for _ in range(STARTS):
            began = time.perf_counter()
            result = run_process(["true"], root, 30.0, env=env, sandbox=sandbox)
            starts.append(time.perf_counter() - began)
            assert not result.is_error, result.text
        folders = len(env.get("PATH", "").split(os.pathsep))
        print(f"PATH of {folders} folders, in {have.kind}")
        print(f"view   {statistics.median(rounds) * 1e6:8.1f} µs per command (median of {ROUNDS}×{VIEWS})")
        print(f"start  {statistics.median(starts) * 1e3:8.2f} ms per command (median of {STARTS})")


if __name__ == "__main__":
    main()
