"""What every route of the `/mewrk/v2` API is: a handler in the server's workspace that reads a validated
body, opens a session, and answers an engine's refusal with its status and one sentence."""

from __future__ import annotations

import functools
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from jupyter_server.base.handlers import APIHandler

from ..engine.session import Session
from ..errors import (
    CardNotFound,
    ConfigError,
    InvalidInput,
    MewrkError,
    RunNotFound,
    SessionBusy,
    SessionNotFound,
    StoreError,
    WorkspaceNotTrusted,
)
from .bodies import ApiError, B, finish_json, parse
from .stream import off_loop


def status_of(exc: MewrkError) -> int:
    """The HTTP status of an engine refusal."""
    if isinstance(exc, (SessionNotFound, RunNotFound, CardNotFound)):
        return 404
    if isinstance(exc, (SessionBusy, WorkspaceNotTrusted)):
        return 409
    if isinstance(exc, (InvalidInput, ConfigError)):
        return 400
    if isinstance(exc, StoreError):
        return 500
    return 409


def answers(method: Callable[..., Awaitable[None]]) -> Callable[..., Awaitable[None]]:
    """Turn a refusal into its status and `{"error": "<one sentence>"}`, before anything was streamed."""

    @functools.wraps(method)
    async def wrapper(self: MewrkHandler, *args: Any) -> None:
        try:
            await method(self, *args)
        except ApiError as exc:
            self.reply({"error": exc.sentence}, exc.status)
        except MewrkError as exc:
            self.reply({"error": str(exc)}, status_of(exc))

    return wrapper


class MewrkHandler(APIHandler):
    """A route of the API: the workspace is the server's root directory."""

    auth_resource = "mewrk"

    def initialize(self, root: Path) -> None:
        """Keep the workspace the routes act in."""
        self.root = root

    def reply(self, body: dict[str, Any], status: int = 200) -> None:
        """Finish with a JSON body."""
        finish_json(self, body, status)

    def body_as(self, model: type[B]) -> B:
        """The request's JSON body, validated."""
        return parse(self.request.body, model)

    async def session(self, session_id: str) -> Session:
        """Open a session of the workspace (404 when it does not exist)."""
        return await off_loop(Session.open, session_id, workspace=self.root)
