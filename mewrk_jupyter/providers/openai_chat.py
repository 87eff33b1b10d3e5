"""OpenAI Chat Completions and compatible vendors (P2) over the official `openai` SDK."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import openai
from openai.types.chat import ChatCompletion

from ..cards.models import Usage
from .base import (
    BEARER_ONLY,
    AttachmentPart,
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
    data_url,
    tool_images_label,
)
from .discovery import KeyRefused, ListedModel, ListingFailed
from .unstreamed import client_secrets, ended_early, json_object, not_a_reply, quoted, whole_body

PROTOCOL = "openai-chat"
PROTOCOL_NAME = "OpenAI Chat Completions"
CONTINUE_TEXT = "<system-reminder>\nContinue from where the conversation stands.\n</system-reminder>"
STOP_REASONS = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
    "content_filter": "refusal",
}
REASONING_FIELDS = ("reasoning_content", "reasoning")  # DeepSeek and most vendors; vLLM
# How long the list of a server's models may take: a session's settings wait for it, and a local server
# answers in milliseconds.
LISTING_TIMEOUT = 5.0


def _user_content(parts: list[Any], blocks: list[dict[str, Any]] | None = None) -> str | list[dict[str, Any]]:
    """A user message's content: a plain string, or content parts when an image or a PDF is attached;
    `blocks` are parts that go first (a tool's images)."""
    blocks = list(blocks or [])
    for part in parts:
        if isinstance(part, TextPart):
            blocks.append({"type": "text", "text": part.text})
        elif isinstance(part, AttachmentPart) and part.media_type.startswith("image/") and part.data:
            blocks.append({"type": "image_url", "image_url": {"url": data_url(part)}})
        elif isinstance(part, AttachmentPart) and part.media_type == "application/pdf" and part.data:
            # Only for a model configured with `pdf_input: true`; otherwise assembly sent the text.
            blocks.append({"type": "file", "file": {"filename": part.name, "file_data": data_url(part)}})
        elif isinstance(part, AttachmentPart):
            blocks.append({"type": "text", "text": attachment_text(part)})
    if all(b["type"] == "text" for b in blocks):
        return "\n\n".join(b["text"] for b in blocks)
    return blocks


def _assistant(message: Message, roundtrip: str) -> dict[str, Any] | None:
    """An assistant message; thinking cards' text goes back as `reasoning_content` per the model (T7)."""
    text = "".join(p.text for p in message.parts if isinstance(p, TextPart))
    calls = [
        {
            "id": p.id,
            "type": "function",
            "function": {"name": p.name, "arguments": json.dumps(p.input, ensure_ascii=False)},
        }
        for p in message.parts
        if isinstance(p, ToolUsePart)
    ]
    out: dict[str, Any] = {"role": "assistant", "content": text or None}
    if calls:
        out["tool_calls"] = calls
    thinking = "".join(p.text for p in message.parts if isinstance(p, ThinkingPart))
    if thinking and (roundtrip == "always" or (roundtrip == "tool_turns" and calls)):
        out["reasoning_content"] = thinking
    if not text and not calls:
        return None
    return out


def _tool_images(results: list[ToolResultPart], names: dict[str, str]) -> list[dict[str, Any]]:
    """The images of a reply's tool results as user content parts, each call's under a line naming it.

    A `tool` message takes text parts only, so the images cannot go in the result itself: they go in
    the user message right after the reply's tool messages.
    """
    blocks: list[dict[str, Any]] = []
    for result in results:
        if result.images:
            name = names.get(result.tool_use_id, "tool")
            label = tool_images_label(name, result.tool_use_id, len(result.images))
            blocks.append({"type": "text", "text": label})
            blocks += [{"type": "image_url", "image_url": {"url": data_url(i)}} for i in result.images]
    return blocks


def _messages(request: ModelRequest, info: ModelInfo) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = [{"role": "system", "content": text} for text in request.system]
    names: dict[str, str] = {}  # the tool of each call, by its id: the label of its images says it
    for message in request.messages:
        if message.role == "assistant":
            names.update((p.id, p.name) for p in message.parts if isinstance(p, ToolUsePart))
            if (built := _assistant(message, info.reasoning_content_roundtrip)) is not None:
                out.append(built)
            continue
        if message.role == "system":  # a system prompt placed mid-timeline stays in place
            text = "\n\n".join(p.text for p in message.parts if isinstance(p, TextPart))
            out.append({"role": "system", "content": text})
            continue
        results = [p for p in message.parts if isinstance(p, ToolResultPart)]
        for part in results:  # tool results come first, right after the calls they answer
            out.append({"role": "tool", "tool_call_id": part.tool_use_id, "content": part.content})
        images = _tool_images(results, names)
        rest = [p for p in message.parts if not isinstance(p, ToolResultPart)]
        if rest or images:
            out.append({"role": "user", "content": _user_content(rest, images)})
    if out and out[-1]["role"] == "assistant" and not info.prefill:
        out.append({"role": "user", "content": CONTINUE_TEXT})
    return out


def request_body(request: ModelRequest, info: ModelInfo, official: bool = True) -> dict[str, Any]:
    """The Chat Completions body for a neutral request (without `stream`)."""
    body: dict[str, Any] = {
        "model": info.name.split("/", 1)[1],
        "messages": _messages(request, info),
        "stream_options": {"include_usage": True},
    }
    # OpenAI wants max_completion_tokens (o-series refuse max_tokens); compatible vendors know max_tokens.
    body["max_completion_tokens" if official else "max_tokens"] = request.max_tokens
    if request.tools:
        body["tools"] = [
            {
                "type": "function",
                "function": {"name": t.name, "description": t.description, "parameters": t.input_schema},
            }
            for t in request.tools
        ]
    return body


def _params(raw: str) -> dict[str, Any]:
    """Tool arguments as a dict; text that is not a JSON object is kept under `raw`."""
    if not raw.strip():
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return {"raw": raw}
    return value if isinstance(value, dict) else {"raw": raw}


def _reasoning(fields: dict[str, Any]) -> str | None:
    """The reasoning text a vendor put on a streamed delta or a message, under whichever field it uses."""
    for name in REASONING_FIELDS:
        value = fields.get(name)
        if isinstance(value, str):
            return value
    return None


def _usage(raw: dict[str, Any]) -> Usage:
    cached = (raw.get("prompt_tokens_details") or {}).get("cached_tokens") or 0
    return Usage(
        input_tokens=max(0, (raw.get("prompt_tokens") or 0) - cached),
        output_tokens=raw.get("completion_tokens") or 0,
        cache_read_tokens=cached,
    )


class OpenAIChatExchange(SDKExchange):
    """One streamed Chat Completions call; the request goes out when its events are first read."""

    def create_stream(self) -> Any:
        return self._post_stream(
            "/chat/completions",
            openai.Stream[object],
            cast_to=ChatCompletion,
            options={"security": BEARER_ONLY},
        )

    def events(self) -> Iterator[StreamEvent]:
        stream = self._open_stream()
        if stream is None:
            return
        whole = whole_body(stream.response)
        if whole is not None:  # not a stream: a whole completion is used as if streamed
            completion = json_object(whole)
            if completion is None or not _is_completion(completion):
                raise not_a_reply(self.model, self._client, stream.response, whole, PROTOCOL_NAME)
            yield from _completion_events(completion)
            return
        blocks = 0  # the next content-block index; thinking, text and each tool call get their own
        thinking: int | None = None
        text: int | None = None
        calls: dict[int, dict[str, Any]] = {}  # by the vendor's tool-call index
        stop: str | None = None  # set by a finish_reason: without one the stream ended early
        usage: Usage | None = None
        chunk: dict[str, Any]
        for chunk in stream:  # the completion's chunks, as JSON objects
            if chunk.get("usage") is not None:
                usage = _usage(chunk["usage"])
            for choice in chunk.get("choices") or []:
                delta = choice.get("delta") or {}
                reasoning = _reasoning(delta)
                if reasoning:
                    if thinking is None:
                        thinking, blocks = blocks, blocks + 1
                    yield ThinkingDelta(thinking, reasoning)
                content = delta.get("content")
                if content:
                    if text is None:
                        text, blocks = blocks, blocks + 1
                    yield TextDelta(text, content)
                tool_calls = delta.get("tool_calls")
                for call in tool_calls or []:
                    slot = calls.get(call.get("index"))
                    if slot is None:
                        slot = calls[call.get("index")] = {"block": blocks, "id": "", "name": "", "args": []}
                        blocks += 1
                    slot["id"] = call.get("id") or slot["id"]
                    function = call.get("function")
                    if function is not None:
                        slot["name"] = function.get("name") or slot["name"]
                        slot["args"].append(function.get("arguments") or "")
                if (content or tool_calls) and thinking is not None:
                    yield ThinkingDone(thinking)
                    thinking = None
                finish = choice.get("finish_reason")
                if finish:
                    stop = STOP_REASONS.get(finish, finish)
        if stop is None and not self._closed:
            raise ended_early(self.model, self._client, stream.response)
        if thinking is not None:
            yield ThinkingDone(thinking)
        for slot in calls.values():
            yield ToolCallEvent(slot["block"], slot["id"], slot["name"], _params("".join(slot["args"])))
        if usage is not None:
            yield UsageEvent(usage)
        yield StopEvent(stop or "end_turn")


def _is_completion(body: dict[str, Any]) -> bool:
    """Whether a JSON body is a whole completion: a first choice that holds a message."""
    choices = body.get("choices")
    return isinstance(choices, list) and bool(choices) and isinstance(choices[0].get("message"), dict)


def _completion_events(completion: dict[str, Any]) -> Iterator[StreamEvent]:
    """A whole completion (its JSON object) as the events its stream would have given: thinking, text,
    then tool calls."""
    choice = completion["choices"][0]
    message = choice["message"]
    blocks = 0
    reasoning = _reasoning(message)
    if reasoning:
        yield ThinkingDelta(blocks, reasoning)
        yield ThinkingDone(blocks)
        blocks += 1
    if message.get("content"):
        yield TextDelta(blocks, message["content"])
        blocks += 1
    for call in message.get("tool_calls") or []:
        function = call.get("function") or {}
        yield ToolCallEvent(
            blocks, call.get("id") or "", function.get("name") or "", _params(function.get("arguments") or "")
        )
        blocks += 1
    if completion.get("usage") is not None:
        yield UsageEvent(_usage(completion["usage"]))
    reason = choice.get("finish_reason") or "stop"
    yield StopEvent(STOP_REASONS.get(reason, reason))


class OpenAIChatProvider(SDKProvider):
    """A vendor speaking OpenAI Chat Completions (OpenAI, DeepSeek, Ollama, vLLM …), via the official SDK."""

    protocol = PROTOCOL

    def open(self, request: ModelRequest) -> Exchange:
        info = self.model_info(request.model)
        official = self._base_url is None or "api.openai.com" in self._base_url
        body = request_body(request, info, official=official)
        client = self._sdk_client(openai.OpenAI, openai.DefaultHttpxClient, base_url=self._base_url)
        return OpenAIChatExchange(body, client, info.name)

    def listed_models(self) -> list[ListedModel]:
        """The models the server lists (GET /models), with the window each reports; ListingFailed says why not."""
        client = self._sdk_client(openai.OpenAI, openai.DefaultHttpxClient, base_url=self._base_url)
        try:
            page = client.with_options(timeout=LISTING_TIMEOUT, max_retries=0).models.list()
            return [
                ListedModel(name=model.id, context_window=_window(model.model_extra or {}))
                for model in page.data
                if isinstance(model.id, str) and model.id
            ]
        except openai.APITimeoutError as exc:
            raise ListingFailed(f"no answer within {LISTING_TIMEOUT:.0f} s") from exc
        except openai.APIConnectionError as exc:
            raise ListingFailed("nothing answers there") from exc
        except openai.APIStatusError as exc:
            if exc.status_code in (401, 403):  # its body may quote the key it refused: never shown
                raise KeyRefused(exc.status_code) from exc
            raise ListingFailed(f"it answered HTTP {exc.status_code}: {_said(exc, client)}") from exc
        except (openai.OpenAIError, ValueError, TypeError, AttributeError) as exc:
            raise ListingFailed(f"its answer is not a list of models ({type(exc).__name__})") from exc


def _window(fields: dict[str, Any]) -> int | None:
    """The context window a listed model's own fields report: vLLM's `max_model_len`, llama.cpp's
    `meta.n_ctx_train` (or the `meta.n_ctx` it was started with, where a build reports it); Ollama's list
    reports none."""
    meta = fields.get("meta")
    meta = meta if isinstance(meta, dict) else {}
    for value in (fields.get("max_model_len"), meta.get("n_ctx"), meta.get("n_ctx_train")):
        if isinstance(value, int) and not isinstance(value, bool) and value > 0:
            return value
    return None


def _said(exc: openai.APIStatusError, client: Any) -> str:
    """The server's own message for a refused listing, short (the SDK keeps the body's `error` object),
    with the key and header values the request carried taken out."""
    body = exc.body
    error = body.get("error", body) if isinstance(body, dict) else body
    message = error.get("message") if isinstance(error, dict) else error
    text = str(message) if isinstance(message, str) and message else f"HTTP {exc.status_code}"
    return quoted(text, client_secrets(client), shown=200)
