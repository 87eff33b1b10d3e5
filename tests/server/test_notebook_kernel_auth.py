"""The notebook tools of a kernel that a Jupyter server without a token, or behind a password, started:
the kernel proves itself with its connection key, so its command reaches the notebook bridge whatever the
server's own auth (a kernel can answer neither a password nor an XSRF cookie). Before, an empty token went
out as `Authorization: token `, which httpx refuses before sending, and every tool answered "did not
answer (LocalProtocolError)"; behind a password it was refused. A real kernel, started by the server as
JupyterLab starts one, runs a session whose model calls notebook_read; no window has the notebook open,
so the bridge's own sentence is what proves the command got through. (A window answering is tested in
tests/widget/test_browser_notebook_auth.py.)"""

from __future__ import annotations

import json
import queue
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from jupyter_client import BlockingKernelClient
from jupyter_server.auth import passwd

from mewrk_jupyter.tools.notebook_bridge import KERNEL_HEADER, SIGNATURE_HEADER, STAMP_HEADER, signature

from .conftest import Server, start_server, stop_server

PASSWORD = "correct horse"
NOTEBOOK = {"cells": [], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
# The model's call, as the offline model reads it, and what the session shows of its result.
CALL = """
import mewrk_jupyter as mw
s = mw.Session.new(title="bridge")
s.send('call: notebook_read {}', wait=True)
call = next(c for c in s.cards if c.kind == "tool_call")
print("RESULT:" + call.result)
"""
NOT_OPEN = "a.ipynb is not open in JupyterLab: open it there, then ask again."


@pytest.fixture(scope="module", params=["no token", "password"])
def guarded(request, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Server]]:
    """A server started without a token, or with a password (and so no token either)."""
    args = (f"--PasswordIdentityProvider.hashed_password={passwd(PASSWORD)}",)
    base = tmp_path_factory.mktemp(request.param.replace(" ", "-"))
    running = start_server(base, token="", args=args if request.param == "password" else ())
    try:
        yield request.param, running
    finally:
        stop_server(running)


def person(kind: str, server: Server) -> httpx.Client:
    """A browser's session with the server: its `_xsrf` cookie echoed in the header, logged in behind a
    password."""
    client = httpx.Client(base_url=server.url, timeout=60, follow_redirects=True)
    client.get("login")
    xsrf = client.cookies["_xsrf"]
    client.headers["X-XSRFToken"] = xsrf
    if kind == "password":
        client.post("login", data={"password": PASSWORD, "_xsrf": xsrf}).raise_for_status()
    return client


def kernel_for(client: httpx.Client, server: Server, path: str) -> str:
    """Open `path` as JupyterLab does: a notebook session, whose kernel the server starts; its id."""
    client.put(f"api/contents/{path}", json={"type": "notebook", "content": NOTEBOOK}).raise_for_status()
    made = client.post(
        "api/sessions", json={"path": path, "type": "notebook", "name": path, "kernel": {"name": "python3"}}
    )
    made.raise_for_status()
    return str(made.json()["kernel"]["id"])


def run_in_kernel(server: Server, kernel_id: str, code: str, timeout: float = 90) -> str:
    """Run `code` in the kernel through its connection file, as a front end does; what it printed."""
    connection = Path(server.env["JUPYTER_RUNTIME_DIR"]) / f"kernel-{kernel_id}.json"
    kernel = BlockingKernelClient(connection_file=str(connection))
    kernel.load_connection_file()
    kernel.start_channels()
    try:
        kernel.wait_for_ready(timeout=timeout)
        sent = kernel.execute(code)
        printed, deadline = [], time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                message = kernel.get_iopub_msg(timeout=1)
            except queue.Empty:
                continue
            if message["parent_header"].get("msg_id") != sent:
                continue
            kind, content = message["msg_type"], message["content"]
            if kind == "stream":
                printed.append(content["text"])
            elif kind == "error":
                printed.append("\n".join(content["traceback"]))
            elif kind == "status" and content["execution_state"] == "idle":
                return "".join(printed)
        raise AssertionError(f"the kernel did not finish: {''.join(printed)}")
    finally:
        kernel.stop_channels()


def key_of(server: Server, kernel_id: str) -> bytes:
    """The kernel's connection key, as its connection file holds it."""
    connection = Path(server.env["JUPYTER_RUNTIME_DIR"]) / f"kernel-{kernel_id}.json"
    return str(json.loads(connection.read_text())["key"]).encode()


@pytest.fixture(scope="module")
def kernel(guarded) -> str:
    """A kernel of a notebook the server started (`a.ipynb`, which no window has open)."""
    kind, server = guarded
    client = person(kind, server)
    try:
        return kernel_for(client, server, "a.ipynb")
    finally:
        client.close()


def test_the_models_notebook_call_reaches_the_bridge(guarded, kernel):
    _kind, server = guarded
    printed = run_in_kernel(server, kernel, CALL)
    assert f"RESULT:{NOT_OPEN}" in printed, printed


def _signed(server: Server, kernel_id: str, key: bytes, stamp: int | None = None) -> httpx.Response:
    content = json.dumps({"op": "read", "kernelId": kernel_id}).encode()
    when = str(int(time.time()) if stamp is None else stamp)
    headers = {
        KERNEL_HEADER: kernel_id,
        STAMP_HEADER: when,
        SIGNATURE_HEADER: signature(key, kernel_id, when, content),
        "Content-Type": "application/json",
    }
    return httpx.post(f"{server.api}/notebook", content=content, headers=headers, timeout=30)


def test_only_a_signature_with_the_kernels_own_key_and_a_fresh_time_lets_a_command_in(guarded, kernel):
    _kind, server = guarded
    key = key_of(server, kernel)
    assert _signed(server, kernel, key).json() == {"error": NOT_OPEN}
    # Another key, an old time, a kernel the server does not run: the server's own auth, which refuses.
    assert _signed(server, kernel, b"not-the-key").status_code == 403
    assert _signed(server, kernel, key, stamp=int(time.time()) - 3600).status_code == 403
    assert _signed(server, "k-none", key).status_code == 403
    unsigned = httpx.post(f"{server.api}/notebook", json={"op": "read", "kernelId": kernel}, timeout=30)
    assert unsigned.status_code == 403


def test_a_person_logged_in_still_reaches_the_bridge_as_before(guarded, kernel):
    kind, server = guarded
    client = person(kind, server)
    try:
        answer = client.post("mewrk/v2/notebook", json={"op": "read", "kernelId": kernel})
    finally:
        client.close()
    assert (answer.status_code, answer.json()) == (409, {"error": NOT_OPEN})
