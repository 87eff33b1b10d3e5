"""The shared core of the scripted vendor servers: recorded requests, scripted replies and their faults.

A reply renders to a status, headers and either SSE events or a JSON body; the server (`server.py`)
writes it out, with the reply's faults: ``first_byte_delay`` (seconds before the status line),
``event_delay`` (seconds before each SSE event after the first), ``cut_after`` (send only the first N SSE
events, then close the socket without the terminating chunk: the client sees a broken body) and
``cut_cleanly`` (with ``cut_after``: end the body properly instead, so the client sees a short but
well-formed stream), ``drop_last`` (send every SSE event but the last N, then end the body properly: a
stream that stops before the events that finish the message) and ``unstreamed`` (answer a request that
asks for a stream with the whole message as JSON, ``application/json``, as LiteLLM's proxy does).
"""

from __future__ import annotations

import itertools
import json
import threading
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

_ids = itertools.count(1)


def new_id(prefix: str) -> str:
    """A fresh id such as ``msg_test0001``, unique in the process."""
    return f"{prefix}_test{next(_ids):04d}"


def dumps(obj: Any) -> str:
    """Compact JSON, as the vendors send it."""
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


def split_text(text: str, chunks: int | Sequence[str]) -> list[str]:
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


def public_fields(block: dict[str, Any]) -> dict[str, Any]:
    """A block without the keys that only script its streaming (``_chunks``)."""
    return {k: v for k, v in block.items() if not k.startswith("_")}


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
        """A header by name, whatever its case."""
        return self.headers.get(name.lower(), default)


@dataclass
class Rendered:
    """A reply as the server writes it: SSE events, binary frames, a JSON body, or a hang-up."""

    status: int
    headers: dict[str, str]
    events: list[tuple[str | None, str]] | None = None  # SSE: (event name, data)
    chunks: list[bytes] | None = None  # a stream of binary frames (Bedrock's AWS event stream)
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
    drop_last: int = 0
    unstreamed: bool = False
    # Held until the test sets it: the request is in, its reply not begun (a turn waiting on a slow reply).
    gate: threading.Event | None = None

    def streams(self, request: RecordedRequest) -> bool:
        """Whether to answer this request with SSE: it asks for a stream and this reply honours that."""
        return wants_stream(request) and not self.unstreamed

    def render(self, request: RecordedRequest) -> Rendered:  # pragma: no cover - overridden
        """What to send for this request."""
        raise NotImplementedError

    def render_sse(self, events: list[tuple[str | None, Any]], extra_headers: dict[str, str]) -> Rendered:
        """These events as an SSE body, with this reply's status and headers."""
        headers = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}
        headers.update(extra_headers)
        headers.update(self.headers)
        encoded = [(name, data if isinstance(data, str) else dumps(data)) for name, data in events]
        return Rendered(self.status, headers, events=encoded)

    def render_json(self, body: Any, extra_headers: dict[str, str]) -> Rendered:
        """This body as JSON, with this reply's status and headers."""
        headers = {"content-type": "application/json"}
        headers.update(extra_headers)
        headers.update(self.headers)
        return Rendered(self.status, headers, body=body)


def fault_options(faults: dict[str, Any]) -> dict[str, Any]:
    """The fault options a reply builder was given; refuses unknown ones."""
    allowed = {
        "first_byte_delay",
        "event_delay",
        "cut_after",
        "cut_cleanly",
        "drop_last",
        "unstreamed",
        "gate",
    }
    allowed |= {"headers", "status"}
    unknown = set(faults) - allowed
    if unknown:
        raise TypeError(f"unknown reply options: {sorted(unknown)}")
    return faults


def wants_stream(request: RecordedRequest) -> bool:
    """Whether the request body asks for a stream."""
    return isinstance(request.json, dict) and bool(request.json.get("stream"))


# ---- generic replies -----------------------------------------------------------------------------


@dataclass
class SSEReply(Reply):
    """Exactly these SSE events."""

    events: list[tuple[str | None, Any]] = field(default_factory=list)

    def render(self, request: RecordedRequest) -> Rendered:
        return self.render_sse(self.events, {})


@dataclass
class JSONReply(Reply):
    """Exactly this JSON body."""

    body: Any = None

    def render(self, request: RecordedRequest) -> Rendered:
        return self.render_json(self.body, {})


@dataclass
class DisconnectReply(Reply):
    """No answer: the connection closes."""

    def render(self, request: RecordedRequest) -> Rendered:
        return Rendered(0, {}, disconnect=True)


def sse_reply(events: Iterable[tuple[str | None, Any]], *, kind: str | None = None, **faults: Any) -> Reply:
    """Exactly these SSE events, whatever the request. Data may be a str (sent as is) or JSON-able;
    an event name of None sends a ``data:`` line only (the OpenAI chat style)."""
    return SSEReply(kind=kind, events=list(events), **fault_options(faults))


def json_reply(body: Any, *, status: int = 200, kind: str | None = None, **faults: Any) -> Reply:
    """Exactly this JSON body with this status."""
    return JSONReply(kind=kind, status=status, body=body, **fault_options(faults))


def disconnect_reply(**faults: Any) -> Reply:
    """Close the connection without answering (the SDK sees a connection error)."""
    return DisconnectReply(**fault_options(faults))


def retry_headers(
    retry_after: float | str | None, retry_after_ms: float | None, should_retry: bool | None
) -> dict[str, str]:
    """The headers that tell an SDK when, and whether, to retry."""
    headers = {}
    if retry_after is not None:
        headers["retry-after"] = str(retry_after)
    if retry_after_ms is not None:
        headers["retry-after-ms"] = str(retry_after_ms)
    if should_retry is not None:
        headers["x-should-retry"] = "true" if should_retry else "false"
    return headers
