"""A local HTTP server that speaks the vendors' real wire formats, for provider-adapter tests.

The official SDKs (``anthropic``, ``openai``) are pointed at it through ``base_url``; the test scripts
the replies in order and afterwards asserts on the exact requests the SDK sent.

Endpoints (routed by path suffix, so Azure-style prefixes such as
``/openai/deployments/<name>/chat/completions`` also work):

* Anthropic ``POST /v1/messages`` (SSE when the body says ``"stream": true``, else a JSON message)
  and ``POST /v1/messages/count_tokens``;
* OpenAI ``POST /v1/chat/completions`` (and ``/chat/completions``; SSE chunks, ``[DONE]``, the usage
  chunk only with ``stream_options.include_usage``);
* OpenAI ``POST /v1/responses`` (SSE or JSON) and ``POST /v1/responses/compact`` (JSON).

Typical use::

    server.enqueue(anthropic_reply(anthropic_thinking("hmm", "sig"), "Hello", usage=anthropic_usage(10)))
    client = anthropic.Anthropic(base_url=server.url, api_key="test-key", max_retries=0)
    ...
    assert server.last_json()["model"] == "claude-test"

Every reply accepts the fault options ``first_byte_delay`` (seconds before the status line),
``event_delay`` (seconds before each SSE event after the first), ``cut_after`` (send only the first N
SSE events, then close the socket without the terminating chunk: the client sees a broken body) and
``cut_cleanly`` (with ``cut_after``: end the body properly instead, so the client sees a short but
well-formed stream). ``reply.with_faults(...)`` returns a copy with other fault options.
"""

from __future__ import annotations

import copy
import itertools
import json
import socket
import threading
import time
from collections import deque
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = [
    "WireServer",
    "RecordedRequest",
    "Reply",
    # Anthropic
    "anthropic_reply",
    "anthropic_text",
    "anthropic_thinking",
    "anthropic_redacted_thinking",
    "anthropic_tool_use",
    "anthropic_usage",
    "anthropic_error",
    "anthropic_count_tokens_reply",
    # OpenAI chat completions
    "chat_reply",
    "chat_tool_call",
    "chat_usage",
    # OpenAI responses
    "responses_reply",
    "responses_reasoning",
    "responses_message",
    "responses_function_call",
    "responses_usage",
    "compact_reply",
    "openai_error",
    # generic
    "sse_reply",
    "json_reply",
    "disconnect_reply",
]

_ids = itertools.count(1)


def _new_id(prefix: str) -> str:
    return f"{prefix}_test{next(_ids):04d}"


def _dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def _split(text: str, chunks: int | Sequence[str]) -> list[str]:
    """``text`` in ``chunks`` pieces (an int: roughly equal, non-empty pieces; a list: used as given)."""
    if not isinstance(chunks, int):
        pieces = list(chunks)
        if "".join(pieces) != text:
            raise ValueError(f"chunks {pieces!r} do not add up to {text!r}")
        return pieces
    if not text:
        return []
    n = max(1, min(chunks, len(text)))
    size, extra = divmod(len(text), n)
    out, pos = [], 0
    for i in range(n):
        step = size + (1 if i < extra else 0)
        out.append(text[pos : pos + step])
        pos += step
    return out


# --------------------------------------------------------------------------------------------------
# Requests and replies
# --------------------------------------------------------------------------------------------------


@dataclass
class RecordedRequest:
    """One request as the server received it."""

    method: str
    path: str  # without the query string
    query: dict[str, list[str]]
    headers: dict[str, str]  # keys lower-cased
    raw_body: bytes
    json: Any  # parsed body, or None if the body was empty / not JSON
    route: str | None  # e.g. "anthropic.messages", None for an unknown path

    def header(self, name: str, default: str | None = None) -> str | None:
        return self.headers.get(name.lower(), default)


# Kinds of endpoint; a reply built for one kind refuses to answer a request to another.
ANTHROPIC_MESSAGES = "anthropic.messages"
ANTHROPIC_COUNT_TOKENS = "anthropic.count_tokens"
OPENAI_CHAT = "openai.chat"
OPENAI_RESPONSES = "openai.responses"
OPENAI_COMPACT = "openai.compact"


def _route(path: str) -> str | None:
    path = path.rstrip("/")
    if path.endswith("/messages/count_tokens"):
        return ANTHROPIC_COUNT_TOKENS
    if path.endswith("/messages"):
        return ANTHROPIC_MESSAGES
    if path.endswith("/chat/completions"):
        return OPENAI_CHAT
    if path.endswith("/responses/compact"):
        return OPENAI_COMPACT
    if path.endswith("/responses"):
        return OPENAI_RESPONSES
    return None


@dataclass
class _Rendered:
    status: int
    headers: dict[str, str]
    events: list[tuple[str | None, str]] | None = None  # SSE: (event name, data)
    body: Any = None  # JSON body when events is None
    disconnect: bool = False


@dataclass
class Reply:
    """A scripted reply. Subclasses decide between SSE and JSON from the request."""

    kind: str | None = None  # the route it answers; None: any
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    first_byte_delay: float = 0.0
    event_delay: float = 0.0
    cut_after: int | None = None
    cut_cleanly: bool = False

    def with_faults(
        self,
        *,
        first_byte_delay: float | None = None,
        event_delay: float | None = None,
        cut_after: int | None = None,
        cut_cleanly: bool | None = None,
    ) -> Reply:
        clone = copy.deepcopy(self)
        if first_byte_delay is not None:
            clone.first_byte_delay = first_byte_delay
        if event_delay is not None:
            clone.event_delay = event_delay
        if cut_after is not None:
            clone.cut_after = cut_after
        if cut_cleanly is not None:
            clone.cut_cleanly = cut_cleanly
        return clone

    def render(self, request: RecordedRequest) -> _Rendered:  # pragma: no cover - overridden
        raise NotImplementedError

    # helpers for subclasses
    def _sse(self, events: list[tuple[str | None, Any]], extra_headers: dict[str, str]) -> _Rendered:
        headers = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}
        headers.update(extra_headers)
        headers.update(self.headers)
        encoded = [(name, data if isinstance(data, str) else _dumps(data)) for name, data in events]
        return _Rendered(self.status, headers, events=encoded)

    def _json(self, body: Any, extra_headers: dict[str, str]) -> _Rendered:
        headers = {"content-type": "application/json"}
        headers.update(extra_headers)
        headers.update(self.headers)
        return _Rendered(self.status, headers, body=body)


def _fault_kwargs(faults: dict[str, Any]) -> dict[str, Any]:
    allowed = {"first_byte_delay", "event_delay", "cut_after", "cut_cleanly", "headers", "status"}
    unknown = set(faults) - allowed
    if unknown:
        raise TypeError(f"unknown reply options: {sorted(unknown)}")
    return faults


def _wants_stream(request: RecordedRequest) -> bool:
    return isinstance(request.json, dict) and bool(request.json.get("stream"))


# ---- generic replies -----------------------------------------------------------------------------


@dataclass
class _SSEReply(Reply):
    events: list[tuple[str | None, Any]] = field(default_factory=list)

    def render(self, request: RecordedRequest) -> _Rendered:
        return self._sse(self.events, {})


@dataclass
class _JSONReply(Reply):
    body: Any = None

    def render(self, request: RecordedRequest) -> _Rendered:
        return self._json(self.body, {})


@dataclass
class _DisconnectReply(Reply):
    def render(self, request: RecordedRequest) -> _Rendered:
        return _Rendered(0, {}, disconnect=True)


def sse_reply(events: Iterable[tuple[str | None, Any]], *, kind: str | None = None, **faults: Any) -> Reply:
    """Exactly these SSE events, whatever the request. Data may be a str (sent as is) or JSON-able;
    an event name of None sends a ``data:`` line only (the OpenAI chat style)."""
    return _SSEReply(kind=kind, events=list(events), **_fault_kwargs(faults))


def json_reply(body: Any, *, status: int = 200, kind: str | None = None, **faults: Any) -> Reply:
    """Exactly this JSON body with this status."""
    return _JSONReply(kind=kind, status=status, body=body, **_fault_kwargs(faults))


def disconnect_reply(**faults: Any) -> Reply:
    """Close the connection without answering (the SDK sees a connection error)."""
    return _DisconnectReply(**_fault_kwargs(faults))


def _retry_headers(
    retry_after: float | str | None, retry_after_ms: float | None, should_retry: bool | None
) -> dict[str, str]:
    headers = {}
    if retry_after is not None:
        headers["retry-after"] = str(retry_after)
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)
    if should_retry is not None:
        headers["x-should-retry"] = "true" if should_retry else "false"
    return headers


# --------------------------------------------------------------------------------------------------
# Anthropic Messages
# --------------------------------------------------------------------------------------------------

_ANTHROPIC_ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


def anthropic_usage(
    input_tokens: int = 10,
    output_tokens: int = 5,
    *,
    cache_creation_input_tokens: int = 0,
    cache_read_input_tokens: int = 0,
) -> dict[str, int]:
    """Final usage of a message (message_start carries the input counts and ``start_output_tokens``;
    message_delta carries all of them, cumulative)."""
    return {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": cache_creation_input_tokens,
        "cache_read_input_tokens": cache_read_input_tokens,
        "output_tokens": output_tokens,
    }


def anthropic_text(text: str, *, chunks: int | Sequence[str] = 3) -> dict[str, Any]:
    """A text block, streamed as ``text_delta`` pieces."""
    return {"type": "text", "text": text, "_chunks": _split(text, chunks)}


def anthropic_thinking(
    thinking: str, signature: str = "sig-test", *, chunks: int | Sequence[str] = 3
) -> dict[str, Any]:
    """A thinking block: ``thinking_delta`` pieces, then one ``signature_delta`` just before it stops."""
    return {
        "type": "thinking",
        "thinking": thinking,
        "signature": signature,
        "_chunks": _split(thinking, chunks),
    }


def anthropic_redacted_thinking(data: str = "redacted-test-data") -> dict[str, Any]:
    """A redacted_thinking block: arrives whole in ``content_block_start``, no deltas."""
    return {"type": "redacted_thinking", "data": data}


def anthropic_tool_use(
    name: str, input: dict[str, Any], *, id: str | None = None, chunks: int | Sequence[str] = 3
) -> dict[str, Any]:
    """A tool_use block: starts with ``input: {}``, then ``input_json_delta`` pieces of the JSON text
    (led by an empty ``partial_json``, as the API does)."""
    text = _dumps(input)
    return {
        "type": "tool_use",
        "id": id or _new_id("toolu"),
        "name": name,
        "input": input,
        "_chunks": ["", *_split(text, chunks)],
    }


def _public(block: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in block.items() if not k.startswith("_")}


@dataclass
class _AnthropicMessageReply(Reply):
    blocks: list[dict[str, Any]] = field(default_factory=list)
    stop_reason: str = "end_turn"
    stop_sequence: str | None = None
    usage: dict[str, int] = field(default_factory=anthropic_usage)
    start_output_tokens: int = 1
    model: str = "claude-test"
    id: str = ""
    ping: bool = True
    error_after: int | None = None
    error_type: str = "overloaded_error"
    error_message: str = "Overloaded"

    def message(self) -> dict[str, Any]:
        """The message as a non-streaming create() returns it."""
        return {
            "id": self.id,
            "type": "message",
            "role": "assistant",
            "model": self.model,
            "content": [_public(b) for b in self.blocks],
            "stop_reason": self.stop_reason,
            "stop_sequence": self.stop_sequence,
            "usage": dict(self.usage),
        }

    def events(self) -> list[tuple[str, dict[str, Any]]]:
        """The SSE events of the streamed message, in order."""
        start_usage = dict(self.usage, output_tokens=self.start_output_tokens)
        msg = dict(self.message(), content=[], stop_reason=None, stop_sequence=None, usage=start_usage)
        events: list[tuple[str, dict[str, Any]]] = [
            ("message_start", {"type": "message_start", "message": msg})
        ]
        for index, block in enumerate(self.blocks):
            kind = block["type"]
            if kind == "text":
                start = {"type": "text", "text": ""}
            elif kind == "thinking":
                start = {"type": "thinking", "thinking": "", "signature": ""}
            elif kind == "tool_use":
                start = {"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}}
            else:  # redacted_thinking and anything else: whole in content_block_start
                start = _public(block)
            events.append(
                (
                    "content_block_start",
                    {"type": "content_block_start", "index": index, "content_block": start},
                )
            )
            if index == 0 and self.ping:
                events.append(("ping", {"type": "ping"}))
            for piece in block.get("_chunks", []):
                if kind == "text":
                    delta = {"type": "text_delta", "text": piece}
                elif kind == "thinking":
                    delta = {"type": "thinking_delta", "thinking": piece}
                else:
                    delta = {"type": "input_json_delta", "partial_json": piece}
                events.append(
                    ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
                )
            if kind == "thinking":
                delta = {"type": "signature_delta", "signature": block["signature"]}
                events.append(
                    ("content_block_delta", {"type": "content_block_delta", "index": index, "delta": delta})
                )
            events.append(("content_block_stop", {"type": "content_block_stop", "index": index}))
        if not self.blocks and self.ping:
            events.append(("ping", {"type": "ping"}))
        events.append(
            (
                "message_delta",
                {
                    "type": "message_delta",
                    "delta": {"stop_reason": self.stop_reason, "stop_sequence": self.stop_sequence},
                    "usage": dict(self.usage),
                },
            )
        )
        events.append(("message_stop", {"type": "message_stop"}))
        if self.error_after is not None:
            error = {"type": "error", "error": {"type": self.error_type, "message": self.error_message}}
            events = events[: self.error_after] + [("error", error)]
        return events

    def render(self, request: RecordedRequest) -> _Rendered:
        headers = {"request-id": _new_id("req")}
        if _wants_stream(request):
            return self._sse(list(self.events()), headers)
        return self._json(self.message(), headers)


def anthropic_reply(
    *blocks: str | dict[str, Any],
    stop_reason: str | None = None,
    stop_sequence: str | None = None,
    usage: dict[str, int] | None = None,
    start_output_tokens: int = 1,
    model: str = "claude-test",
    id: str | None = None,
    ping: bool = True,
    error_after: int | None = None,
    error_type: str = "overloaded_error",
    error_message: str = "Overloaded",
    **faults: Any,
) -> Reply:
    """An assistant message for ``POST /v1/messages`` (SSE or JSON as the request asks).

    ``blocks``: str (a text block) or the dicts of ``anthropic_text/thinking/redacted_thinking/tool_use``.
    ``stop_reason``: default ``tool_use`` if there is a tool_use block, else ``end_turn``.
    ``ping``: send a ``ping`` event after the first ``content_block_start``.
    ``error_after=N``: stream only the first N events, then an ``error`` event (``error_type``, e.g.
    ``overloaded_error``), then end the body (as the API does on a mid-stream failure).
    """
    norm = [anthropic_text(b) if isinstance(b, str) else dict(b) for b in blocks]
    if stop_reason is None:
        stop_reason = "tool_use" if any(b["type"] == "tool_use" for b in norm) else "end_turn"
    return _AnthropicMessageReply(
        kind=ANTHROPIC_MESSAGES,
        blocks=norm,
        stop_reason=stop_reason,
        stop_sequence=stop_sequence,
        usage=usage or anthropic_usage(),
        start_output_tokens=start_output_tokens,
        model=model,
        id=id or _new_id("msg"),
        ping=ping,
        error_after=error_after,
        error_type=error_type,
        error_message=error_message,
        **_fault_kwargs(faults),
    )


def anthropic_count_tokens_reply(input_tokens: int, **faults: Any) -> Reply:
    """``POST /v1/messages/count_tokens`` → ``{"input_tokens": n}``."""
    return _JSONReply(
        kind=ANTHROPIC_COUNT_TOKENS, body={"input_tokens": input_tokens}, **_fault_kwargs(faults)
    )


def anthropic_error(
    status: int = 500,
    message: str | None = None,
    *,
    type: str | None = None,
    retry_after: float | str | None = None,
    retry_after_ms: float | None = None,
    should_retry: bool | None = None,
    **faults: Any,
) -> Reply:
    """An HTTP error in Anthropic's shape: ``{"type":"error","error":{"type","message"},"request_id"}``.
    529 is ``overloaded_error``. ``retry_after`` (seconds) / ``retry_after_ms`` set the headers the SDK
    honours; ``should_retry`` sets ``x-should-retry``."""
    err_type = type or _ANTHROPIC_ERROR_TYPES.get(status, "api_error")
    request_id = _new_id("req")
    body = {
        "type": "error",
        "error": {"type": err_type, "message": message or err_type.replace("_", " ").capitalize()},
        "request_id": request_id,
    }
    headers = {"request-id": request_id, **_retry_headers(retry_after, retry_after_ms, should_retry)}
    headers.update(faults.pop("headers", {}) or {})
    return _JSONReply(status=status, body=body, headers=headers, **_fault_kwargs(faults))


# --------------------------------------------------------------------------------------------------
# OpenAI errors (shared by chat completions and responses)
# --------------------------------------------------------------------------------------------------

_OPENAI_ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", None),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
}


def openai_error(
    status: int = 500,
    message: str | None = None,
    *,
    type: str | None = None,
    code: str | None = None,
    param: str | None = None,
    retry_after: float | str | None = None,
    retry_after_ms: float | None = None,
    should_retry: bool | None = None,
    **faults: Any,
) -> Reply:
    """An HTTP error in OpenAI's shape: ``{"error":{"message","type","param","code"}}``."""
    default_type, default_code = _OPENAI_ERROR_TYPES.get(status, ("server_error", None))
    body = {
        "error": {
            "message": message or f"Test error {status}",
            "type": type or default_type,
            "param": param,
            "code": code if code is not None else default_code,
        }
    }
    headers = {"x-request-id": _new_id("req"), **_retry_headers(retry_after, retry_after_ms, should_retry)}
    headers.update(faults.pop("headers", {}) or {})
    return _JSONReply(status=status, body=body, headers=headers, **_fault_kwargs(faults))


# --------------------------------------------------------------------------------------------------
# OpenAI Chat Completions
# --------------------------------------------------------------------------------------------------


def chat_usage(
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
    *,
    cached_tokens: int = 0,
    reasoning_tokens: int = 0,
) -> dict[str, Any]:
    return {
        "prompt_tokens": prompt_tokens,
        "completion_tokens": completion_tokens,
        "total_tokens": prompt_tokens + completion_tokens,
        "prompt_tokens_details": {"cached_tokens": cached_tokens, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": reasoning_tokens,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


def chat_tool_call(
    name: str, arguments: str | dict[str, Any], *, id: str | None = None, chunks: int | Sequence[str] = 3
) -> dict[str, Any]:
    """A tool call: the first delta carries index, id, type and name (arguments ""), then the
    arguments arrive split over ``chunks`` deltas carrying only index and arguments."""
    args = arguments if isinstance(arguments, str) else _dumps(arguments)
    return {"id": id or _new_id("call"), "name": name, "arguments": args, "_chunks": _split(args, chunks)}


@dataclass
class _ChatReply(Reply):
    content: str | None = None
    content_chunks: list[str] = field(default_factory=list)
    reasoning: str | None = None
    reasoning_chunks: list[str] = field(default_factory=list)
    reasoning_field: str = "reasoning_content"
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    finish_reason: str = "stop"
    usage: dict[str, Any] = field(default_factory=chat_usage)
    model: str = "gpt-test"
    id: str = ""
    created: int = 0

    def completion(self) -> dict[str, Any]:
        """The non-streaming ``chat.completion`` object."""
        message: dict[str, Any] = {"role": "assistant", "content": self.content, "refusal": None}
        if self.reasoning is not None:
            message[self.reasoning_field] = self.reasoning
        if self.tool_calls:
            message["tool_calls"] = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": c["arguments"]},
                }
                for c in self.tool_calls
            ]
        return {
            "id": self.id,
            "object": "chat.completion",
            "created": self.created,
            "model": self.model,
            "choices": [
                {"index": 0, "message": message, "logprobs": None, "finish_reason": self.finish_reason}
            ],
            "usage": self.usage,
            "system_fingerprint": "fp_test",
        }

    def chunks(self, include_usage: bool) -> list[dict[str, Any]]:
        """The ``chat.completion.chunk`` objects of the stream, in order (without ``[DONE]``)."""

        def chunk(delta: dict[str, Any] | None, finish_reason: str | None = None) -> dict[str, Any]:
            out: dict[str, Any] = {
                "id": self.id,
                "object": "chat.completion.chunk",
                "created": self.created,
                "model": self.model,
                "system_fingerprint": "fp_test",
                "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}],
            }
            if include_usage:
                out["usage"] = None
            return out

        first: dict[str, Any] = {"role": "assistant", "content": "", "refusal": None}
        if self.reasoning is not None:
            first = {"role": "assistant", "content": None, self.reasoning_field: ""}
        out = [chunk(first)]
        for piece in self.reasoning_chunks:
            out.append(chunk({"content": None, self.reasoning_field: piece}))
        for piece in self.content_chunks:
            out.append(chunk({"content": piece}))
        for index, call in enumerate(self.tool_calls):
            head = {
                "index": index,
                "id": call["id"],
                "type": "function",
                "function": {"name": call["name"], "arguments": ""},
            }
            out.append(chunk({"tool_calls": [head]}))
            for piece in call["_chunks"]:
                out.append(chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]}))
        out.append(chunk({}, self.finish_reason))
        if include_usage:
            final = chunk(None)
            final["choices"] = []
            final["usage"] = self.usage
            out.append(final)
        return out

    def render(self, request: RecordedRequest) -> _Rendered:
        headers = {"x-request-id": _new_id("req")}
        if not _wants_stream(request):
            return self._json(self.completion(), headers)
        options = request.json.get("stream_options") or {}
        include_usage = bool(isinstance(options, dict) and options.get("include_usage"))
        events: list[tuple[str | None, Any]] = [(None, c) for c in self.chunks(include_usage)]
        events.append((None, "[DONE]"))
        return self._sse(events, headers)


def chat_reply(
    content: str | None = None,
    *,
    reasoning: str | None = None,
    tool_calls: Sequence[dict[str, Any]] = (),
    finish_reason: str | None = None,
    usage: dict[str, Any] | None = None,
    model: str = "gpt-test",
    id: str | None = None,
    reasoning_field: str = "reasoning_content",
    content_chunks: int | Sequence[str] = 3,
    reasoning_chunks: int | Sequence[str] = 3,
    **faults: Any,
) -> Reply:
    """A reply for ``POST /v1/chat/completions`` (SSE chunks or a JSON completion as requested).

    Streamed: a first chunk with the role, then ``reasoning_field`` deltas (``reasoning_content`` as
    DeepSeek, ``reasoning`` as vLLM), content deltas, tool-call deltas by index (see
    ``chat_tool_call``), a chunk with ``finish_reason`` and an empty delta, then, only if the request
    set ``stream_options.include_usage``, a chunk with ``choices: []`` and ``usage``; then ``[DONE]``.
    ``finish_reason``: default ``tool_calls`` if there are tool calls, else ``stop``.
    """
    calls = [dict(c) for c in tool_calls]
    return _ChatReply(
        kind=OPENAI_CHAT,
        content=content,
        content_chunks=_split(content or "", content_chunks),
        reasoning=reasoning,
        reasoning_chunks=_split(reasoning or "", reasoning_chunks),
        reasoning_field=reasoning_field,
        tool_calls=calls,
        finish_reason=finish_reason or ("tool_calls" if calls else "stop"),
        usage=usage or chat_usage(),
        model=model,
        id=id or _new_id("chatcmpl"),
        created=int(time.time()),
        **_fault_kwargs(faults),
    )


# --------------------------------------------------------------------------------------------------
# OpenAI Responses
# --------------------------------------------------------------------------------------------------


def responses_usage(
    input_tokens: int = 10,
    output_tokens: int = 5,
    *,
    cached_tokens: int = 0,
    reasoning_tokens: int = 0,
) -> dict[str, Any]:
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": cached_tokens, "cache_write_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": reasoning_tokens},
        "total_tokens": input_tokens + output_tokens,
    }


def responses_reasoning(
    summary: str | Sequence[str] = (),
    *,
    encrypted_content: str | None = "enc-test-reasoning",
    id: str | None = None,
    chunks: int | Sequence[str] = 2,
) -> dict[str, Any]:
    """A reasoning item; each summary part is streamed as ``response.reasoning_summary_text.delta``
    pieces. ``encrypted_content`` appears in the item of ``response.output_item.done``."""
    parts = [summary] if isinstance(summary, str) else list(summary)
    return {
        "type": "reasoning",
        "id": id or _new_id("rs"),
        "summary": [{"type": "summary_text", "text": p} for p in parts],
        "encrypted_content": encrypted_content,
        "_chunks": [_split(p, chunks) for p in parts],
    }


def responses_message(
    text: str, *, id: str | None = None, chunks: int | Sequence[str] = 3, phase: str | None = None
) -> dict[str, Any]:
    """An assistant message item with one ``output_text`` part."""
    item: dict[str, Any] = {
        "type": "message",
        "id": id or _new_id("msg"),
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": text}],
        "_chunks": _split(text, chunks),
    }
    if phase is not None:
        item["phase"] = phase
    return item


def responses_function_call(
    name: str,
    arguments: str | dict[str, Any],
    *,
    call_id: str | None = None,
    id: str | None = None,
    chunks: int | Sequence[str] = 3,
) -> dict[str, Any]:
    """A function_call item; its arguments stream as ``response.function_call_arguments.delta``."""
    args = arguments if isinstance(arguments, str) else _dumps(arguments)
    return {
        "type": "function_call",
        "id": id or _new_id("fc"),
        "call_id": call_id or _new_id("call"),
        "name": name,
        "arguments": args,
        "status": "completed",
        "_chunks": _split(args, chunks),
    }


@dataclass
class _ResponsesReply(Reply):
    items: list[dict[str, Any]] = field(default_factory=list)
    final_status: str = "completed"  # completed | incomplete | failed
    incomplete_reason: str = "max_output_tokens"
    error_code: str = "server_error"
    error_message: str = "The server had an error while processing your request."
    usage: dict[str, Any] = field(default_factory=responses_usage)
    model: str = "gpt-test"
    id: str = ""
    created_at: int = 0
    error_after: int | None = None

    def response(self, request: RecordedRequest | None, *, final: bool) -> dict[str, Any]:
        """The ``response`` object: as in response.created (``final=False``) or at the end."""
        req = request.json if request is not None and isinstance(request.json, dict) else {}
        status = self.final_status if final else "in_progress"
        out: dict[str, Any] = {
            "id": self.id,
            "object": "response",
            "created_at": self.created_at,
            "status": status,
            "background": False,
            "error": None,
            "incomplete_details": None,
            "instructions": req.get("instructions"),
            "max_output_tokens": req.get("max_output_tokens"),
            "model": self.model,
            "output": [_public(i) for i in self.items] if final else [],
            "parallel_tool_calls": req.get("parallel_tool_calls", True),
            "previous_response_id": req.get("previous_response_id"),
            "reasoning": req.get("reasoning") or {"effort": None, "summary": None},
            "store": req.get("store", True),
            "temperature": req.get("temperature", 1.0),
            "text": req.get("text") or {"format": {"type": "text"}},
            "tool_choice": req.get("tool_choice", "auto"),
            "tools": req.get("tools", []),
            "top_p": req.get("top_p", 1.0),
            "truncation": req.get("truncation", "disabled"),
            "usage": self.usage if final else None,
            "user": None,
            "metadata": req.get("metadata") or {},
        }
        if final and self.final_status == "incomplete":
            out["incomplete_details"] = {"reason": self.incomplete_reason}
        if final and self.final_status == "failed":
            out["error"] = {"code": self.error_code, "message": self.error_message}
        if final and self.final_status == "completed":
            out["completed_at"] = self.created_at + 1
        return out

    def events(self, request: RecordedRequest | None = None) -> list[tuple[str, dict[str, Any]]]:
        """The SSE events of the streamed response, in order (``sequence_number`` from 0)."""
        events: list[tuple[str, dict[str, Any]]] = []

        def emit(kind: str, **data: Any) -> None:
            events.append((kind, {"type": kind, "sequence_number": len(events), **data}))

        emit("response.created", response=self.response(request, final=False))
        emit("response.in_progress", response=self.response(request, final=False))
        for index, item in enumerate(self.items):
            common = {"item_id": item["id"], "output_index": index}
            kind = item["type"]
            if kind == "reasoning":
                added = {"type": "reasoning", "id": item["id"], "summary": []}
                emit("response.output_item.added", output_index=index, item=added)
                for s_index, (part, pieces) in enumerate(zip(item["summary"], item["_chunks"], strict=True)):
                    emit(
                        "response.reasoning_summary_part.added",
                        **common,
                        summary_index=s_index,
                        part={"type": "summary_text", "text": ""},
                    )
                    for piece in pieces:
                        emit(
                            "response.reasoning_summary_text.delta",
                            **common,
                            summary_index=s_index,
                            delta=piece,
                        )
                    emit(
                        "response.reasoning_summary_text.done",
                        **common,
                        summary_index=s_index,
                        text=part["text"],
                    )
                    emit("response.reasoning_summary_part.done", **common, summary_index=s_index, part=part)
            elif kind == "message":
                added = dict(_public(item), status="in_progress", content=[])
                emit("response.output_item.added", output_index=index, item=added)
                part = item["content"][0]
                empty = dict(part, text="")
                emit("response.content_part.added", **common, content_index=0, part=empty)
                for piece in item["_chunks"]:
                    emit("response.output_text.delta", **common, content_index=0, delta=piece, logprobs=[])
                emit("response.output_text.done", **common, content_index=0, text=part["text"], logprobs=[])
                emit("response.content_part.done", **common, content_index=0, part=part)
            elif kind == "function_call":
                added = dict(_public(item), status="in_progress", arguments="")
                emit("response.output_item.added", output_index=index, item=added)
                for piece in item["_chunks"]:
                    emit("response.function_call_arguments.delta", **common, delta=piece)
                emit(
                    "response.function_call_arguments.done",
                    **common,
                    name=item["name"],
                    arguments=item["arguments"],
                )
            else:
                emit("response.output_item.added", output_index=index, item=_public(item))
            emit("response.output_item.done", output_index=index, item=_public(item))
        final_kind = {
            "completed": "response.completed",
            "incomplete": "response.incomplete",
            "failed": "response.failed",
        }[self.final_status]
        emit(final_kind, response=self.response(request, final=True))
        if self.error_after is not None:
            events = events[: self.error_after]
            error = {
                "type": "error",
                "sequence_number": len(events),
                "code": self.error_code,
                "message": self.error_message,
                "param": None,
            }
            events.append(("error", error))
        return events

    def render(self, request: RecordedRequest) -> _Rendered:
        headers = {"x-request-id": _new_id("req")}
        if _wants_stream(request):
            return self._sse(list(self.events(request)), headers)
        return self._json(self.response(request, final=True), headers)


def responses_reply(
    *items: str | dict[str, Any],
    status: str = "completed",
    incomplete_reason: str = "max_output_tokens",
    error_code: str = "server_error",
    error_message: str = "The server had an error while processing your request.",
    usage: dict[str, Any] | None = None,
    model: str = "gpt-test",
    id: str | None = None,
    error_after: int | None = None,
    **faults: Any,
) -> Reply:
    """A reply for ``POST /v1/responses`` (SSE or a JSON response object as the request asks).

    ``items``: str (an assistant message) or the dicts of ``responses_reasoning/message/function_call``.
    ``status``: ``completed`` (ends with ``response.completed``), ``incomplete`` (``response.incomplete``
    with ``incomplete_details.reason``) or ``failed`` (``response.failed`` with ``error``).
    ``error_after=N``: stream only the first N events, then an ``error`` event and end the body.
    """
    if status not in ("completed", "incomplete", "failed"):
        raise ValueError(f"status must be completed, incomplete or failed, not {status!r}")
    norm = [responses_message(i) if isinstance(i, str) else dict(i) for i in items]
    return _ResponsesReply(
        kind=OPENAI_RESPONSES,
        items=norm,
        final_status=status,
        incomplete_reason=incomplete_reason,
        error_code=error_code,
        error_message=error_message,
        usage=usage or responses_usage(),
        model=model,
        id=id or _new_id("resp"),
        created_at=int(time.time()),
        error_after=error_after,
        **_fault_kwargs(faults),
    )


@dataclass
class _CompactReply(Reply):
    output: list[dict[str, Any]] | None = None
    encrypted_content: str = "enc-test-compaction"
    usage: dict[str, Any] = field(default_factory=responses_usage)
    id: str = ""
    created_at: int = 0

    def render(self, request: RecordedRequest) -> _Rendered:
        output = self.output
        if output is None:
            output = _user_messages(request.json.get("input") if isinstance(request.json, dict) else None)
            output.append(
                {"id": _new_id("cmp"), "type": "compaction", "encrypted_content": self.encrypted_content}
            )
        body = {
            "id": self.id,
            "object": "response.compaction",
            "created_at": self.created_at,
            "output": output,
            "usage": self.usage,
        }
        return self._json(body, {"x-request-id": _new_id("req")})


def _user_messages(input: Any) -> list[dict[str, Any]]:
    """The user messages of a Responses ``input``, as output items (``input_text`` parts)."""
    if input is None:
        return []
    if isinstance(input, str):
        input = [{"role": "user", "content": input}]
    out = []
    for item in input:
        if not isinstance(item, dict) or item.get("role") != "user":
            continue
        if item.get("type", "message") != "message":
            continue
        content = item.get("content")
        if isinstance(content, str):
            content = [{"type": "input_text", "text": content}]
        out.append(
            {
                "id": _new_id("msg"),
                "type": "message",
                "status": "completed",
                "role": "user",
                "content": content,
            }
        )
    return out


def compact_reply(
    *,
    output: list[dict[str, Any]] | None = None,
    encrypted_content: str = "enc-test-compaction",
    usage: dict[str, Any] | None = None,
    id: str | None = None,
    **faults: Any,
) -> Reply:
    """A reply for ``POST /v1/responses/compact``: ``{object: "response.compaction", output, usage}``.
    Without ``output``: the request's user messages followed by one
    ``{type: "compaction", encrypted_content}`` item."""
    return _CompactReply(
        kind=OPENAI_COMPACT,
        output=output,
        encrypted_content=encrypted_content,
        usage=usage or responses_usage(),
        id=id or _new_id("resp"),
        created_at=int(time.time()),
        **_fault_kwargs(faults),
    )


# --------------------------------------------------------------------------------------------------
# The server
# --------------------------------------------------------------------------------------------------


class _HTTPServer(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    owner: WireServer

    def handle_error(self, request: Any, client_address: Any) -> None:  # quiet on client hang-ups
        pass


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _HTTPServer
    timeout = 30  # an idle keep-alive connection ends after this

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def setup(self) -> None:
        super().setup()
        self.server.owner._track(self.connection, add=True)

    def finish(self) -> None:
        try:
            super().finish()
        except OSError:
            pass
        self.server.owner._track(self.connection, add=False)

    def do_POST(self) -> None:
        self._handle()

    def do_GET(self) -> None:
        self._handle()

    def _handle(self) -> None:
        owner = self.server.owner
        length = int(self.headers.get("content-length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            parsed = json.loads(raw) if raw else None
        except ValueError:
            parsed = None
        split = urlsplit(self.path)
        request = RecordedRequest(
            method=self.command,
            path=split.path,
            query=parse_qs(split.query),
            headers={k.lower(): v for k, v in self.headers.items()},
            raw_body=raw,
            json=parsed,
            route=_route(split.path),
        )
        number = owner._record(request)
        if request.route is None:
            self._send_problem(
                404, f"wire_server: unknown path {self.command} {split.path} (request #{number})"
            )
            return
        reply, problem = owner._take(request, number)
        if reply is None:
            self._send_problem(500, problem)
            return
        try:
            rendered = reply.render(request)
        except Exception as exc:  # a bug in a builder: make it obvious
            owner.problems.append(f"render failed: {exc!r}")
            self._send_problem(500, f"wire_server: rendering the scripted reply failed: {exc!r}")
            return
        if reply.first_byte_delay and owner._stopping.wait(reply.first_byte_delay):
            return
        try:
            if rendered.disconnect:
                self._hang_up()
            elif rendered.events is not None:
                self._send_sse(reply, rendered)
            else:
                self._send_json(rendered.status, rendered.headers, rendered.body)
        except OSError:  # the client went away
            self.close_connection = True

    # --- writing ------------------------------------------------------------------------------

    def _send_problem(self, status: int, message: str) -> None:
        body = {"type": "error", "error": {"type": "api_error", "message": message}}
        self._send_json(status, {"x-should-retry": "false"}, body)

    def _send_json(self, status: int, headers: dict[str, str], body: Any) -> None:
        data = _dumps(body).encode()
        self.send_response(status)
        headers = {"content-type": "application/json", **headers}
        for name, value in headers.items():
            self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        self.wfile.flush()

    def _send_sse(self, reply: Reply, rendered: _Rendered) -> None:
        owner = self.server.owner
        self.send_response(rendered.status)
        for name, value in rendered.headers.items():
            self.send_header(name, value)
        self.send_header("transfer-encoding", "chunked")
        self.end_headers()
        self.wfile.flush()
        events = rendered.events or []
        for number, (name, data) in enumerate(events):
            if reply.cut_after is not None and number >= reply.cut_after:
                if reply.cut_cleanly:
                    break
                self._hang_up()
                return
            if number and reply.event_delay and owner._stopping.wait(reply.event_delay):
                self._hang_up()
                return
            text = (f"event: {name}\n" if name is not None else "") + f"data: {data}\n\n"
            self._write_chunk(text.encode())
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _hang_up(self) -> None:
        self.close_connection = True
        try:
            self.wfile.flush()
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class WireServer:
    """The scripted vendor server. ``start()`` / ``stop()`` (or use it as a context manager)."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0) -> None:
        self._host = host
        self._port = port
        self._lock = threading.Lock()
        self._queue: deque[Reply] = deque()
        self._requests: list[RecordedRequest] = []
        self._conns: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.problems: list[str] = []  # empty queue, kind mismatch, render failures

    # --- lifecycle ----------------------------------------------------------------------------

    def start(self) -> WireServer:
        httpd = _HTTPServer((self._host, self._port), _Handler)
        httpd.owner = self
        self._httpd = httpd
        self._stopping.clear()
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, name="wire-server", daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stopping.set()
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        with self._lock:
            conns = list(self._conns)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._httpd = None
        self._thread = None

    def __enter__(self) -> WireServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def port(self) -> int:
        assert self._httpd is not None, "server not started"
        return self._httpd.server_address[1]

    @property
    def url(self) -> str:
        """``http://127.0.0.1:PORT`` — the Anthropic ``base_url``."""
        return f"http://{self._host}:{self.port}"

    @property
    def openai_base_url(self) -> str:
        """``url + "/v1"`` — the OpenAI ``base_url``."""
        return self.url + "/v1"

    # --- scripting ----------------------------------------------------------------------------

    def enqueue(self, *replies: Reply) -> WireServer:
        """Append replies; each request takes the next one in order."""
        with self._lock:
            self._queue.extend(replies)
        return self

    @property
    def pending(self) -> int:
        """How many scripted replies are still queued."""
        with self._lock:
            return len(self._queue)

    def clear(self) -> None:
        with self._lock:
            self._queue.clear()
            self._requests.clear()
            self.problems.clear()

    # --- recording ----------------------------------------------------------------------------

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in order (a copy)."""
        with self._lock:
            return list(self._requests)

    def last_request(self) -> RecordedRequest:
        with self._lock:
            if not self._requests:
                raise AssertionError("wire_server: no request was received")
            return self._requests[-1]

    def last_json(self) -> Any:
        """The parsed JSON body of the last request."""
        return self.last_request().json

    def json_bodies(self, route: str | None = None) -> list[Any]:
        """The parsed bodies of all requests (optionally only those of one route, e.g.
        ``"anthropic.messages"``)."""
        return [r.json for r in self.requests if route is None or r.route == route]

    # --- internals ----------------------------------------------------------------------------

    def _track(self, conn: socket.socket, *, add: bool) -> None:
        with self._lock:
            if add:
                self._conns.add(conn)
            else:
                self._conns.discard(conn)

    def _record(self, request: RecordedRequest) -> int:
        with self._lock:
            self._requests.append(request)
            return len(self._requests)

    def _take(self, request: RecordedRequest, number: int) -> tuple[Reply | None, str]:
        with self._lock:
            if not self._queue:
                problem = (
                    f"wire_server: no scripted response was queued for {request.method} {request.path} "
                    f"(request #{number}); call server.enqueue(...) before the SDK call"
                )
                self.problems.append(problem)
                return None, problem
            reply = self._queue[0]
            if reply.kind is not None and reply.kind != request.route:
                problem = (
                    f"wire_server: the next scripted reply is for {reply.kind} but request #{number} is "
                    f"{request.method} {request.path} ({request.route}); the reply stays queued"
                )
                self.problems.append(problem)
                return None, problem
            self._queue.popleft()
            return reply, ""
