"""A plain `import mewrk_jupyter`, as a notebook does it, loads none of the large libraries that only some
sessions use: the vendor SDKs, the Jupyter server, IPython, the PDF and notebook libraries, the MCP SDK,
numpy and pandas. They load when a session reaches for them. The time it takes is measured by
benchmarks/bench_import.py, never asserted here (#41.3)."""

from __future__ import annotations

import json
import subprocess
import sys

# Each one costs from tens to hundreds of milliseconds, and a person on the offline model needs none.
LATER = (
    "anthropic",
    "openai",
    "boto3",
    "botocore",
    "google.auth",
    "mcp",
    "jupyter_server",
    "tornado",
    "IPython",
    "ipykernel",
    "pypdf",
    "nbformat",
    "nbclient",
    "numpy",
    "pandas",
    "psycopg",
    "tree_sitter",
    "tree_sitter_bash",
)


def test_a_plain_import_leaves_the_large_libraries_for_later(tmp_path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "import json, sys, mewrk_jupyter; print(json.dumps(sorted(sys.modules)))"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    loaded = set(json.loads(done.stdout.splitlines()[-1]))
    assert "mewrk_jupyter.engine.session" in loaded  # the public surface itself is there
    assert sorted(name for name in LATER if name in loaded) == []
