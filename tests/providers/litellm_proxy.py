"""LiteLLM's proxy as a real server nobody here wrote: started as a subprocess with mocked models.

Each model's `mock_response` gives a fixed reply without calling any vendor, and the model cost map is
read from the package, so the proxy needs no network. It serves Anthropic Messages (`/v1/messages`) and
OpenAI Chat Completions (`/v1/chat/completions`) from the one port.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.ports import free_port

MASTER_KEY = "sk-litellm-test-4c8e2a9f71d3b605"
REPLY = "Hello from the mocked model."
STARTUP_SECONDS = 90  # a cold start imports a great deal; on a busy machine it takes tens of seconds
CONFIG = f"""\
model_list:
  - model_name: mock-claude
    litellm_params:
      model: anthropic/claude-mock
      api_key: not-used
      mock_response: "{REPLY}"
  - model_name: mock-gpt
    litellm_params:
      model: openai/gpt-mock
      api_key: not-used
      mock_response: "{REPLY}"
general_settings:
  master_key: {MASTER_KEY}
"""


def litellm_command() -> str | None:
    """The `litellm` command installed beside this Python (a venv's), or the first one on PATH."""
    beside = Path(sys.executable).parent / "litellm"
    return str(beside) if beside.exists() else shutil.which("litellm")


def _alive(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/health/liveliness", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


@contextmanager
def litellm_proxy(folder: Path) -> Iterator[str]:
    """Run the proxy on a free local port until the block ends; yields its base URL."""
    command = litellm_command()
    if command is None:
        if os.environ.get("MEWRK_REQUIRE_GATES"):
            pytest.fail("litellm is not installed: `pip install -e '.[test]'` installs it")
        pytest.skip("litellm is not installed (`pip install -e '.[test]'` installs it)")
    config = folder / "litellm.yaml"
    config.write_text(CONFIG)
    port = free_port()
    url = f"http://127.0.0.1:{port}"
    # Only what the proxy needs from the environment: no key of ours, and the cost map from the package.
    env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR", "SYSTEMROOT")}
    env.update(LITELLM_LOCAL_MODEL_COST_MAP="True", NO_DOCS="True", PYTHONUNBUFFERED="1")
    log = (folder / "litellm.log").open("w")
    process = subprocess.Popen(
        [command, "--config", str(config), "--host", "127.0.0.1", "--port", str(port)],
        stdout=log,
        stderr=subprocess.STDOUT,
        env=env,
        cwd=folder,
    )
    try:
        deadline = time.monotonic() + STARTUP_SECONDS
        while not _alive(url):
            if process.poll() is not None or time.monotonic() > deadline:
                log.flush()
                tail = (folder / "litellm.log").read_text()[-2000:]
                pytest.fail(f"the LiteLLM proxy did not start (exit code {process.poll()}):\n{tail}")
            time.sleep(0.25)
        yield url
    finally:
        process.terminate()
        try:
            process.wait(timeout=15)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()
