"""Anthropic's models on Google Vertex AI, scripted: ``POST /v1/projects/{project}/locations/{region}/
publishers/anthropic/models/{model}:streamRawPredict`` (``:rawPredict`` unstreamed) answers with the
Messages API's SSE (or JSON), as Vertex does; a Google token endpoint (``POST /token``) for the OAuth
grant of a service account.

A request that breaks Vertex's contract is answered 400, as Vertex answers it: the body must carry
``anthropic_version: vertex-2023-10-16`` and no ``model`` (the address names it), a stream must be asked
for at ``:streamRawPredict``, and the request must carry a Google bearer token.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any

from .anthropic import AnthropicMessageReply, anthropic_reply
from .core import JSONReply, RecordedRequest, Rendered, Reply, wants_stream

VERTEX_MESSAGES = "vertex.messages"
GOOGLE_TOKEN = "google.token"
VERTEX_VERSION = "vertex-2023-10-16"
ROUTES = (("/token", GOOGLE_TOKEN),)
PATH = re.compile(
    r"/v1/projects/(?P<project>[^/]+)/locations/(?P<region>[^/]+)/publishers/anthropic/models/"
    r"(?P<model>[^/:]+):(?P<method>streamRawPredict|rawPredict)$"
)


def route(path: str) -> str | None:
    """VERTEX_MESSAGES for a Vertex AI address of an Anthropic model, else None."""
    return VERTEX_MESSAGES if PATH.search(path) else None


def vertex_address(request: RecordedRequest) -> dict[str, str]:
    """The project, region, model and method the request's address names."""
    found = PATH.search(request.path)
    assert found is not None, request.path
    return found.groupdict()


def vertex_problem(request: RecordedRequest) -> str | None:
    """What of Vertex's contract the request breaks, or None."""
    body = request.json if isinstance(request.json, dict) else {}
    method = vertex_address(request)["method"]
    if body.get("anthropic_version") != VERTEX_VERSION:
        return f"anthropic_version must be {VERTEX_VERSION}, got {body.get('anthropic_version')!r}"
    if "model" in body:
        return "model: Extra inputs are not permitted (the address names the model)"
    if wants_stream(request) != (method == "streamRawPredict"):
        return f"stream={body.get('stream')!r} does not go with :{method}"
    if not (request.header("authorization") or "").startswith("Bearer "):
        return "Request is missing required authentication credential: expected an OAuth 2 access token"
    return None


@dataclass
class _VertexReply(AnthropicMessageReply):
    def render(self, request: RecordedRequest) -> Rendered:
        problem = vertex_problem(request)
        if problem is not None:
            error = {"error": {"code": 400, "message": problem, "status": "INVALID_ARGUMENT"}}
            return Rendered(400, {"content-type": "application/json", "x-should-retry": "false"}, body=error)
        return super().render(request)


def vertex_reply(*blocks: str | dict[str, Any], **options: Any) -> Reply:
    """An Anthropic message answered at a Vertex AI address: `anthropic_reply`'s blocks and options."""
    reply = anthropic_reply(*blocks, **options)
    assert isinstance(reply, AnthropicMessageReply)
    values = {f.name: getattr(reply, f.name) for f in fields(reply)}
    return _VertexReply(**{**values, "kind": VERTEX_MESSAGES})


def google_token_reply(access_token: str = "ya29.test-token", expires_in: int = 3600) -> Reply:
    """Google's OAuth token endpoint's answer to a service account's signed grant."""
    body = {"access_token": access_token, "expires_in": expires_in, "token_type": "Bearer"}
    return JSONReply(kind=GOOGLE_TOKEN, body=body)
