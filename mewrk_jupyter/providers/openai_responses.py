"""OpenAI Responses and Azure OpenAI (P3) over the official `openai` SDK: neutral request in, events out."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import openai

from ..cards.models import Usage
from ..errors import ProviderError
from .base import (
    BEARER_ONLY,
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
    data_url,
)
from .unstreamed import ended_early, json_object, not_a_reply, whole_body

EFFORTS = ("low", "medium", "high")
DEFAULT_AZURE_API_VERSION = "2025-04-01-preview"
CONTINUE_TEXT = "<system-reminder>\nContinue from where the conversation stands.\n</system-reminder>"
FOLLOWERS = ("message", "function_call")  # what may follow a reasoning item
PROTOCOL_NAMES = {
    "openai-responses": "OpenAI Responses",
    "azure-openai": "Azure OpenAI (Responses)",
    "openai-codex": "OpenAI Codex (Responses)",
}


def reasoning_blob(item: dict[str, Any]) -> str:
    """The reasoning item as the thinking card keeps it: id, summary and encrypted content, as JSON."""
    return json.dumps({k: item.get(k) for k in ("id", "summary", "encrypted_content")})


def _reasoning_item(part: ThinkingPart, protocol: str) -> dict[str, Any] | None:
    """The original reasoning item, verbatim; None for thinking this protocol did not sign (T7)."""
    if part.protocol != protocol or not part.signature:
        return None
    try:
        kept = json.loads(part.signature)
    except ValueError:
        return None
    if not isinstance(kept, dict) or not kept.get("id") or not kept.get("encrypted_content"):
        return None  # without its encrypted content a reasoning item cannot be replayed (store=false)
    return {"type": "reasoning", **kept}


def _user_content(part: Any) -> dict[str, Any] | None:
    if isinstance(part, TextPart):
        return {"type": "input_text", "text": part.text}
    if isinstance(part, AttachmentPart):
        if part.media_type.startswith("image/") and part.data:
            return {"type": "input_image", "image_url": data_url(part)}
        if part.media_type == "application/pdf" and part.data:
            return {"type": "input_file", "filename": part.name, "file_data": data_url(part)}
        return {"type": "input_text", "text": attachment_text(part)}
    return None


def _output(part: ToolResultPart) -> str | list[dict[str, Any]]:
    """A function call's output: its text, or a list of `input_text` and `input_image` parts when the call
    made images (the API takes them in `function_call_output`, as the SDK's types declare)."""
    if not part.images:
        return part.content
    text = [{"type": "input_text", "text": part.content}] if part.content else []
    return text + [{"type": "input_image", "image_url": data_url(image)} for image in part.images]


def _assistant_items(message: Message, protocol: str) -> list[dict[str, Any]]:
    """Output items of one assistant message; a reasoning item goes only with the item that followed it."""
    items: list[dict[str, Any]] = []
    for part in message.parts:
        if isinstance(part, TextPart) and part.text:
            content = [{"type": "output_text", "text": part.text}]
            items.append({"type": "message", "role": "assistant", "content": content})
        elif isinstance(part, ToolUsePart):
            args = json.dumps(part.input, ensure_ascii=False)
            items.append({"type": "function_call", "call_id": part.id, "name": part.name, "arguments": args})
        elif isinstance(part, ThinkingPart) and (item := _reasoning_item(part, protocol)):
            items.append(item)
        elif isinstance(part, CompactionPart) and part.protocol == protocol:
            items.append(json.loads(part.encrypted))  # the compaction item, verbatim (C4)
    return [
        item
        for i, item in enumerate(items)
        if item["type"] != "reasoning" or (i + 1 < len(items) and items[i + 1]["type"] in FOLLOWERS)
    ]


def _input(messages: list[Message], protocol: str, go_on: bool = True) -> list[dict[str, Any]]:
    """The input items; with `go_on`, a request ending with the model's turn asks it to continue."""
    out: list[dict[str, Any]] = []
    for message in messages:
        if message.role == "assistant":
            out.extend(_assistant_items(message, protocol))
            continue
        role = "developer" if message.role == "system" else "user"  # system: a prompt placed mid-timeline
        content: list[dict[str, Any]] = []
        for part in message.parts:
            if isinstance(part, ToolResultPart):
                out.append(
                    {"type": "function_call_output", "call_id": part.tool_use_id, "output": _output(part)}
                )
            elif (block := _user_content(part)) is not None:
                content.append(block)
        if content:
            out.append({"role": role, "content": content})
    if (
        go_on
        and out
        and (out[-1].get("role") == "assistant" or out[-1].get("type") in ("reasoning", "compaction"))
    ):
        # The Responses API has no prefill: ask the model to go on from its last reply (T12).
        out.append({"role": "user", "content": [{"type": "input_text", "text": CONTINUE_TEXT}]})
    return out


def request_body(request: ModelRequest, info: ModelInfo, model: str) -> dict[str, Any]:
    """The Responses API body for a neutral request (without `stream`); `model` is the wire name."""
    body: dict[str, Any] = {
        "model": model,
        "input": _input(request.messages, info.protocol),
        "store": False,
        "include": ["reasoning.encrypted_content"],
        "max_output_tokens": request.max_tokens,
    }
    if request.system:
        body["instructions"] = "\n\n".join(request.system)
    if request.tools:
        body["tools"] = [
            {"type": "function", "name": t.name, "description": t.description, "parameters": t.input_schema}
            for t in request.tools
        ]
    if request.reasoning in EFFORTS and info.thinking != "none":
        body["reasoning"] = {"effort": request.reasoning, "summary": "auto"}
    return body


def compact_body(request: ModelRequest, info: ModelInfo, model: str) -> dict[str, Any]:
    """The body of `POST /responses/compact` for the request the engine was about to send: the same
    instructions and the whole input (the endpoint takes no tools: the item covers the conversation)."""
    body = request_body(request, info, model)
    body["input"] = _input(request.messages, info.protocol, go_on=False)  # the history as it stands
    return {key: body[key] for key in ("model", "input", "instructions") if key in body}


def compaction_item(output: list[Any]) -> dict[str, Any] | None:
    """The `{type: "compaction", encrypted_content}` item of a compacted response's output, or None."""
    for item in output:
        content = getattr(item, "encrypted_content", None)
        if getattr(item, "type", None) == "compaction" and content:
            return {"type": "compaction", "encrypted_content": content}
    return None


class ResponsesCompaction(Compaction):
    """One call to the compaction endpoint through the SDK's `responses.compact`."""

    def __init__(self, body: dict[str, Any], client: openai.OpenAI, model: str):
        self.body = body
        self._client = client
        self._model = model

    def run(self) -> Compacted:
        compacted = self._client.responses.compact(**self.body)  # an SDK error is the engine's to word
        item = compaction_item(list(compacted.output or []))
        if item is None:
            raise ProviderError(
                f"`{self._model}` answered the compaction without a compaction item, so nothing was "
                "compacted: try again, or use the handoff."
            )
        usage = _usage(compacted.usage.to_dict() if compacted.usage is not None else None)
        before = usage.input_tokens + usage.cache_read_tokens
        return Compacted(json.dumps(item), usage, before, usage.output_tokens)


def _usage(raw: dict[str, Any] | None) -> Usage:
    """Our usage from the Responses usage: cached input counts as a cache read, not as fresh input."""
    if raw is None:
        return Usage()
    cached = int((raw.get("input_tokens_details") or {}).get("cached_tokens") or 0)
    return Usage(
        input_tokens=max(int(raw.get("input_tokens") or 0) - cached, 0),
        output_tokens=int(raw.get("output_tokens") or 0),
        cache_read_tokens=cached,
    )


class ResponsesExchange(SDKExchange):
    """One streamed Responses call; the request goes out when its events are first read."""

    def __init__(self, body: dict[str, Any], client: openai.OpenAI, model: str, protocol_name: str):
        super().__init__(body, client, model)
        self._protocol_name = protocol_name

    def create_stream(self) -> Any:
        return self._post_stream(
            "/responses",
            openai.Stream[object],
            cast_to=openai.types.responses.Response,
            options={"security": BEARER_ONLY},
        )

    def _fail(self, message: str) -> ProviderError:
        return ProviderError(
            f"`{self.model}` reported an error mid-reply: {message}; the partial reply is kept."
        )

    def events(self) -> Iterator[StreamEvent]:
        stream = self._open_stream()
        if stream is None:
            return
        whole = whole_body(stream.response)
        if whole is not None:  # not a stream: a whole response is used as if streamed
            response = json_object(whole)
            if response is None or not isinstance(response.get("output"), list):
                raise not_a_reply(self.model, self._client, stream.response, whole, self._protocol_name)
            yield from self._response_events(response)
            return
        part_seen: dict[int, int] = {}  # output index → summary part last streamed
        called = False
        event: dict[str, Any]
        for event in stream:  # the response's events, as JSON objects
            kind = event.get("type")
            if kind in ("response.output_text.delta", "response.refusal.delta"):
                yield TextDelta(event.get("output_index", 0), event.get("delta") or "")
            elif kind == "response.reasoning_summary_text.delta":
                index, part = event.get("output_index", 0), event.get("summary_index", 0)
                if index in part_seen and part_seen[index] != part:
                    yield ThinkingDelta(index, "\n\n")  # a new summary part
                part_seen[index] = part
                yield ThinkingDelta(index, event.get("delta") or "")
            elif kind == "response.output_item.done":
                item, index = event.get("item") or {}, event.get("output_index", 0)
                if item.get("type") == "reasoning":
                    text = "\n\n".join(s.get("text", "") for s in item.get("summary") or [])
                    if index not in part_seen and text:
                        yield ThinkingDelta(index, text)
                    yield ThinkingDone(index, signature=reasoning_blob(item))
                elif item.get("type") == "function_call":
                    called = True
                    yield ToolCallEvent(
                        index,
                        item.get("call_id") or "",
                        item.get("name") or "",
                        _arguments(item.get("arguments")),
                    )
            elif kind in ("response.completed", "response.incomplete", "response.failed"):
                yield from self._ending(kind.removeprefix("response."), event.get("response") or {}, called)
                return
            elif kind == "error":
                raise self._fail(event.get("message") or "an error event")
        if not self._closed:
            raise ended_early(self.model, self._client, stream.response)

    def _ending(self, status: str, response: dict[str, Any], called: bool) -> Iterator[StreamEvent]:
        """The usage and stop reason of a response whose status is completed, incomplete or failed."""
        yield UsageEvent(_usage(response.get("usage")))
        if status == "failed":
            error = response.get("error") or {}
            raise self._fail(error.get("message") or "the response failed")
        reason = (response.get("incomplete_details") or {}).get("reason") or "max_output_tokens"
        if status == "incomplete":  # the partial reply is complete as far as it goes
            yield StopEvent("max_tokens" if reason == "max_output_tokens" else str(reason))
        else:
            yield StopEvent("tool_use" if called else "end_turn")

    def _response_events(self, response: dict[str, Any]) -> Iterator[StreamEvent]:
        """A whole response (its JSON object) as the events its stream would have given."""
        called = False
        for index, item in enumerate(response.get("output") or []):
            kind = item.get("type") if isinstance(item, dict) else None
            if kind == "message":
                for part in item.get("content") or []:
                    text = part.get("text") or part.get("refusal")
                    if text:
                        yield TextDelta(index, text)
            elif kind == "reasoning":
                text = "\n\n".join(s.get("text", "") for s in item.get("summary") or [])
                if text:
                    yield ThinkingDelta(index, text)
                yield ThinkingDone(index, signature=reasoning_blob(item))
            elif kind == "function_call":
                called = True
                yield ToolCallEvent(
                    index,
                    item.get("call_id") or "",
                    item.get("name") or "",
                    _arguments(item.get("arguments")),
                )
        yield from self._ending(str(response.get("status") or "completed"), response, called)


def _arguments(raw: str | None) -> dict[str, Any]:
    """A function call's arguments; text that is not a JSON object is kept under `arguments`."""
    try:
        params = json.loads(raw or "{}")
    except ValueError:
        return {"arguments": raw}
    return params if isinstance(params, dict) else {"arguments": params}


class OpenAIResponsesProvider(SDKProvider):
    """A vendor speaking OpenAI Responses (protocol openai-responses) or Azure OpenAI (azure-openai)."""

    def __init__(
        self,
        models: dict[str, ModelInfo],
        api_key: Callable[[], str | None],
        base_url: str | None = None,
        headers: Callable[[], dict[str, str]] | None = None,
        max_retries: int = 2,
        protocol: str = "openai-responses",
        api_version: str | None = None,
        deployments: dict[str, str] | None = None,
    ):
        super().__init__(models, api_key, base_url, headers, max_retries)
        self.protocol = protocol
        self._api_version = api_version or DEFAULT_AZURE_API_VERSION
        self._deployments = deployments or {}

    def _client(self) -> openai.OpenAI:
        pool = openai.DefaultHttpxClient
        if self.protocol == "azure-openai":
            assert self._base_url is not None  # the vendor file is refused without it
            return self._sdk_client(
                openai.AzureOpenAI, pool, azure_endpoint=self._base_url, api_version=self._api_version
            )
        return self._sdk_client(openai.OpenAI, pool, base_url=self._base_url)

    def open(self, request: ModelRequest) -> Exchange:
        info = self.model_info(request.model)
        body = request_body(request, info, self._wire_model(info))
        return ResponsesExchange(body, self._client(), info.name, PROTOCOL_NAMES[self.protocol])

    def compaction(self, request: ModelRequest, instructions: str | None = None) -> Compaction:
        info = self.model_info(request.model)
        if not info.native_compaction:
            return super().compaction(request, instructions)
        if instructions:
            # `/responses/compact` has no field for them (its `instructions` is the system prompt).
            raise ProviderError(
                f"`{info.name}` compacts with OpenAI's own compaction, which takes no instructions for its "
                "summary, so nothing was compacted: compact now without instructions, or switch the "
                'compaction to handoff (s.configure(compaction="handoff")) to give them.'
            )
        return ResponsesCompaction(
            compact_body(request, info, self._wire_model(info)), self._client(), info.name
        )

    def _wire_model(self, info: ModelInfo) -> str:
        """The model's name on the wire: Azure's deployment name where one is configured."""
        name = info.name.split("/", 1)[1]
        return self._deployments.get(name, name) if self.protocol == "azure-openai" else name
