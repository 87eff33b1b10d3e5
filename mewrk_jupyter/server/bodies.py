"""The JSON bodies the routes take, validated: a bad body is refused with one sentence naming the field."""

from __future__ import annotations

import json
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError
from tornado.web import RequestHandler

from ..cards.rules import LONE_SURROGATE, SURROGATE_SENTENCE


class ApiError(Exception):
    """A request the API refuses: an HTTP status and the one sentence the body carries."""

    def __init__(self, status: int, sentence: str) -> None:
        super().__init__(sentence)
        self.status = status
        self.sentence = sentence


def finish_json(handler: RequestHandler, body: dict[str, Any], status: int = 200) -> None:
    """Finish a request with a JSON body (the routes' answers and refusals alike)."""
    handler.set_status(status)
    handler.set_header("Content-Type", "application/json; charset=utf-8")
    handler.finish(json.dumps(body, ensure_ascii=False))


class Body(BaseModel):
    """A request body: exactly the fields a route takes, with their JSON types (no coercion)."""

    model_config = ConfigDict(extra="forbid", strict=True)


class NewSession(Body):
    """`POST /mewrk/v2/sessions`."""

    model: str | None = None
    title: str | None = None


class RunRequest(Body):
    """`POST /mewrk/v2/run`: a new turn (`sessionId`, `question`) or the rest of a run (`runId`, `after`)."""

    sessionId: str | None = None
    question: str | None = None
    runId: str | None = None
    after: int | None = Field(default=None, ge=0)


class ApprovalDecision(Body):
    """`POST /mewrk/v2/sessions/{id}/approval`."""

    decision: Literal["approve", "reject"]
    reason: str | None = None
    # approve only: what it grants from now on (true or "tool", "command", "like", a rule such as
    # "bash(git status*)"), and whether into the safety level's policy file rather than the session.
    always: bool | str = False
    inPolicy: bool = False


class CompactBody(Body):
    """`POST /mewrk/v2/sessions/{id}/compact`: what the summary must keep or leave, if anything (C7)."""

    instructions: str | None = None


class WorkflowBody(Body):
    """`POST /mewrk/v2/sessions/{id}/workflows`: the workflow to start and its input (X8)."""

    name: str
    input: str = ""


class ReplayBody(Body):
    """`POST /mewrk/v2/sessions/{id}/replay`: a new replay (`model`, `agent`, `upto`, `tools`, each
    optional) or the rest of one this server runs (`branchId`, `after`)."""

    model: str | None = None
    agent: str | None = None
    upto: int | str | None = None  # a number of messages, or a card's id
    tools: Literal["recorded", "live"] = "recorded"
    branchId: str | None = None
    after: int | None = Field(default=None, ge=0)


class PruneBody(Body):
    """`POST /mewrk/v2/sessions/{id}/prune`: "stale" (what `GET …/stale` lists) or the cards' ids, and
    whether the thinking above the last reply goes too (#39)."""

    cards: Literal["stale"] | list[str] = "stale"
    thinking: bool = False


class NoFields(Body):
    """A route that takes no fields (stop, compact): an empty body or `{}`."""


B = TypeVar("B", bound=Body)


def parse(raw: bytes, model: type[B]) -> B:
    """The body read as `model`; ApiError 400 with a sentence when it is not JSON or a field is wrong."""
    if not raw.strip():
        data: object = {}
    else:
        try:
            data = json.loads(raw)
        except (ValueError, UnicodeDecodeError) as exc:
            raise ApiError(400, f"The body is not valid JSON ({exc}); send a JSON object.") from None
        except RecursionError:  # `[[[[…]]]]` deeper than Python's stack: no body of the API nests at all
            raise ApiError(
                400, "The body nests values too deeply to read; send a flat JSON object."
            ) from None
    if not isinstance(data, dict):
        raise ApiError(400, f"The body must be a JSON object; got {type(data).__name__}.")
    _check_characters(data)
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        raise ApiError(400, _sentence(exc, model)) from None


def _check_characters(data: dict[str, object]) -> None:
    """Refuse a body holding a lone surrogate (a `"\\ud800"` escape) anywhere, naming its field: it is
    not a character, so it could be neither stored nor written back in an answer."""
    for name, value in data.items():
        pending: list[object] = [name, value]
        while pending:  # iterative: a value as deep as JSON allows does not reach the stack's limit
            item = pending.pop()
            if isinstance(item, str) and LONE_SURROGATE.search(item):
                field = "body" if LONE_SURROGATE.search(name) else f"field `{name}`"
                raise ApiError(400, f"The {field} {SURROGATE_SENTENCE}.")
            if isinstance(item, dict):
                pending.extend(part for pair in item.items() for part in pair)
            elif isinstance(item, list):
                pending.extend(item)


def _sentence(exc: ValidationError, model: type[Body]) -> str:
    """The first problem of a body, in one sentence."""
    error = exc.errors()[0]
    field = ".".join(str(part) for part in error["loc"]) or "body"
    if error["type"] == "extra_forbidden":
        known = ", ".join(f"`{name}`" for name in model.model_fields) or "no fields"
        return f"Unknown field `{field}`; this route takes {known}."
    if error["type"] == "missing":
        return f"The field `{field}` is missing."
    return f"The field `{field}` is invalid: {error['msg'].rstrip('.')}."
