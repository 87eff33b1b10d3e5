"""A real `jupyter server` on localhost, started once per test module with the package's own
jupyter_server_config.d entry, a token and a temporary root directory (the workspace)."""

from __future__ import annotations

import json
import os
import secrets
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.ports import WITHOUT_COLLABORATION, free_port

REPO = Path(__file__).resolve().parents[2]
CONFIG_ENTRY = REPO / "jupyter-config" / "jupyter_server_config.d" / "mewrk_jupyter.json"


@dataclass
class Server:
    """A running server: its URL, token, workspace and the environment a second process on it needs."""

    url: str
    token: str
    root: Path
    env: dict[str, str]
    proc: subprocess.Popen = field(repr=False)

    @property
    def api(self) -> str:
        """The API's base URL."""
        return f"{self.url}mewrk/v2"

    def client(self, token: bool = True, **kwargs: Any) -> httpx.Client:
        """An HTTP client, authenticated by the token unless told otherwise."""
        headers = {"Authorization": f"token {self.token}"} if token else {}
        headers.update(kwargs.pop("headers", {}))
        return httpx.Client(base_url=self.api, headers=headers, timeout=60, **kwargs)

    def python(self, code: str) -> subprocess.Popen:
        """A kernel-like Python process on the same workspace (its stdout is a pipe of text lines)."""
        return subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=self.root,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )


def start_server(
    base: Path,
    token: str | None = None,
    args: tuple[str, ...] = (),
    collaboration: bool = False,
    **extra_env: str,
) -> Server:
    """Start `jupyter server` and wait until it answers; the extension is enabled only by its config entry.
    `token=""` starts it without a token, as `--IdentityProvider.token=''` does; `args` go to the server;
    jupyter-collaboration's server side runs only when `collaboration` is true."""
    root, home, user_config = base / "root", base / "home", base / "user-config"
    config_path = base / "jupyter-config" / "jupyter_server_config.d"
    for folder in (root, home, user_config, config_path):
        folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(CONFIG_ENTRY, config_path)
    port = free_port()
    token = secrets.token_hex(16) if token is None else token
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MEWRK_", "JUPYTER_"))}
    env.update(
        PYTHONPATH=os.pathsep.join([str(REPO), env.get("PYTHONPATH", "")]).rstrip(os.pathsep),
        HOME=str(home),
        MEWRK_USER_CONFIG=str(user_config),  # where trust is kept, private to this server
        JUPYTER_CONFIG_DIR=str(base / "jupyter-home"),
        JUPYTER_CONFIG_PATH=str(config_path.parent),
        JUPYTER_RUNTIME_DIR=str(base / "runtime"),
        JUPYTER_DATA_DIR=str(base / "data"),
        **extra_env,
    )
    log = open(base / "server.log", "w")  # noqa: SIM115 — closed with the process
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "jupyter_server",
            "--no-browser",
            "--allow-root",
            f"--port={port}",
            "--ip=127.0.0.1",
            f"--IdentityProvider.token={token}",
            f"--ServerApp.root_dir={root}",
            *(() if collaboration else WITHOUT_COLLABORATION),
            *args,
        ],
        cwd=root,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    server = Server(f"http://127.0.0.1:{port}/", token, root, env, proc)
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"jupyter server exited: {(base / 'server.log').read_text()[-3000:]}")
        try:
            headers = {"Authorization": f"token {token}"} if token else {}
            # Behind a password the status answers 403 until a person logs in: that too is up.
            if httpx.get(f"{server.url}api/status", headers=headers).status_code in (200, 403):
                return server
        except httpx.TransportError:
            pass
        time.sleep(0.2)
    stop_server(server)
    raise RuntimeError(f"jupyter server did not answer: {(base / 'server.log').read_text()[-3000:]}")


def stop_server(server: Server) -> None:
    """End the server process, killing it if it does not stop."""
    server.proc.terminate()
    try:
        server.proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        server.proc.kill()
        server.proc.wait(timeout=15)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """One jupyter server for the module's tests (starting one is slow); killed at the end."""
    running = start_server(tmp_path_factory.mktemp("jupyter"))
    try:
        yield running
    finally:
        stop_server(running)


@dataclass
class Event:
    """One Server-Sent Event."""

    event: str
    data: dict[str, Any]
    id: int | None = None


def events_of(lines: Iterator[str]) -> Iterator[Event]:
    """Parse an SSE stream's lines into events (comments skipped)."""
    name, data, event_id = "message", "", None
    for line in lines:
        if not line:
            if data:
                yield Event(name, json.loads(data), event_id)
            name, data, event_id = "message", "", None
        elif line.startswith(":"):
            continue
        else:
            key, _, value = line.partition(":")
            value = value[1:] if value.startswith(" ") else value
            if key == "event":
                name = value
            elif key == "data":
                data += value
            elif key == "id":
                event_id = int(value)
