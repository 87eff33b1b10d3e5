"""A small Language Server Protocol client over a subprocess's stdio (JSON-RPC, Content-Length framing).

It speaks just what the `lsp` tool needs: initialize, open or change a document, send a request, collect
the diagnostics the server publishes, and shut down. Requests the server sends to us (configuration,
progress tokens, capability registration) get an empty answer so that the server never waits on us.
"""

from __future__ import annotations

import itertools
import json
import subprocess
import threading
import time
import weakref
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

from .base import ToolFailure
from .shell import kill_group

REQUEST_TIMEOUT = 30.0
_SHUTDOWN_TIMEOUT = 5.0
# jedi-language-server sometimes lingers after `exit` (its inference subprocess); it is killed after this.
_EXIT_WAIT = 1.0
_WAIT_STEP = 0.1


def _terminate(process: subprocess.Popen[bytes]) -> None:
    # The whole group: jedi runs inference in subprocesses of its own.
    kill_group(process)
    process.wait()


class _Pending:
    """A request waiting for its answer."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.message: dict[str, Any] | None = None


class LspClient:
    """One language server process for one workspace folder."""

    def __init__(self, argv: list[str], root: Path, env: Mapping[str, str] | None = None) -> None:
        self.root = root
        self._process = subprocess.Popen(
            argv,
            cwd=root,
            env=env,  # the environment the safety level allows; the server reads the model's files
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            start_new_session=True,
        )
        # A registry dropped without close() must not leave a server behind.
        self._finalizer = weakref.finalize(self, _terminate, self._process)
        self._ids = itertools.count(1)
        self._pending: dict[int, _Pending] = {}
        self._write_lock = threading.Lock()
        self._diagnostics: dict[str, tuple[int | None, list[dict[str, Any]]]] = {}
        self._diagnostics_changed = threading.Condition()
        self._versions: dict[str, tuple[int, str]] = {}
        self._gone = False  # the server's output ended: it died or exited
        self._reader = threading.Thread(target=self._read_loop, name="lsp-reader", daemon=True)
        self._reader.start()
        self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "workspaceFolders": [{"uri": root.as_uri(), "name": root.name}],
                "capabilities": {
                    "textDocument": {
                        "hover": {"contentFormat": ["plaintext", "markdown"]},
                        "publishDiagnostics": {"versionSupport": True},
                    }
                },
            },
        )
        self.notify("initialized", {})

    @property
    def alive(self) -> bool:
        """True while the server process runs."""
        return self._process.poll() is None

    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode("utf-8")
        stdin = self._process.stdin
        assert stdin is not None
        try:
            with self._write_lock:
                stdin.write(f"Content-Length: {len(body)}\r\n\r\n".encode("ascii") + body)
                stdin.flush()
        except (BrokenPipeError, OSError, ValueError) as exc:
            raise ToolFailure("The language server has stopped; the next lsp call starts it again.") from exc

    def notify(self, method: str, params: dict[str, Any]) -> None:
        """Send a notification (no answer expected)."""
        self._send({"method": method, "params": params})

    def request(
        self,
        method: str,
        params: dict[str, Any],
        timeout: float = REQUEST_TIMEOUT,
        cancel: threading.Event | None = None,
    ) -> Any:
        """Send a request and return its result; a ToolFailure on error, timeout, stop or a dead server."""
        if cancel is not None and cancel.is_set():
            raise ToolFailure(f"The lsp request `{method}` was stopped before it was sent.")
        request_id = next(self._ids)
        pending = self._pending[request_id] = _Pending()
        try:
            self._send({"id": request_id, "method": method, "params": params})
            deadline = time.monotonic() + timeout
            while not pending.done.wait(_WAIT_STEP):
                if cancel is not None and cancel.is_set():
                    raise ToolFailure(f"The lsp request `{method}` was stopped before it finished.")
                if time.monotonic() > deadline:
                    raise ToolFailure(f"The language server did not answer `{method}` within {timeout:g} s.")
        finally:
            self._pending.pop(request_id, None)
        message = pending.message
        if message is None:
            raise ToolFailure("The language server has stopped; the next lsp call starts it again.")
        if "error" in message:
            error = message["error"]
            raise ToolFailure(f"The language server failed on `{method}`: {error.get('message', error)}.")
        return message.get("result")

    def sync(self, path: Path, text: str) -> tuple[str, int]:
        """Open `path` with `text` in the server, or send the new text if it changed; its uri and version."""
        uri = path.as_uri()
        version, known = self._versions.get(uri, (0, None))
        if known == text:
            return uri, version
        version += 1
        self._versions[uri] = (version, text)
        with self._diagnostics_changed:
            # What a server that sends no versions said of the old text is no word on the new one.
            self._diagnostics.pop(uri, None)
        if version == 1:
            document = {"uri": uri, "languageId": "python", "version": version, "text": text}
            self.notify("textDocument/didOpen", {"textDocument": document})
        else:
            self.notify(
                "textDocument/didChange",
                {"textDocument": {"uri": uri, "version": version}, "contentChanges": [{"text": text}]},
            )
        return uri, version

    def diagnostics(
        self, uri: str, version: int, shown: str, timeout: float = REQUEST_TIMEOUT
    ) -> list[dict[str, Any]]:
        """The diagnostics the server published for this version of the document (`shown`, as the model
        named it); a ToolFailure that says so when the server died first."""

        def published() -> bool:
            seen = self._diagnostics.get(uri)
            # A server that does not send versions is taken at its latest word.
            return seen is not None and (seen[0] is None or seen[0] >= version)

        with self._diagnostics_changed:
            if not self._diagnostics_changed.wait_for(lambda: published() or self._gone, timeout):
                raise ToolFailure(f"The language server published no diagnostics within {timeout:g} s.")
            if not published():
                raise ToolFailure(
                    f"The language server stopped ({self._exit_status()}) before it reported on `{shown}`; "
                    "the next lsp call starts it again."
                )
            return self._diagnostics[uri][1]

    def _exit_status(self) -> str:
        try:
            code = self._process.wait(timeout=_EXIT_WAIT)
        except subprocess.TimeoutExpired:
            return "its output closed"
        return f"killed by signal {-code}" if code < 0 else f"exit status {code}"

    def close(self) -> None:
        """Shut the server down politely, and kill it if it does not exit."""
        if self.alive:
            try:
                self.request("shutdown", {}, timeout=_SHUTDOWN_TIMEOUT)
                self.notify("exit", {})
                self._process.wait(timeout=_EXIT_WAIT)
            except (ToolFailure, subprocess.TimeoutExpired):
                pass
        self._finalizer()

    def _read_message(self, stream: IO[bytes]) -> dict[str, Any] | None:
        length = None
        while True:
            line = stream.readline()
            if not line:
                return None
            if line in (b"\r\n", b"\n"):
                break
            name, _, value = line.decode("ascii", errors="replace").partition(":")
            if name.strip().lower() == "content-length":
                length = int(value.strip())
        if length is None:
            return {}
        body = stream.read(length)
        return json.loads(body) if len(body) == length else None

    def _read_loop(self) -> None:
        stream = self._process.stdout
        assert stream is not None
        while True:
            try:
                message = self._read_message(stream)
            except (ValueError, OSError):
                message = None
            if message is None:
                break
            try:
                self._dispatch(message)
            except ToolFailure:
                break
        # The server is gone: wake every waiting request (its message stays None) and diagnostics' wait.
        for pending in list(self._pending.values()):
            pending.done.set()
        with self._diagnostics_changed:
            self._gone = True
            self._diagnostics_changed.notify_all()

    def _dispatch(self, message: dict[str, Any]) -> None:
        method = message.get("method")
        if method is None and "id" in message:
            pending = self._pending.get(message["id"])
            if pending is not None:
                pending.message = message
                pending.done.set()
        elif method is not None and "id" in message:
            items = message.get("params", {}).get("items")
            result = [None] * len(items) if method == "workspace/configuration" and items else None
            self._send({"id": message["id"], "result": result})
        elif method == "textDocument/publishDiagnostics":
            params = message.get("params", {})
            with self._diagnostics_changed:
                self._diagnostics[params.get("uri", "")] = (
                    params.get("version"),
                    params.get("diagnostics", []),
                )
                self._diagnostics_changed.notify_all()
