"""Anthropic Messages (P1) over the official `anthropic` SDK: neutral request in, neutral events out."""

from __future__ import annotations

import json
from collections.abc import Generator, Iterable, Iterator
from typing import Any

import anthropic

from ..cards.models import Usage
from ..errors import ProviderError
from .base import (
    AttachmentPart,
    Compacted,
    Compaction,
    CompactionPart,
    Exchange,
    Message,
    ModelInfo,
    ModelRequest,
    SDKExchange,
    SDKProvider,
    StopEvent,
    StreamEvent,
    TextDelta,
    TextPart,
    ThinkingDelta,
    ThinkingDone,
    ThinkingPart,
    ToolCallEvent,
    ToolResultPart,
    ToolUsePart,
    UsageEvent,
    attachment_text,
)
from .unstreamed import EVENT_STREAM, ended_early, json_object, not_a_reply, whole_body

PROTOCOL = "anthropic-messages"
PROTOCOL_NAME = "Anthropic Messages"
THINKING_BUDGETS = {"low": 2048, "medium": 8192, "high": 16384}
CACHE_BREAKPOINTS = 4
CONTINUE_TEXT = "<system-reminder>\nContinue from where the conversation stands.\n</system-reminder>"
EPHEMERAL = {"type": "ephemeral"}
# Server-side compaction (C4): its beta, its edit, and the lowest trigger the API accepts, in input tokens.
COMPACTION_BETA = "compact-2026-01-12"
COMPACT_EDIT = "compact_20260112"
MIN_TRIGGER = 50_000
# The SDK's clients that speak Messages: Anthropic's own API, and Amazon Bedrock (providers/bedrock.py).
MessagesClient = anthropic.Anthropic | anthropic.AnthropicBedrock | anthropic.AnthropicVertex


def _user_block(part: Any) -> dict[str, Any] | None:
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text}
    if isinstance(part, ToolResultPart):
        return {
            "type": "tool_result",
            "tool_use_id": part.tool_use_id,
            "content": _result_content(part),
            "is_error": part.is_error,
        }
    if isinstance(part, AttachmentPart):
        return _attachment_block(part)
    return None


def _result_content(part: ToolResultPart) -> str | list[dict[str, Any]]:
    """A tool result's content: its text, or a list of its text and the images the call made (the API
    takes text and image blocks in a `tool_result`; an empty text block it refuses)."""
    if not part.images:
        return part.content
    text = [{"type": "text", "text": part.content}] if part.content else []
    return text + [_attachment_block(image) for image in part.images]


def _attachment_block(part: AttachmentPart) -> dict[str, Any]:
    source = {"type": "base64", "media_type": part.media_type, "data": part.data}
    if part.media_type.startswith("image/"):
        return {"type": "image", "source": source}
    if part.media_type == "application/pdf" and part.data:
        return {"type": "document", "source": source, "title": part.name}
    return {"type": "text", "text": attachment_text(part)}


def _assistant_block(part: Any, protocol: str) -> dict[str, Any] | None:
    """An assistant block; thinking goes back verbatim only when this protocol signed it (T7): Anthropic
    Messages' own, or a platform's (Bedrock, Vertex: the same blocks, each protocol's signatures its own)."""
    if isinstance(part, TextPart):
        return {"type": "text", "text": part.text} if part.text else None
    if isinstance(part, ToolUsePart):
        return {"type": "tool_use", "id": part.id, "name": part.name, "input": part.input}
    if isinstance(part, CompactionPart):  # the compaction block goes back verbatim, or not at all
        return json.loads(part.encrypted) if part.protocol == protocol else None
    if isinstance(part, ThinkingPart):
        if part.protocol == protocol and part.encrypted is not None:
            return {"type": "redacted_thinking", "data": part.encrypted}
        if part.protocol == protocol and part.signature is not None:
            return {"type": "thinking", "thinking": part.signed_text or "", "signature": part.signature}
        return None  # thinking without this protocol's signature is not sent as thinking
    return None


def _messages(messages: list[Message], prefill: bool, protocol: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant":
            role, blocks = "assistant", [b for p in message.parts if (b := _assistant_block(p, protocol))]
        else:
            role, blocks = "user", [b for p in message.parts if (b := _user_block(p))]
            if message.role == "system":  # a system prompt placed mid-timeline
                blocks = [
                    {"type": "text", "text": f"<system-reminder>\n{b['text']}\n</system-reminder>"}
                    for b in blocks
                ]
        if not blocks:
            continue
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})
    if out and out[-1]["role"] == "assistant":
        last = out[-1]["content"]
        if prefill and last[-1]["type"] == "text":
            last[-1]["text"] = last[-1]["text"].rstrip()  # the API refuses trailing whitespace in prefill
        elif not prefill or last[-1]["type"] != "text":
            out.append({"role": "user", "content": [{"type": "text", "text": CONTINUE_TEXT}]})
    return out


def _place_cache_breakpoints(body: dict[str, Any]) -> None:
    """Mark at most four prefix ends (tools, system, the last two user turns), afresh for every request."""
    marks = 0
    if body.get("tools"):
        body["tools"][-1]["cache_control"] = EPHEMERAL
        marks += 1
    if body.get("system"):
        body["system"][-1]["cache_control"] = EPHEMERAL
        marks += 1
    for message in reversed(body["messages"]):
        if marks >= CACHE_BREAKPOINTS:
            break
        if message["role"] == "user":
            block = message["content"][-1]
            if block["type"] in ("text", "tool_result", "image", "document"):
                block["cache_control"] = EPHEMERAL
                marks += 1


def request_body(request: ModelRequest, info: ModelInfo) -> dict[str, Any]:
    """The Messages API body for a neutral request (without `stream`)."""
    body: dict[str, Any] = {
        "model": info.name.split("/", 1)[1],
        "max_tokens": request.max_tokens,
        "messages": _messages(request.messages, info.prefill, info.protocol),
    }
    if request.system:
        body["system"] = [{"type": "text", "text": text} for text in request.system]
    if request.tools:
        body["tools"] = [
            {"name": t.name, "description": t.description, "input_schema": t.input_schema}
            for t in request.tools
        ]
    budget = THINKING_BUDGETS.get(request.reasoning)
    if budget and info.thinking == "signed":
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
        body["max_tokens"] = max(body["max_tokens"], budget + 4096)
    _place_cache_breakpoints(body)
    return body


def carries_compaction(body: dict[str, Any]) -> bool:
    """Whether a body sends a compaction block back, which the API reads only under the beta."""
    return any(
        block.get("type") == "compaction"
        for message in body.get("messages", [])
        if message["role"] == "assistant"
        for block in message["content"]
    )


def beta_headers(body: dict[str, Any]) -> dict[str, str]:
    """The beta a body needs: server-side compaction's, when it asks for one or sends a block back."""
    return (
        {"anthropic-beta": COMPACTION_BETA}
        if "context_management" in body or carries_compaction(body)
        else {}
    )


class AnthropicExchange(SDKExchange):
    """One streamed Messages call; the request goes out when its events are first read."""

    # The stream's media type, and the protocol's name in the sentence for a body that is no reply.
    stream_type = EVENT_STREAM
    protocol_name = PROTOCOL_NAME

    def create_stream(self) -> Any:
        return self._post_stream(
            "/v1/messages",
            anthropic.Stream[object],
            cast_to=anthropic.types.Message,
            options={"headers": beta_headers(self.body)},
        )

    def events(self) -> Iterator[StreamEvent]:
        stream = self._open_stream()
        if stream is None:
            return
        whole = whole_body(stream.response, self.stream_type)
        if whole is not None:  # not a stream: a whole message is used as if streamed
            message = json_object(whole)
            if message is None or not _is_message(message):
                raise not_a_reply(self.model, self._client, stream.response, whole, self.protocol_name)
            yield from _message_events(message)
            return
        usage, stop = yield from stream_events(stream)
        if stop is None and not self._closed:
            raise ended_early(self.model, self._client, stream.response)
        yield UsageEvent(usage)
        yield StopEvent(stop or "end_turn")


def stream_events(stream: Iterable[dict[str, Any]]) -> Generator[StreamEvent, None, tuple[Usage, str | None]]:
    """A Messages stream's events (JSON objects) as neutral events; returns the usage and the stop reason,
    None when the stream ended before its message_delta said one."""
    kinds: dict[int, str | None] = {}
    signatures: dict[int, str | None] = {}
    tool_json: dict[int, list[str]] = {}
    tool_heads: dict[int, dict[str, Any]] = {}
    usage = Usage()
    stop: str | None = None  # set by message_delta: without it the stream ended early
    event: dict[str, Any]
    for event in stream:  # the Messages stream's events, as JSON objects
        kind = event.get("type")
        # The deltas first: nearly every event is one.
        if kind == "content_block_delta":
            index, delta = event.get("index", 0), event.get("delta") or {}
            delta_kind = delta.get("type")
            if delta_kind == "text_delta":
                yield TextDelta(index, delta.get("text") or "")
            elif delta_kind == "thinking_delta":
                yield ThinkingDelta(index, delta.get("thinking") or "")
            elif delta_kind == "signature_delta":
                signatures[index] = delta.get("signature")
            elif delta_kind == "input_json_delta":
                tool_json[index].append(delta.get("partial_json") or "")
        elif kind == "message_start":
            usage = _usage((event.get("message") or {}).get("usage"), usage)
        elif kind == "content_block_start":
            index, block = event.get("index", 0), event.get("content_block") or {}
            block_kind = kinds[index] = block.get("type")
            if block_kind == "redacted_thinking":
                yield ThinkingDone(index, encrypted=block.get("data"))
            elif block_kind == "tool_use":
                tool_heads[index] = block
                tool_json[index] = []
            elif block_kind == "text" and block.get("text"):
                yield TextDelta(index, block["text"])
        elif kind == "content_block_stop":
            index = event.get("index", 0)
            if kinds.get(index) == "thinking":
                yield ThinkingDone(index, signature=signatures.get(index))
            elif kinds.get(index) == "tool_use":
                head = tool_heads[index]
                raw = "".join(tool_json[index])
                params = json.loads(raw) if raw.strip() else dict(head.get("input") or {})
                yield ToolCallEvent(index, head.get("id") or "", head.get("name") or "", params)
        elif kind == "message_delta":
            stop = (event.get("delta") or {}).get("stop_reason") or stop
            usage = _usage(event.get("usage"), usage)
    return usage, stop


def _is_message(body: dict[str, Any]) -> bool:
    """Whether a JSON body is a whole Messages reply."""
    return isinstance(body.get("content"), list) and (
        body.get("type") == "message" or body.get("role") == "assistant"
    )


def _message_events(message: dict[str, Any]) -> Iterator[StreamEvent]:
    """A whole Messages reply (its JSON object) as the events its stream would have given."""
    for index, block in enumerate(message.get("content") or []):
        kind = block.get("type") if isinstance(block, dict) else None
        if kind == "text" and block.get("text"):
            yield TextDelta(index, block["text"])
        elif kind == "thinking":
            if block.get("thinking"):
                yield ThinkingDelta(index, block["thinking"])
            yield ThinkingDone(index, signature=block.get("signature") or None)
        elif kind == "redacted_thinking":
            yield ThinkingDone(index, encrypted=block.get("data"))
        elif kind == "tool_use":
            yield ToolCallEvent(
                index, block.get("id") or "", block.get("name") or "", dict(block.get("input") or {})
            )
    yield UsageEvent(_usage(message.get("usage"), Usage()))
    yield StopEvent(message.get("stop_reason") or "end_turn")


def _usage(raw: dict[str, Any] | None, before: Usage) -> Usage:
    """Fold the vendor's (cumulative) usage into ours; fields it leaves out keep their earlier value."""
    fields = raw or {}

    def pick(name: str, old: int) -> int:
        value = fields.get(name)
        return old if value is None else int(value)

    return Usage(
        input_tokens=pick("input_tokens", before.input_tokens),
        output_tokens=pick("output_tokens", before.output_tokens),
        cache_read_tokens=pick("cache_read_input_tokens", before.cache_read_tokens),
        cache_write_tokens=pick("cache_creation_input_tokens", before.cache_write_tokens),
    )


def compact_body(request: ModelRequest, info: ModelInfo, instructions: str | None = None) -> dict[str, Any]:
    """The request the engine was about to send, with the compaction edit: compact at the lowest trigger
    the API accepts, and pause after it, so that the reply is the compaction block alone; the person's
    `instructions` for the summary go in the edit's own field (C7)."""
    body = request_body(request, info)
    edit: dict[str, Any] = {"type": COMPACT_EDIT, "trigger": {"type": "input_tokens", "value": MIN_TRIGGER}}
    if instructions:
        edit["instructions"] = instructions
    body["context_management"] = {"edits": [{**edit, "pause_after_compaction": True}]}
    return body


class AnthropicCompaction(Compaction):
    """One Messages call with server-side compaction, unstreamed: its reply is one compaction block."""

    def __init__(self, body: dict[str, Any], client: MessagesClient, model: str):
        self.body = body
        self._client = client
        self._model = model

    def run(self) -> Compacted:
        reply = self._client.post(
            "/v1/messages",
            body=self.body,
            cast_to=anthropic.types.beta.BetaMessage,
            options={"headers": beta_headers(self.body)},
        )
        block = next((b for b in reply.content if b.type == "compaction" and b.encrypted_content), None)
        if block is None:
            raise ProviderError(
                f"`{self._model}` did not compact the conversation (its server compacts a context of "
                f"{MIN_TRIGGER:,} tokens or more), so nothing was compacted: use the handoff instead."
            )
        usage = _usage(reply.usage.to_dict() if reply.usage is not None else None, Usage())
        before = usage.input_tokens + usage.cache_read_tokens + usage.cache_write_tokens
        # The compaction's own iteration wrote the summary: its output is the block's size.
        iterations = getattr(reply.usage, "iterations", None) or []
        after = sum(i.output_tokens for i in iterations if getattr(i, "type", None) == "compaction")
        item = block.to_dict(exclude_none=True)
        return Compacted(json.dumps(item), usage, before, after or usage.output_tokens)


class AnthropicProvider(SDKProvider):
    """A vendor speaking Anthropic Messages, reached through the official SDK."""

    protocol = PROTOCOL
    # Fields a platform's endpoint wants in every body beside the Messages API's own (Vertex's version).
    body_fields: dict[str, str] = {}
    exchange_type: type[AnthropicExchange] = AnthropicExchange

    def open(self, request: ModelRequest) -> Exchange:
        info = self.model_info(request.model)
        body = {**request_body(request, info), **self.body_fields}
        return self.exchange_type(body, self._client(), info.name)

    def compaction(self, request: ModelRequest, instructions: str | None = None) -> Compaction:
        info = self.model_info(request.model)
        if not info.native_compaction:
            return super().compaction(request, instructions)
        body = {**compact_body(request, info, instructions), **self.body_fields}
        return AnthropicCompaction(body, self._client(), info.name)

    def _client(self) -> MessagesClient:
        return self._sdk_client(anthropic.Anthropic, anthropic.DefaultHttpxClient, base_url=self._base_url)
