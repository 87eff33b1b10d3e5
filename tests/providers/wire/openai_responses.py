"""OpenAI Responses, scripted: ``POST /v1/responses`` (SSE or JSON) and ``POST /v1/responses/compact``."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .core import (
    RecordedRequest,
    Rendered,
    Reply,
    dumps,
    fault_options,
    new_id,
    public_fields,
    split_text,
)

OPENAI_RESPONSES = "openai.responses"
OPENAI_COMPACT = "openai.compact"
ROUTES = (("/responses/compact", OPENAI_COMPACT), ("/responses", OPENAI_RESPONSES))


def responses_usage(
    input_tokens: int = 10,
    output_tokens: int = 5,
    *,
    cached_tokens: int = 0,
    reasoning_tokens: int = 0,
) -> dict[str, Any]:
    """The usage of a response, as `response.completed` or the JSON body carries it."""
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
        "id": id or new_id("rs"),
        "summary": [{"type": "summary_text", "text": p} for p in parts],
        "encrypted_content": encrypted_content,
        "_chunks": [split_text(p, chunks) for p in parts],
    }


def responses_message(
    text: str, *, id: str | None = None, chunks: int | Sequence[str] = 3, phase: str | None = None
) -> dict[str, Any]:
    """An assistant message item with one ``output_text`` part."""
    item: dict[str, Any] = {
        "type": "message",
        "id": id or new_id("msg"),
        "status": "completed",
        "role": "assistant",
        "content": [{"type": "output_text", "annotations": [], "logprobs": [], "text": text}],
        "_chunks": split_text(text, chunks),
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
    args = arguments if isinstance(arguments, str) else dumps(arguments)
    return {
        "type": "function_call",
        "id": id or new_id("fc"),
        "call_id": call_id or new_id("call"),
        "name": name,
        "arguments": args,
        "status": "completed",
        "_chunks": split_text(args, chunks),
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
            "output": [public_fields(i) for i in self.items] if final else [],
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
                added = dict(public_fields(item), status="in_progress", content=[])
                emit("response.output_item.added", output_index=index, item=added)
                part = item["content"][0]
                empty = dict(part, text="")
                emit("response.content_part.added", **common, content_index=0, part=empty)
                for piece in item["_chunks"]:
                    emit("response.output_text.delta", **common, content_index=0, delta=piece, logprobs=[])
                emit("response.output_text.done", **common, content_index=0, text=part["text"], logprobs=[])
                emit("response.content_part.done", **common, content_index=0, part=part)
            elif kind == "function_call":
                added = dict(public_fields(item), status="in_progress", arguments="")
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
                emit("response.output_item.added", output_index=index, item=public_fields(item))
            emit("response.output_item.done", output_index=index, item=public_fields(item))
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

    def render(self, request: RecordedRequest) -> Rendered:
        headers = {"x-request-id": new_id("req")}
        if self.streams(request):
            return self.render_sse(list(self.events(request)), headers)
        return self.render_json(self.response(request, final=True), headers)


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
        id=id or new_id("resp"),
        created_at=int(time.time()),
        error_after=error_after,
        **fault_options(faults),
    )


@dataclass
class _CompactReply(Reply):
    output: list[dict[str, Any]] | None = None
    encrypted_content: str = "enc-test-compaction"
    usage: dict[str, Any] = field(default_factory=responses_usage)
    id: str = ""
    created_at: int = 0

    def render(self, request: RecordedRequest) -> Rendered:
        output = self.output
        if output is None:
            output = _user_messages(request.json.get("input") if isinstance(request.json, dict) else None)
            output.append(
                {"id": new_id("cmp"), "type": "compaction", "encrypted_content": self.encrypted_content}
            )
        body = {
            "id": self.id,
            "object": "response.compaction",
            "created_at": self.created_at,
            "output": output,
            "usage": self.usage,
        }
        return self.render_json(body, {"x-request-id": new_id("req")})


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
                "id": new_id("msg"),
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
        id=id or new_id("resp"),
        created_at=int(time.time()),
        **fault_options(faults),
    )
