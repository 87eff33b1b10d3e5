"""The `/mewrk/v2` routes: thin handlers over the public session methods, under Jupyter's own auth
(token or cookie, and XSRF for a cookie's POST, as Jupyter's API handlers require)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from jupyter_server.auth.decorator import authorized
from jupyter_server.utils import url_path_join
from tornado import web

from ..commands.replay import replay_of
from ..commands.replay import start as start_replay
from ..engine.catalog import list_sessions, session_of_run
from ..engine.compaction.summary import compacted
from ..engine.session import Session
from ..engine.turns.records import RunInfo
from ..errors import MewrkError, SessionNotFound, StoreError
from .bodies import (
    ApiError,
    ApprovalDecision,
    CompactBody,
    NewSession,
    NoFields,
    ReplayBody,
    RunRequest,
    WorkflowBody,
)
from .economy import CacheHandler, PruneHandler, StaleHandler
from .handler import MewrkHandler, answers
from .notebooks import notebook_routes
from .replays import stream_replay
from .stream import off_loop, start_stream, stream_run

RUN_BODY = (
    "Send `sessionId` and `question` to start a turn (an empty question continues from the timeline), "
    "or `runId` (and `after`) without a question for the rest of a run."
)
REPLAY_BODY = (
    "Send `model`, `agent`, `upto` and `tools` (each optional) to start a replay, "
    "or `branchId` (and `after`) alone for the rest of one."
)


def run_body(info: RunInfo) -> dict[str, Any]:
    """One run as the API shows it."""
    return {
        "id": info.id,
        "state": info.state,
        "running": info.running,
        "startedAt": info.started_at,
        "endedAt": info.ended_at,
        "error": info.error,
    }


def session_body(s: Session, cards: bool) -> dict[str, Any]:
    """A session as the API shows it, with its cards when asked."""
    body: dict[str, Any] = {
        "id": s.id,
        "title": s.title,
        "state": s.state,
        "parent": s.parent_id,
        "model": s.settings.model,
    }
    if cards:
        body["settings"] = s.settings.model_dump(mode="json")
        body["cards"] = [card.model_dump(mode="json") for card in s.cards]
    return body


class SessionsHandler(MewrkHandler):
    """`GET /sessions`: every session; `POST /sessions` `{model?, title?}`: a new one."""

    @web.authenticated
    @authorized
    @answers
    async def get(self) -> None:
        """Each session's id, title, state, parent and model."""
        infos = await off_loop(list_sessions, self.root)
        rows = [
            {"id": i.id, "title": i.title, "state": i.state, "parent": i.parent, "model": i.model}
            for i in infos
        ]
        self.reply({"sessions": rows})

    @web.authenticated
    @authorized
    @answers
    async def post(self) -> None:
        """Create a session."""
        body = self.body_as(NewSession)
        s = await off_loop(Session.new, model=body.model, title=body.title, workspace=self.root)
        self.reply(session_body(s, cards=False), 201)


class SessionHandler(MewrkHandler):
    """`GET /sessions/{id}`: the session with its cards."""

    @web.authenticated
    @authorized
    @answers
    async def get(self, session_id: str) -> None:
        """The session and its timeline."""
        s = await self.session(session_id)
        self.reply(await off_loop(session_body, s, True))


class RunsHandler(MewrkHandler):
    """`GET /sessions/{id}/runs`: each run, whether it still runs, its start and end."""

    @web.authenticated
    @authorized
    @answers
    async def get(self, session_id: str) -> None:
        """The session's runs, oldest first."""
        s = await self.session(session_id)
        self.reply({"runs": [run_body(info) for info in await off_loop(s.runs)]})


class StopHandler(MewrkHandler):
    """`POST /sessions/{id}/stop`: stop the session's turn wherever it runs, and a replay this server runs
    of the session or on it (its branch)."""

    @web.authenticated
    @authorized
    @answers
    async def post(self, session_id: str) -> None:
        """Stop; `stopped` is false when no turn nor replay ran."""
        self.body_as(NoFields)
        s = await self.session(session_id)
        self.reply({"stopped": await off_loop(s.stop)})  # a replay of it or on it too


class ApprovalHandler(MewrkHandler):
    """`POST /sessions/{id}/approval` `{decision, reason?}`: decide the pending tool call; the turn goes on."""

    @web.authenticated
    @authorized
    @answers
    async def post(self, session_id: str) -> None:
        """Approve or reject; the answer names the run that goes on (stream it with `POST /run {runId}`)."""
        body = self.body_as(ApprovalDecision)
        s = await self.session(session_id)
        if await off_loop(lambda: s.pending_approval) is None:
            raise ApiError(409, "No approval is waiting in this session.")
        if body.decision == "reject" and (body.always is not False or body.inPolicy):
            raise ApiError(400, "always and inPolicy go with an approval, not a rejection.")
        if body.decision == "approve":
            run = await off_loop(
                s.approve, body.reason, always=body.always, in_policy=body.inPolicy, wait=False
            )
        else:
            run = await off_loop(s.reject, body.reason, wait=False)
        self.reply({"runId": run.id, "sessionId": s.id})


class CompactHandler(MewrkHandler):
    """`POST /sessions/{id}/compact`: summary compaction in place, refused with the notebook's sentence."""

    @web.authenticated
    @authorized
    @answers
    async def post(self, session_id: str) -> None:
        """Compact the session's older messages into a summary (with `instructions` for it, C7)."""
        body = self.body_as(CompactBody)
        s = await self.session(session_id)
        try:
            divider = await off_loop(s.compact, body.instructions)
        except (SessionNotFound, StoreError):
            raise
        except MewrkError as exc:  # a refusal (too short, a turn runs) is a conflict with the session's state
            raise ApiError(409, str(exc)) from None
        self.reply({"result": compacted(divider), "card": divider.model_dump(mode="json")})


class WorkflowsHandler(MewrkHandler):
    """`POST /sessions/{id}/workflows`: start a workflow in the background, refused with the notebook's
    sentence; its card (the task id in it) follows the steps on the session's timeline."""

    @web.authenticated
    @authorized
    @answers
    async def post(self, session_id: str) -> None:
        """Start the workflow `name` with `input`; 202 with its card."""
        body = self.body_as(WorkflowBody)
        s = await self.session(session_id)
        try:
            card = await off_loop(s.workflow, body.name, body.input)
        except (SessionNotFound, StoreError):
            raise
        except MewrkError as exc:  # unknown or broken, an unknown agent, too many at work
            raise ApiError(409, str(exc)) from None
        self.reply({"taskId": card.task_id, "card": card.model_dump(mode="json")}, 202)


class StreamHandler(MewrkHandler):
    """A route that answers with Server-Sent Events, and knows when its client left."""

    gone = False  # the client closed the connection: the stream stops, what it streamed goes on

    def on_connection_close(self) -> None:
        """The client left."""
        self.gone = True
        super().on_connection_close()


class RunHandler(StreamHandler):
    """`POST /run`: start a turn and stream it, or stream the rest of a run, as Server-Sent Events."""

    @web.authenticated
    @authorized
    @answers
    async def post(self) -> None:
        """The run id first, then the run's events in order, then `end`."""
        body = self.body_as(RunRequest)
        if body.runId is not None:
            if body.question is not None:
                raise ApiError(400, f"A question starts a new turn and `runId` reads an old one: {RUN_BODY}")
            session_id = await off_loop(session_of_run, body.runId, self.root)
            if body.sessionId is not None and body.sessionId != session_id:
                raise ApiError(404, f"No run `{body.runId}` in session `{body.sessionId}`.")
            s = await self.session(session_id)
            run_id, after = body.runId, body.after
        else:
            if body.sessionId is None or body.question is None or body.after is not None:
                raise ApiError(400, RUN_BODY)
            s = await self.session(body.sessionId)
            # Refused (409) before anything is stored when another window's turn runs (R1, R2).
            run = await off_loop(s.send, body.question, wait=False)
            run_id, after = run.id, None
        start_stream(self)
        await stream_run(self, s, run_id, after, lambda: self.gone)


class ReplayHandler(StreamHandler):
    """`POST /sessions/{id}/replay`: replay the session on a branch and stream each turn's comparison, or
    stream the rest of a replay this server runs, as Server-Sent Events."""

    @web.authenticated
    @authorized
    @answers
    async def post(self, session_id: str) -> None:
        """The branch first, then a comparison per turn, then `end` with the report."""
        body = self.body_as(ReplayBody)
        s = await self.session(session_id)
        if body.branchId is None:
            if body.after is not None:
                raise ApiError(400, f"`after` reads the rest of a replay, with its `branchId`: {REPLAY_BODY}")
            # Refused (400) with the engine's sentence, making nothing: an unknown model or agent, a bad upto.
            replay = await off_loop(start_replay, s, body.model, body.agent, body.upto, body.tools)
        else:
            if body.model_fields_set - {"branchId", "after"}:
                raise ApiError(400, f"A replay's `branchId` reads one already started: {REPLAY_BODY}")
            found = replay_of(body.branchId)
            if found is None or found.source.id != s.id:
                raise ApiError(
                    404,
                    f"No replay of session `{s.id}` on the branch `{body.branchId}` in this server (a replay "
                    "is streamed by the server that started it); the branch's cards are in its session.",
                )
            replay = found
        start_stream(self)
        await stream_replay(self, replay, body.after or 0, lambda: self.gone)


def routes(base_url: str, root: Path) -> list[tuple[str, type[Any], dict[str, Any]]]:
    """The API's routes under the server's base URL, the notebook bridge's with them."""
    api = url_path_join(base_url, "mewrk", "v2")
    sid = r"([^/]+)"
    table: list[tuple[str, type[MewrkHandler]]] = [
        ("sessions", SessionsHandler),
        (f"sessions/{sid}", SessionHandler),
        (f"sessions/{sid}/runs", RunsHandler),
        (f"sessions/{sid}/stop", StopHandler),
        (f"sessions/{sid}/approval", ApprovalHandler),
        (f"sessions/{sid}/compact", CompactHandler),
        (f"sessions/{sid}/workflows", WorkflowsHandler),
        (f"sessions/{sid}/replay", ReplayHandler),
        ("run", RunHandler),
        (f"sessions/{sid}/stale", StaleHandler),
        (f"sessions/{sid}/prune", PruneHandler),
        (f"sessions/{sid}/cards/{sid}/cache", CacheHandler),
    ]
    found: list[tuple[str, type[Any], dict[str, Any]]] = [
        (url_path_join(api, path), handler, {"root": root}) for path, handler in table
    ]
    return [*found, *notebook_routes(api)]
