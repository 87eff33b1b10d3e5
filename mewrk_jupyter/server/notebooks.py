"""The notebook bridge: a kernel's notebook tools reach the notebook open in JupyterLab through the server.

The product's JupyterLab plugin keeps one websocket per browser window open to
`/mewrk/v2/notebook/views` and says which notebooks the window has open. A kernel's `notebook_read`,
`notebook_edit` and `notebook_run` post a command to `/mewrk/v2/notebook`, signed with the kernel's connection key (a
kernel of this server's is let in by it whatever the server's own auth: a token, none, a password or
JupyterHub's login, none of which a kernel can answer; anyone else goes through that auth); the server hands it to one window that has that notebook open (the one heard from last) and
answers with what the window did. The window changes the notebook's shared model, so every view of it
shows the change at once and JupyterLab saves it as it saves a person's edit. When no window has the
notebook open, the server carries out the command on jupyter-collaboration's shared document of it, if
that extension runs here (shared_notebook.py); without it the command is refused with a sentence.

The kernel's own notebook is found by the kernel's id among the server's sessions, so that a renamed
notebook is still its own. This route goes through the server and not through the kernel's comms,
because a comm's answer is read only while the kernel runs no cell, and a `%mewrk` cell waits for its
turn, and so for its tools.
"""

from __future__ import annotations

import asyncio
import hmac
import itertools
import json
import posixpath
import time
from typing import Any, Literal

from jupyter_core.utils import ensure_async
from jupyter_server.auth import User
from jupyter_server.auth.decorator import ws_authenticated
from jupyter_server.base.handlers import APIHandler, JupyterHandler
from pydantic import Field
from tornado import web, websocket

from ..tools.notebook_bridge import KERNEL_HEADER, SIGNATURE_HEADER, STAMP_HEADER, signature
from .bodies import ApiError, Body, finish_json, parse
from .shared_notebook import SharedNotebooks, collaboration

AUTH_RESOURCE = "contents"  # the commands read and change notebooks, as the contents API does
# Seconds a window has to answer a command that only reads or changes the model; a run waits as long as
# the cell runs, up to the command's own limit.
ANSWER_TIMEOUT = 30.0
# How far a signed command's time may be from the server's, in seconds: a copied request goes stale.
SIGNATURE_AGE = 60


class NotebookCommand(Body):
    """`POST /mewrk/v2/notebook`: a notebook tool's command, for the window that has the notebook open."""

    op: Literal["read", "edit", "run"]
    path: str | None = None  # the notebook's path from the server's root; none: the kernel's own
    kernelId: str | None = None  # the kernel asking (its own notebook when no path is given)
    args: dict[str, Any] = Field(default_factory=dict)
    timeout: float = Field(default=ANSWER_TIMEOUT, gt=0, le=3600)


class NotebookViews:
    """The windows connected to this server, each with the notebooks it has open (with their kernels)."""

    def __init__(self) -> None:
        self._open: dict[ViewSocket, list[dict[str, Any]]] = {}  # in the order last heard from, latest last

    def update(self, view: ViewSocket, notebooks: list[dict[str, Any]]) -> None:
        """What a window has open now."""
        self._open.pop(view, None)
        self._open[view] = notebooks

    def remove(self, view: ViewSocket) -> None:
        """A window went away."""
        self._open.pop(view, None)

    def showing(self, path: str) -> list[ViewSocket]:
        """The windows that have the notebook at `path` open, the one heard from last first."""
        return [
            view
            for view, notebooks in reversed(self._open.items())
            if any(n.get("path") == path for n in notebooks)
        ]

    def path_of_kernel(self, kernel_id: str) -> str | None:
        """The notebook a window shows with that kernel, if one does."""
        for notebooks in reversed(self._open.values()):
            for notebook in notebooks:
                if notebook.get("kernelId") == kernel_id and isinstance(notebook.get("path"), str):
                    return str(notebook["path"])
        return None


class ViewSocket(JupyterHandler, websocket.WebSocketHandler):
    """One JupyterLab window's socket: it says what it has open and answers commands."""

    auth_resource = AUTH_RESOURCE

    def initialize(self, views: NotebookViews) -> None:
        """Keep the table of windows this socket joins."""
        self.views = views
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)

    async def pre_get(self) -> None:
        """Only a person who may change files joins (the commands edit notebooks)."""
        allowed = await ensure_async(
            self.authorizer.is_authorized(self, self.current_user, "write", AUTH_RESOURCE)
        )
        if not allowed:
            raise web.HTTPError(403)

    @ws_authenticated
    async def get(self, *args: Any, **kwargs: Any) -> None:
        """Open the socket."""
        await self.pre_get()
        res = super().get(*args, **kwargs)
        if res is not None:
            await res

    def on_message(self, message: str | bytes) -> None:
        """`notebooks` (what the window has open) or `answer` (to a command)."""
        try:
            data = json.loads(message)
        except ValueError:
            self.log.warning("mewrk_jupyter: a notebook view sent something that is not JSON")
            return
        if not isinstance(data, dict):
            return
        if data.get("type") == "notebooks" and isinstance(data.get("notebooks"), list):
            self.views.update(self, [n for n in data["notebooks"] if isinstance(n, dict)])
        elif data.get("type") == "answer" and isinstance(data.get("id"), int):
            future = self._pending.pop(data["id"], None)
            if future is not None and not future.done():
                future.set_result(data)

    def on_close(self) -> None:
        """The window went away: its commands end with a sentence."""
        self.views.remove(self)
        for future in self._pending.values():
            if not future.done():
                future.set_exception(
                    ApiError(409, "The JupyterLab window that had the notebook open closed.")
                )
        self._pending.clear()

    async def ask(self, op: str, path: str, args: dict[str, Any], timeout: float) -> dict[str, Any]:
        """Send one command to the window and wait for its answer."""
        number = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[number] = future
        try:
            await self.write_message(
                json.dumps({"type": "command", "id": number, "op": op, "path": path, "args": args})
            )
            return await asyncio.wait_for(future, timeout)
        except websocket.WebSocketClosedError:
            raise ApiError(409, "The JupyterLab window that had the notebook open closed.") from None
        except asyncio.TimeoutError:
            raise ApiError(504, f"JupyterLab did not answer within {timeout:g} seconds.") from None
        finally:
            self._pending.pop(number, None)


def api_path(path: str) -> str:
    """A notebook's path as the server names it (from its root, `/`-separated); ApiError when it is none."""
    clean = posixpath.normpath(path.replace("\\", "/").lstrip("/"))
    if clean in ("", ".") or clean == ".." or clean.startswith("../"):
        raise ApiError(400, f"{path!r} is not a path inside the workspace.")
    if not clean.endswith(".ipynb"):
        raise ApiError(400, f"{path} is not a notebook (a notebook's name ends in .ipynb).")
    return clean


class NotebookCommandHandler(APIHandler):
    """`POST /mewrk/v2/notebook`: run a command in the window that has the notebook open (or, with
    jupyter-collaboration and no such window, on the server's shared document of it)."""

    auth_resource = AUTH_RESOURCE

    def initialize(self, views: NotebookViews) -> None:
        """Keep the table of windows."""
        self.views = views
        self.kernel_signed = False

    async def prepare(self) -> None:  # type: ignore[override]
        """A command signed by a kernel of this server's is let in as that kernel; any other request (an
        unsigned one, a signature that does not hold) goes through the server's own auth."""
        if not self.signed_by_kernel():
            await super().prepare()
            return
        if not self.check_host():
            raise web.HTTPError(403)
        self.kernel_signed = True
        # Set before the origin's check, which asks the identity provider about the user.
        self.current_user = self._jupyter_current_user = User(username="kernel")
        if not self.check_origin():
            raise web.HTTPError(404)

    def check_xsrf_cookie(self) -> None:
        """A kernel's signed command carries no cookie, so no cookie's forgery is to be feared."""
        if not self.kernel_signed:
            super().check_xsrf_cookie()

    def signed_by_kernel(self) -> bool:
        """Whether the request is signed, recently, with the connection key of a kernel this server runs:
        only that kernel (and the server) holds the key."""
        headers = self.request.headers
        kernel_id, stamp, signed = (
            headers.get(name) for name in (KERNEL_HEADER, STAMP_HEADER, SIGNATURE_HEADER)
        )
        if not (kernel_id and stamp and signed and stamp.isdigit()):
            return False
        if abs(time.time() - int(stamp)) > SIGNATURE_AGE:
            return False
        if kernel_id not in self.kernel_manager:
            return False
        kernel = self.kernel_manager.get_kernel(kernel_id)
        key = getattr(getattr(kernel, "session", None), "key", None)
        if not isinstance(key, bytes) or not key:
            return False
        return hmac.compare_digest(signature(key, kernel_id, stamp, self.request.body), signed)

    async def may_write(self) -> bool:
        """Whether the request may change notebooks: a kernel of this server's may (it runs as the server's
        owner, with the files in reach anyway); a person as the server's authorizer says."""
        if self.kernel_signed:
            return True
        return bool(
            await ensure_async(self.authorizer.is_authorized(self, self.current_user, "write", AUTH_RESOURCE))
        )

    def reply(self, body: dict[str, Any], status: int = 200) -> None:
        """Finish with a JSON body."""
        finish_json(self, body, status)

    async def notebook_of(self, kernel_id: str) -> str:
        """The notebook the kernel belongs to: as a window showing it with that kernel says (it follows a
        rename), else by the server's sessions."""
        shown = self.views.path_of_kernel(kernel_id)
        if shown is not None:
            return shown
        sessions: list[dict[str, Any]] = await self.session_manager.list_sessions()
        for found in sessions:
            if (found.get("kernel") or {}).get("id") == kernel_id and found.get("type") == "notebook":
                return str(found["path"])
        raise ApiError(404, "This kernel belongs to no notebook this Jupyter server knows.")

    def shared(self, path: str) -> SharedNotebooks:
        """The server's shared documents, for a notebook no window has open; ApiError without
        jupyter-collaboration, which keeps them."""
        app = collaboration(self.serverapp)
        if app is None:
            raise ApiError(409, f"{path} is not open in JupyterLab: open it there, then ask again.")
        return SharedNotebooks(app, self.contents_manager)

    @web.authenticated
    async def post(self) -> None:
        """The window's answer: 200 with what it did, or its refusal's status and sentence."""
        if not await self.may_write():
            raise web.HTTPError(403, f"User is not authorized to write on resource: {AUTH_RESOURCE}.")
        try:
            command = parse(self.request.body, NotebookCommand)
            if command.path is not None:
                path = api_path(command.path)
            elif command.kernelId is not None:
                path = await self.notebook_of(command.kernelId)
            else:
                raise ApiError(400, "Name the notebook (`path`) or the kernel it belongs to (`kernelId`).")
            windows = self.views.showing(path)
            if windows:
                answer = await windows[0].ask(command.op, path, command.args, command.timeout)
            else:
                answer = await self.shared(path).ask(command.op, path, command.args)
        except ApiError as exc:
            self.reply({"error": exc.sentence}, exc.status)
            return
        if answer.get("ok") is True:
            self.reply({"path": path, **(answer.get("data") or {})})
        else:
            sentence = answer.get("error") if isinstance(answer.get("error"), str) else "JupyterLab refused."
            self.reply({**(answer.get("data") or {}), "error": sentence}, 409)


def notebook_routes(api: str) -> list[tuple[str, type[Any], dict[str, Any]]]:
    """The bridge's two routes under the API's prefix, sharing one table of windows."""
    views = NotebookViews()
    return [
        (f"{api}/notebook/views", ViewSocket, {"views": views}),
        (f"{api}/notebook", NotebookCommandHandler, {"views": views}),
    ]
