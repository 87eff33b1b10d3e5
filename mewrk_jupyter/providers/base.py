"""The provider-neutral request and stream events: what assembly produces and what adapters consume."""

from __future__ import annotations

import hashlib
import threading
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, TypeVar, cast

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

from ..cards.models import Usage
from ..errors import ProviderError
from ..frozen import quick_init


class _Part(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class TextPart(_Part):
    """Plain text."""

    type: Literal["text"] = "text"
    text: str


class ThinkingPart(_Part):
    """Thinking as the timeline holds it; the adapter decides what of it its protocol may send (T7)."""

    type: Literal["thinking"] = "thinking"
    text: str
    signature: str | None = None
    signed_text: str | None = None
    encrypted: str | None = None
    protocol: str | None = None


class ToolUsePart(_Part):
    """A call the model made (or a person recorded)."""

    type: Literal["tool_use"] = "tool_use"
    id: str
    name: str
    input: dict[str, Any]


class AttachmentPart(_Part):
    """An attached file, base64 data, with extracted text where there is some."""

    type: Literal["attachment"] = "attachment"
    name: str
    media_type: str
    data: str = ""
    text: str | None = None


class ToolResultPart(_Part):
    """The result paired with a tool use; `images` are the images the call made (a figure `python` drew,
    an MCP tool's image), present only for a model with vision input: the text notes each of them."""

    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    content: str
    is_error: bool = False
    images: tuple[AttachmentPart, ...] = ()

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A result without images dumps as it did before they existed: the offline models' recorded
        # bodies and the digests signed thinking is bound to stay the same.
        data: dict[str, Any] = handler(self)
        if not self.images:
            data.pop("images", None)
        return data


def attachment_text(part: AttachmentPart) -> str:
    """An attachment sent as text: the file named on the first line, then its text."""
    source = ": text extracted from the PDF" if part.media_type == "application/pdf" else ""
    return f"[{part.name}{source}]\n{part.text or ''}"


# The protocols that speak Anthropic Messages: Anthropic's own API and the platforms that serve its models.
MESSAGES_PROTOCOLS = ("anthropic-messages", "bedrock", "vertex")
# The image types all three protocols take as input, in a message or in a tool's result.
IMAGE_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp"})

# Where a protocol's tool result takes text only (Chat Completions), a tool's images follow in a user
# message that names the call they came from, so that the model cannot take them for the person's.
TOOL_IMAGES_MARK = "[Tool output, not the person's words]"


def tool_images_label(name: str, call_id: str, count: int) -> str:
    """The line that introduces a tool call's images in a user message."""
    images = "image" if count == 1 else f"{count} images"
    return f"{TOOL_IMAGES_MARK} The {images} below came with the result of the `{name}` call {call_id}."


def data_url(part: AttachmentPart) -> str:
    """The attachment as a `data:` URL, the form OpenAI's image and file parts take."""
    return f"data:{part.media_type};base64,{part.data}"


class CompactionPart(_Part):
    """A provider's compaction item (C4), sent back verbatim to the protocol that made it: `encrypted` is
    its JSON as the provider gave it (Anthropic's `compaction` block, the Responses `compaction` item),
    opaque to the engine (secrets are not redacted inside it: it would no longer be the provider's)."""

    type: Literal["compaction"] = "compaction"
    encrypted: str
    protocol: str


Part = TextPart | ThinkingPart | ToolUsePart | ToolResultPart | AttachmentPart | CompactionPart


class Message(BaseModel):
    """One message of the neutral request; "system" marks a system prompt placed mid-timeline."""

    model_config = ConfigDict(extra="forbid")

    role: Literal["user", "assistant", "system"]
    parts: list[Part] = Field(default_factory=list)


class ClaudeCodeTool(BaseModel):
    """The built-in tool of Claude Code that a project tool stands in for on protocol claude-agent (an agent
    file listed it by that name), and the folder the tool's paths are under."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    root: str


class ToolSpec(BaseModel):
    """A tool the model may call: its name, description and JSON schema.

    `claude_code`: offer it on protocol claude-agent as that built-in of Claude Code's (the CLI's own
    definition, its calls mapped to this tool's); every other protocol offers the tool as it is.
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str
    description: str
    input_schema: dict[str, Any]
    claude_code: ClaudeCodeTool | None = None


class ModelRequest(BaseModel):
    """Everything one model call needs, in no vendor's shape."""

    model_config = ConfigDict(extra="forbid")

    model: str
    system: list[str] = Field(default_factory=list)
    messages: list[Message] = Field(default_factory=list)
    tools: list[ToolSpec] = Field(default_factory=list)
    max_tokens: int = 4096
    reasoning: str = "off"


class ModelInfo(BaseModel):
    """What the engine knows of a model: its name, context window and abilities."""

    model_config = ConfigDict(extra="forbid")

    name: str
    protocol: str
    context_window: int | None = None
    vision: bool = False
    # Whether a PDF goes as the original document; otherwise as its extracted text (T18).
    pdf_input: bool = False
    thinking: Literal["signed", "plain", "none"] = "none"
    max_tokens: int = 4096
    # Whether a request may end with the model's own message, which it then continues (T12).
    prefill: bool = True
    native_compaction: bool = False
    # Whether the output of an earlier tool call may change after the model read it (async tool calls, T15).
    async_tools: bool = False
    reasoning_content_roundtrip: Literal["never", "tool_turns", "always"] = "never"
    prices: dict[str, float | None] | None = None


# Stream events: the neutral output of every adapter.


@quick_init  # built once per streamed token
@dataclass(frozen=True, slots=True)
class TextDelta:
    """More reply text for content block `index`."""

    index: int
    text: str


@quick_init  # built once per streamed token
@dataclass(frozen=True, slots=True)
class ThinkingDelta:
    """More thinking text for content block `index`."""

    index: int
    text: str


@dataclass(frozen=True, slots=True)
class ThinkingDone:
    """A thinking block ended; it carries the provider's signature or encrypted data, if any."""

    index: int
    signature: str | None = None
    encrypted: str | None = None


@dataclass(frozen=True, slots=True)
class ToolCallEvent:
    """A complete tool call."""

    index: int
    call_id: str
    name: str
    params: dict[str, Any]


@dataclass(frozen=True, slots=True)
class UsageEvent:
    """Token figures for this response (the last one seen wins), and what it cost in US dollars where
    the vendor says (Claude Code's result does)."""

    usage: Usage
    cost: float | None = None


@dataclass(frozen=True, slots=True)
class StopEvent:
    """The response ended, with the vendor's reason normalised: end_turn, tool_use, max_tokens, …"""

    reason: str


StreamEvent = TextDelta | ThinkingDelta | ThinkingDone | ToolCallEvent | UsageEvent | StopEvent


class Exchange(ABC):
    """One request in flight: the exact body sent, the events coming back, and a way to cut it off."""

    body: dict[str, Any]

    @abstractmethod
    def events(self) -> Iterator[StreamEvent]:
        """The response as neutral events, in order."""

    @abstractmethod
    def close(self) -> None:
        """Stop reading the response (Stop was pressed); safe to call from another thread."""


@dataclass(frozen=True)
class Compacted:
    """What a native compaction gave back: the provider's item (its JSON, sent back verbatim later), the
    usage of the compaction call, and the context's size before and the item's size after, in tokens
    (the vendor's count where it gives one, else the engine's estimate)."""

    item: str
    usage: Usage
    tokens_before: int
    tokens_after: int


class Compaction(ABC):
    """One native compaction in flight: the exact body it sends, and a way to send it."""

    body: dict[str, Any]

    @abstractmethod
    def run(self) -> Compacted:
        """Send the compaction request and return the provider's item; ProviderError when it fails."""


class Provider(ABC):
    """One adapter per wire protocol."""

    protocol: str

    @abstractmethod
    def model_info(self, model: str) -> ModelInfo:
        """What the engine knows of a model this provider serves."""

    @abstractmethod
    def open(self, request: ModelRequest) -> Exchange:
        """Prepare the exchange for a request: its body is final, and reading its events sends it."""

    def compaction(self, request: ModelRequest, instructions: str | None = None) -> Compaction:
        """Prepare a native compaction of the request the engine was about to send (C4), `instructions`
        for its summary where the protocol takes them (C7); refused by the protocols that have none, for
        models that do not declare one, and with instructions where they cannot be given."""
        raise ProviderError(
            f"`{request.model}` has no compaction of its own ({self.protocol} offers none, or the model "
            "does not declare native_compaction), so nothing was compacted: use the handoff instead."
        )


# The openai SDK's authentication for a model request, as its own create() methods ask for it: the API key
# as a bearer token, never the organisation's admin key (a client given none sends no key rather than it).
BEARER_ONLY = {"bearer_auth": True}


class SDKExchange(Exchange):
    """An exchange over an official SDK's stream: sent on the first read of events(), closable from any thread.

    `model` is the configured name (`vendor/model`) its sentences use.
    """

    def __init__(self, body: dict[str, Any], client: Any, model: str):
        self.body = body
        self.model = model
        self._client = client
        self._stream: Any = None
        self._closed = False

    @abstractmethod
    def create_stream(self) -> Any:
        """Send the request with the SDK and return its stream."""

    def _post_stream(self, path: str, stream_cls: Any, cast_to: Any, options: dict[str, Any]) -> Any:
        """Send the body with the SDK client's post() and return its stream, as every adapter does.

        The body is already in the wire format: post() sends it as it stands, without create()'s walk
        over its typed parameters (hundreds of microseconds for the tools' schemas, on the way to the
        first token). `stream_cls` is the SDK's `Stream[object]`, its untyped mode: the events come as
        the JSON objects the SDK decoded, and an error the server streams still raises the SDK's error.
        Each event becomes a neutral event at once, so building the SDK's typed model of it (from a
        third to three quarters of the SDK's work per streamed token) would be thrown away.
        """
        body = {**self.body, "stream": True}
        return self._client.post(
            path, body=body, cast_to=cast_to, options=options, stream=True, stream_cls=stream_cls
        )

    def _open_stream(self) -> Any | None:
        """The SDK's stream, or None when Stop came before or while the request was sent."""
        if self._closed:
            return None
        self._stream = self.create_stream()
        if self._closed:
            self._stream.close()
            return None
        return self._stream

    def close(self) -> None:
        self._closed = True
        if self._stream is not None:
            self._stream.close()


# One pool per SDK client class; the SDKs build on httpx or its successor httpx2, so the type is theirs.
_pools: dict[Callable[[], Any], Any] = {}
_pools_lock = threading.Lock()
Pool = TypeVar("Pool")
Client = TypeVar("Client")


def shared_http_client(make: Callable[[], Pool]) -> Pool:
    """The process's one connection pool made by `make` (an SDK's DefaultHttpxClient), built on first use.

    An SDK client builds its own pool (and TLS context) otherwise, tens of milliseconds per request;
    httpx clients are thread-safe; the key is still read at each request (`SDKProvider._sdk_client`).
    """
    with _pools_lock:
        pool = _pools.get(make)
        if pool is None:
            pool = _pools[make] = make()
        return pool


class SDKProvider(Provider):
    """A configured vendor reached through an official SDK: its models, key, address and headers.

    The key and headers are callables, so secrets are read at each request and never kept.
    """

    def __init__(
        self,
        models: dict[str, ModelInfo],
        api_key: Callable[[], str | None],
        base_url: str | None = None,
        headers: Callable[[], dict[str, str]] | None = None,
        max_retries: int = 2,
    ):
        self._models = models
        self._api_key = api_key
        self._base_url = base_url
        self._headers = headers or dict
        self._max_retries = max_retries
        self._client_cache: tuple[str, object] | None = None  # (what it was built with, the client)
        self._client_lock = threading.Lock()

    def model_info(self, model: str) -> ModelInfo:
        return self._models[model]

    def _sdk_client(self, make: Callable[..., Client], pool: Callable[[], object], **fixed: Any) -> Client:
        """An SDK client built by `make` with the key, headers and retries read now, and the shared pool.

        The key and headers are read at each request; the client around them is built again only when
        they changed (building one costs a fraction of a millisecond on the way to the first token).
        """
        arguments = {
            "api_key": self._api_key(),
            "default_headers": self._headers(),
            "max_retries": self._max_retries,
            **fixed,
        }
        # A digest, so the cache holds no second copy of the key.
        identity = hashlib.sha256(repr(sorted(arguments.items())).encode()).hexdigest()
        with self._client_lock:
            cached = self._client_cache
            if cached is not None and cached[0] == identity:
                return cast("Client", cached[1])
        client = make(http_client=shared_http_client(pool), **arguments)
        with self._client_lock:
            self._client_cache = (identity, client)
        return client
