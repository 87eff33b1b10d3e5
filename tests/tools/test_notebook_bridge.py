"""The kernel's end of the notebook bridge: what a command carries and the sentence when the server is not
there. (Commands reaching a real server with a token, without one and behind a password are tested in
tests/server/test_notebook_kernel_auth.py.)"""

from __future__ import annotations

import hashlib
import hmac
import socket

import pytest

from mewrk_jupyter.tools.base import ToolFailure
from mewrk_jupyter.tools.notebook_bridge import KERNEL_HEADER, SIGNATURE_HEADER, STAMP_HEADER, Bridge

TOKEN = "tok-3f9a1c"  # noqa: S105 - a made-up token, looked for in what the bridge says


def test_a_server_without_a_token_gets_no_authorization_header_and_a_signed_command():
    bridge = Bridge(url="http://127.0.0.1:8888/", kernel_id="k1", token="", key=b"kernel-key")
    content = b'{"op": "read"}'
    headers = bridge.headers(content)
    assert "Authorization" not in headers
    stamp = headers[STAMP_HEADER]
    expected = hmac.new(b"kernel-key", f"k1\n{stamp}\n".encode() + content, hashlib.sha256).hexdigest()
    assert (headers[KERNEL_HEADER], headers[SIGNATURE_HEADER]) == ("k1", expected)


def test_a_server_with_a_token_gets_it_beside_the_signature():
    headers = Bridge(url="http://127.0.0.1:8888/", kernel_id="k1", token=TOKEN, key=b"k").headers(b"{}")
    assert headers["Authorization"] == f"token {TOKEN}" and SIGNATURE_HEADER in headers


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_a_server_that_is_gone_is_said_to_be_unreachable_by_its_address_never_with_the_token():
    port = _closed_port()
    bridge = Bridge(url=f"http://127.0.0.1:{port}/lab/?token={TOKEN}", kernel_id="k1", token=TOKEN, key=b"k")
    with pytest.raises(ToolFailure) as failed:
        bridge.command("read", {}, None, timeout=5)
    assert str(failed.value) == (
        f"This kernel could not reach the Jupyter server that started it (http://127.0.0.1:{port}): "
        "is it still running?"
    )
