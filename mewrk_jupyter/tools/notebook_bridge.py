"""The kernel's end of the notebook bridge: where the Jupyter server that started this kernel listens, and
one command sent there (server/notebooks.py hands it to the JupyterLab window that has the notebook open).

The server is found by its runtime file (`jpserver-<pid>.json`, which Jupyter writes for every server it
runs) whose pid is this kernel's parent or an ancestor, and this kernel by its connection file's name.

A command proves itself with this kernel's connection key (the HMAC key of its messages, which the server
that started the kernel holds too): the request is signed, so it passes on a server with a token, without
one, behind a password or JupyterHub's login alike, none of which a kernel can answer. The server's token,
when it has one, goes in the header as well, for a server whose extension reads no signature; neither it
nor the key goes into a result, a card or a log.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import json
import os
import re
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import httpx

from .base import ToolFailure

# Seconds the bridge gives JupyterLab beyond a command's own limit before it gives up on the answer.
_SLACK = 5.0
# How often, and how far apart, the main thread is looked at before it is taken as running a cell.
_BUSY_LOOKS, _BUSY_GAP = 4, 0.05
_KERNEL_FILE = re.compile(r"kernel-(?P<id>[0-9a-fA-F-]+)\.json$")

# Why the notebook tools are not offered, for the session's notice.
NOT_IN_JUPYTERLAB = (
    "The notebook tools (notebook_read, notebook_edit, notebook_run) are offered only in a kernel that a "
    "Jupyter server with mewrk_jupyter installed started, for a notebook open in JupyterLab: open the "
    "notebook in JupyterLab (with mewrk_jupyter installed where the server runs) and work in its kernel."
)


@dataclass(frozen=True)
class Bridge:
    """The Jupyter server that started this kernel, and this kernel's id there."""

    url: str  # the server's address, with its base URL
    kernel_id: str
    token: str = field(repr=False)  # "" on a server without one (no token, a password, JupyterHub)
    root: Path | None = None  # the folder the server serves; its notebooks' paths are relative to it
    key: bytes = field(default=b"", repr=False)  # this kernel's connection key, which signs a command

    def command(self, op: str, args: dict[str, Any], path: str | None, timeout: float) -> dict[str, Any]:
        """Send one command (read, edit, run) for the notebook at `path` (none: this kernel's own) and
        return the window's answer; ToolFailure with the server's sentence when it refuses."""
        body: dict[str, Any] = {"op": op, "args": args, "timeout": timeout}
        body.update({"path": path} if path is not None else {"kernelId": self.kernel_id})
        content = json.dumps(body).encode()
        try:
            response = _client().post(
                self.url.rstrip("/") + COMMAND_ROUTE,
                content=content,
                headers=self.headers(content),
                timeout=timeout + _SLACK,
            )
        except httpx.TimeoutException:
            raise ToolFailure(f"JupyterLab did not answer within {timeout:g} seconds.") from None
        except httpx.HTTPError as exc:
            raise ToolFailure(_unreachable(exc, self.url)) from None
        try:
            answer = response.json()
        except ValueError:
            answer = None
        if response.status_code == 403 and not (isinstance(answer, dict) and "error" in answer):
            raise ToolFailure(
                f"The Jupyter server at {_address(self.url)} refused this kernel's command (403 Forbidden): "
                "it took neither the kernel's signature nor a token. Install the same mewrk_jupyter where "
                "the server runs as in this kernel's environment, and restart the server."
            )
        if not isinstance(answer, dict):
            raise ToolFailure(f"The Jupyter server answered {response.status_code} without a readable body.")
        if response.status_code == 404 and "error" not in answer:
            raise ToolFailure(
                "The Jupyter server that started this kernel has no notebook bridge: install mewrk_jupyter in its environment and restart it."
            )
        if response.status_code != 200:
            raise Refused(
                str(answer.get("error") or f"The Jupyter server answered {response.status_code}."), answer
            )
        return answer

    def headers(self, content: bytes) -> dict[str, str]:
        """The request's headers: the kernel's signature of `content`, and the token if the server has one
        (an empty `Authorization: token ` is no header at all: httpx refuses it before sending)."""
        headers = {"Content-Type": "application/json"}
        if self.key:
            stamp = str(int(time.time()))
            headers.update(
                {
                    KERNEL_HEADER: self.kernel_id,
                    STAMP_HEADER: stamp,
                    SIGNATURE_HEADER: signature(self.key, self.kernel_id, stamp, content),
                }
            )
        if self.token:
            headers["Authorization"] = f"token {self.token}"
        return headers


# Where a command goes, and the headers that sign it (server/notebooks.py checks them).
COMMAND_ROUTE = "/mewrk/v2/notebook"
KERNEL_HEADER, STAMP_HEADER, SIGNATURE_HEADER = "X-Mewrk-Kernel", "X-Mewrk-Time", "X-Mewrk-Signature"


def signature(key: bytes, kernel_id: str, stamp: str, content: bytes) -> str:
    """The HMAC-SHA256 of a command under a kernel's connection key: its kernel, its time and its body."""
    return hmac.new(key, f"{kernel_id}\n{stamp}\n".encode() + content, hashlib.sha256).hexdigest()


def _address(url: str) -> str:
    """The server's address as a person names it: scheme, host and port (no path, never a query)."""
    parts = httpx.URL(url)
    return f"{parts.scheme}://{parts.host}" + (f":{parts.port}" if parts.port else "")


def _unreachable(exc: httpx.HTTPError, url: str) -> str:
    """What failed when the server did not answer, in words (never the exception's own text: it may quote
    a header, and so a token)."""
    where = _address(url)
    if isinstance(exc, httpx.ConnectError):
        return (
            f"This kernel could not reach the Jupyter server that started it ({where}): is it still running?"
        )
    if isinstance(exc, httpx.RemoteProtocolError):
        return (
            f"The Jupyter server that started this kernel ({where}) closed the connection without an answer."
        )
    if isinstance(exc, httpx.LocalProtocolError):
        return f"This kernel could not write its request to the Jupyter server at {where}: a header was malformed."
    return f"The Jupyter server that started this kernel ({where}) did not answer ({type(exc).__name__})."


@functools.cache
def _client() -> httpx.Client:
    """One client for the process's commands, so that each reuses the connection to the server."""
    return httpx.Client(trust_env=False)  # the server is local: no proxy of the environment's


class Refused(ToolFailure):
    """JupyterLab refused a command; `answer` holds what it said besides (a changed cell's text)."""

    def __init__(self, sentence: str, answer: dict[str, Any]) -> None:
        super().__init__(sentence)
        self.answer = answer


def _kernel_id() -> str | None:
    """This kernel's id, by its connection file's name; None outside a kernel."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    kernel = getattr(shell, "kernel", None)
    if kernel is None:
        return None
    try:
        from ipykernel.connect import get_connection_file

        connection = get_connection_file()
    except Exception:  # a kernel not started as an IPKernelApp
        return None
    found = _KERNEL_FILE.search(os.path.basename(str(connection)))
    return found.group("id") if found else None


def _ancestors() -> list[int]:
    """This process's parent, its parent, … (from /proc where there is one; else the parent only)."""
    chain, pid = [], os.getppid()
    for _ in range(8):
        if pid <= 1:
            break
        chain.append(pid)
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(stat.rsplit(")", 1)[1].split()[1])
    return chain


def _server_info() -> dict[str, Any] | None:
    """The runtime file of the Jupyter server that started this kernel, or None."""
    try:
        from jupyter_core.paths import jupyter_runtime_dir
    except ImportError:
        return None
    runtime = Path(jupyter_runtime_dir())
    for pid in _ancestors():
        try:
            info = json.loads((runtime / f"jpserver-{pid}.json").read_text())
        except (OSError, ValueError):
            continue
        if isinstance(info, dict) and isinstance(info.get("url"), str) and not info.get("sock"):
            return info
    return None


@functools.cache
def find_bridge() -> Bridge | None:
    """The bridge of this kernel, or None when no Jupyter server started it (a script, a console)."""
    kernel_id = _kernel_id()
    if kernel_id is None:
        return None
    info = _server_info()
    if info is None:
        return None
    root = Path(info["root_dir"]).expanduser() if isinstance(info.get("root_dir"), str) else None
    return Bridge(
        url=str(info["url"]),
        kernel_id=kernel_id,
        token=str(info.get("token") or ""),
        root=root,
        key=_kernel_key(),
    )


def _kernel_key() -> bytes:
    """This kernel's connection key (b"" where there is none to read)."""
    from IPython import get_ipython

    key = getattr(getattr(getattr(get_ipython(), "kernel", None), "session", None), "key", b"")
    return key if isinstance(key, bytes) else b""


def kernel_running_a_cell() -> bool:
    """Whether this kernel's main thread is running a cell now (a `%mewrk` cell waiting for its turn, a
    person's long cell): a cell sent to run would wait behind it."""
    try:
        from IPython import get_ipython
    except ImportError:
        return False
    kernel = getattr(get_ipython(), "kernel", None)
    lock = getattr(kernel, "_main_asyncio_lock", None)  # ipykernel holds it while it handles a message
    locked = getattr(lock, "locked", None)
    if not callable(locked):
        return False
    # A view's message (a widget's heartbeat) holds it for a moment too: only a lock that stays is a cell.
    for _ in range(_BUSY_LOOKS):
        if not locked():
            return False
        time.sleep(_BUSY_GAP)
    return True
