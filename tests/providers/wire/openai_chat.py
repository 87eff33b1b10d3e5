"""OpenAI Chat Completions, scripted: ``POST /v1/chat/completions`` (SSE chunks and ``[DONE]``, the usage
chunk only with ``stream_options.include_usage``; or JSON). Azure-style prefixes route here too."""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .core import RecordedRequest, Rendered, Reply, dumps, fault_options, new_id, split_text

OPENAI_CHAT = "openai.chat"
ROUTES = (("/chat/completions", OPENAI_CHAT),)


def chat_usage(
    prompt_tokens: int = 10,
    completion_tokens: int = 5,
    *,
    cached_tokens: int = 0,
    reasoning_tokens: int = 0,
) -> dict[str, Any]:
    """The usage of a completion, as the usage chunk or the JSON body carries it."""
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
    args = arguments if isinstance(arguments, str) else dumps(arguments)
    return {"id": id or new_id("call"), "name": name, "arguments": args, "_chunks": split_text(args, chunks)}


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

    def render(self, request: RecordedRequest) -> Rendered:
        headers = {"x-request-id": new_id("req")}
        if not self.streams(request):
            return self.render_json(self.completion(), headers)
        options = request.json.get("stream_options") or {}
        include_usage = bool(isinstance(options, dict) and options.get("include_usage"))
        events: list[tuple[str | None, Any]] = [(None, c) for c in self.chunks(include_usage)]
        events.append((None, "[DONE]"))
        return self.render_sse(events, headers)


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
        content_chunks=split_text(content or "", content_chunks),
        reasoning=reasoning,
        reasoning_chunks=split_text(reasoning or "", reasoning_chunks),
        reasoning_field=reasoning_field,
        tool_calls=calls,
        finish_reason=finish_reason or ("tool_calls" if calls else "stop"),
        usage=usage or chat_usage(),
        model=model,
        id=id or new_id("chatcmpl"),
        created=int(time.time()),
        **fault_options(faults),
    )
