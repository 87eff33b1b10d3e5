"""Anthropic Messages, scripted: ``POST /v1/messages`` (SSE or JSON) and ``/v1/messages/count_tokens``;
server-side compaction (beta ``compact-2026-01-12``) with `anthropic_compaction_reply`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .core import (
    JSONReply,
    RecordedRequest,
    Rendered,
    Reply,
    dumps,
    fault_options,
    new_id,
    public_fields,
    retry_headers,
    split_text,
)

# Kinds of endpoint; a reply built for one kind refuses to answer a request to another.
ANTHROPIC_MESSAGES = "anthropic.messages"
ANTHROPIC_COUNT_TOKENS = "anthropic.count_tokens"
# Path suffixes and the kind they route to, most specific first.
ROUTES = (("/messages/count_tokens", ANTHROPIC_COUNT_TOKENS), ("/messages", ANTHROPIC_MESSAGES))

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
    return {"type": "text", "text": text, "_chunks": split_text(text, chunks)}


def anthropic_thinking(
    thinking: str, signature: str = "sig-test", *, chunks: int | Sequence[str] = 3
) -> dict[str, Any]:
    """A thinking block: ``thinking_delta`` pieces, then one ``signature_delta`` just before it stops."""
    return {
        "type": "thinking",
        "thinking": thinking,
        "signature": signature,
        "_chunks": split_text(thinking, chunks),
    }


def anthropic_redacted_thinking(data: str = "redacted-test-data") -> dict[str, Any]:
    """A redacted_thinking block: arrives whole in ``content_block_start``, no deltas."""
    return {"type": "redacted_thinking", "data": data}


def anthropic_compaction(
    content: str | None = "Summary of the earlier conversation.",
    encrypted_content: str = "enc-test-compaction",
    *,
    signature: str | None = None,
) -> dict[str, Any]:
    """A compaction block: ``content_block_start`` carries it empty, one ``compaction_delta`` fills it."""
    block: dict[str, Any] = {"type": "compaction", "content": content, "encrypted_content": encrypted_content}
    if signature is not None:
        block["signature"] = signature
    return block


def anthropic_tool_use(
    name: str, input: dict[str, Any], *, id: str | None = None, chunks: int | Sequence[str] = 3
) -> dict[str, Any]:
    """A tool_use block: starts with ``input: {}``, then ``input_json_delta`` pieces of the JSON text
    (led by an empty ``partial_json``, as the API does)."""
    text = dumps(input)
    return {
        "type": "tool_use",
        "id": id or new_id("toolu"),
        "name": name,
        "input": input,
        "_chunks": ["", *split_text(text, chunks)],
    }


@dataclass
class AnthropicMessageReply(Reply):
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
            "content": [public_fields(b) for b in self.blocks],
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
            elif kind == "compaction":
                start = {"type": "compaction", "content": None, "encrypted_content": None}
            else:  # redacted_thinking and anything else: whole in content_block_start
                start = public_fields(block)
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
            if kind == "compaction":  # the whole block in one delta, as the API streams it
                delta = {
                    "type": "compaction_delta",
                    **{k: block[k] for k in ("content", "encrypted_content")},
                }
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

    def render(self, request: RecordedRequest) -> Rendered:
        headers = {"request-id": new_id("req")}
        if self.streams(request):
            return self.render_sse(list(self.events()), headers)
        return self.render_json(self.message(), headers)


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
    return AnthropicMessageReply(
        kind=ANTHROPIC_MESSAGES,
        blocks=norm,
        stop_reason=stop_reason,
        stop_sequence=stop_sequence,
        usage=usage or anthropic_usage(),
        start_output_tokens=start_output_tokens,
        model=model,
        id=id or new_id("msg"),
        ping=ping,
        error_after=error_after,
        error_type=error_type,
        error_message=error_message,
        **fault_options(faults),
    )


COMPACTION_BETA = "compact-2026-01-12"
COMPACT_EDIT = "compact_20260112"
DEFAULT_TRIGGER = 150_000  # the API's trigger when the edit names none


def compaction_edit(request: RecordedRequest) -> dict[str, Any] | None:
    """The request's ``compact_20260112`` edit, or None."""
    body = request.json if isinstance(request.json, dict) else {}
    edits = (body.get("context_management") or {}).get("edits") or []
    return next((e for e in edits if isinstance(e, dict) and e.get("type") == COMPACT_EDIT), None)


@dataclass
class _AnthropicCompactionReply(Reply):
    """Server-side compaction as the API does it: under the beta header, a request whose context
    reaches the edit's trigger is compacted; with ``pause_after_compaction`` the reply is the compaction
    block alone (stop_reason ``compaction``), else the block and then the answer. Below the trigger
    the answer comes without a block. Without the beta header, or the edit, it is a 400."""

    context_tokens: int = 0
    block: dict[str, Any] = field(default_factory=anthropic_compaction)
    answer: str = "Going on from the compacted conversation."
    compaction_output_tokens: int = 40
    model: str = "claude-test"

    def render(self, request: RecordedRequest) -> Rendered:
        edit = compaction_edit(request)
        if COMPACTION_BETA not in (request.header("anthropic-beta") or "") or edit is None:
            error = {"type": "invalid_request_error", "message": "context_management needs the beta header"}
            headers = {"content-type": "application/json", "x-should-retry": "false"}
            return Rendered(400, headers, body={"type": "error", "error": error})
        trigger = (edit.get("trigger") or {}).get("value", DEFAULT_TRIGGER)
        compacts = self.context_tokens >= trigger
        paused = compacts and bool(edit.get("pause_after_compaction"))
        blocks = ([self.block] if compacts else []) + ([] if paused else [anthropic_text(self.answer)])
        usage = anthropic_usage(self.context_tokens, 0 if paused else 10)
        if compacts:
            iteration = {
                "type": "compaction",
                "input_tokens": self.context_tokens,
                "output_tokens": self.compaction_output_tokens,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
            }
            usage = {**usage, "iterations": [iteration]}  # type: ignore[dict-item]
        reply = AnthropicMessageReply(
            blocks=blocks,
            stop_reason="compaction" if paused else "end_turn",
            usage=usage,
            model=self.model,
            id=new_id("msg"),
        )
        return reply.render(request)


def anthropic_compaction_reply(
    context_tokens: int,
    *,
    block: dict[str, Any] | None = None,
    answer: str = "Going on from the compacted conversation.",
    compaction_output_tokens: int = 40,
    **faults: Any,
) -> Reply:
    """A reply for ``POST /v1/messages`` that honours the request's compaction edit, the context being
    ``context_tokens`` by the server's count (see `_AnthropicCompactionReply`)."""
    return _AnthropicCompactionReply(
        kind=ANTHROPIC_MESSAGES,
        context_tokens=context_tokens,
        block=block or anthropic_compaction(),
        answer=answer,
        compaction_output_tokens=compaction_output_tokens,
        **fault_options(faults),
    )


def anthropic_count_tokens_reply(input_tokens: int, **faults: Any) -> Reply:
    """``POST /v1/messages/count_tokens`` → ``{"input_tokens": n}``."""
    return JSONReply(
        kind=ANTHROPIC_COUNT_TOKENS, body={"input_tokens": input_tokens}, **fault_options(faults)
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
    request_id = new_id("req")
    body = {
        "type": "error",
        "error": {"type": err_type, "message": message or err_type.replace("_", " ").capitalize()},
        "request_id": request_id,
    }
    headers = {"request-id": request_id, **retry_headers(retry_after, retry_after_ms, should_retry)}
    headers.update(faults.pop("headers", {}) or {})
    return JSONReply(status=status, body=body, headers=headers, **fault_options(faults))
