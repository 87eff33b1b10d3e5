"""The neutral record of a request (T17): what the engine keeps of a request and its response in no
vendor's words.

A history row holds the body exactly as the vendor received it; only its adapter reads it (sent.py reads
it back into a `SentRequest`). What came back is a `ModelResponse`: why the model stopped, the parts it
gave and the usage. Rows stored before the response was typed held Anthropic's words
(`stop_reason`, `content` blocks); `read_response` reads both shapes.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from ..cards.models import Usage
from .base import TextPart, ThinkingPart, ToolUsePart


class Stop:
    """Why a response ended: the adapters' normalised reasons, and the engine's own."""

    END_TURN = "end_turn"
    TOOL_USE = "tool_use"
    MAX_TOKENS = "max_tokens"
    STOP_SEQUENCE = "stop_sequence"
    PAUSE_TURN = "pause_turn"
    REFUSAL = "refusal"
    CONTEXT_FULL = "model_context_window_exceeded"
    STOPPED = "stopped"  # the person pressed Stop
    INTERRUPTED = "interrupted"  # the stream broke off
    COMPACTION = "compaction"  # a native compaction's reply


# Why a response ended, in words.
ENDINGS = {
    Stop.END_TURN: "the model finished",
    Stop.TOOL_USE: "the model called tools",
    Stop.MAX_TOKENS: "cut at the output limit",
    Stop.STOP_SEQUENCE: "a stop sequence",
    Stop.PAUSE_TURN: "paused by the server",
    Stop.REFUSAL: "the model refused",
    Stop.CONTEXT_FULL: "the context window was full",
    Stop.STOPPED: "stopped by Stop",
    Stop.INTERRUPTED: "the stream broke off",
}

ResponsePart = TextPart | ThinkingPart | ToolUsePart


class ModelResponse(BaseModel):
    """What came back for one request: the stop reason, the parts in order, the usage; a request that
    compacted the conversation says which kind (`summary`, `handoff`, `native`) and, natively, the
    context's size before and after."""

    model_config = ConfigDict(extra="forbid")

    stop: str | None = None
    parts: list[ResponsePart] = Field(default_factory=list)
    usage: Usage | None = None
    # What the vendor said the response cost, in US dollars, where it says (D6: counted for a model
    # without configured prices).
    cost: float | None = None
    compaction: str | None = None
    tokens_before: int | None = None
    tokens_after: int | None = None

    def stored(self) -> dict[str, Any]:
        """The response as its history row keeps it (JSON); `usage` is there even when the vendor gave no
        count (a request stopped before it), as the store's queries and `s.history` read it."""
        return {"usage": None} | self.model_dump(mode="json", exclude_none=True)


def _old_part(block: dict[str, Any]) -> ResponsePart:
    """A block of a response stored before it was typed: {type, text, signature} and so on."""
    kind = block.get("type")
    if kind == ToolUsePart.model_fields["type"].default:
        return ToolUsePart(
            id=str(block.get("id") or ""), name=str(block.get("name") or "?"), input=block.get("input") or {}
        )
    if kind == ThinkingPart.model_fields["type"].default:
        return ThinkingPart(text=str(block.get("text") or ""), signature=block.get("signature"))
    return TextPart(text=str(block.get("text") or ""))


def read_response(data: dict[str, Any] | None) -> ModelResponse | None:
    """A history row's response, of either shape: the typed one, or the dict of Anthropic's words stored
    before it (`stop_reason`, `content`); None when nothing came back or it is no model's response."""
    if not data:
        return None
    try:
        return ModelResponse.model_validate(data)
    except ValidationError:
        pass
    usage = data.get("usage")
    return ModelResponse(
        stop=data.get("stop_reason"),
        parts=[_old_part(b) for b in data.get("content") or [] if isinstance(b, dict)],
        usage=Usage.model_validate(usage) if isinstance(usage, dict) else None,
        compaction=data.get("compaction"),
        tokens_before=data.get("tokens_before"),
        tokens_after=data.get("tokens_after"),
    )


# A request read back from its body, in words.

REMINDER_OPEN, REMINDER_CLOSE = "<system-reminder>", "</system-reminder>"


@dataclass(frozen=True)
class SentItem:
    """One part of a sent message: who or what it is, in words, and its content as sent."""

    label: str  # "You", "Model", "Thinking", "Tool call", "Tool result", "Tool image", "Host", …
    text: str
    note: str = ""  # how it went, when that matters: "signed", "encrypted, sent as is", "error"

    def key(self) -> tuple[str, str, str]:
        """What identifies the item when two requests are compared."""
        return self.label, self.note, self.text


@dataclass
class SentRequest:
    """A request body read back: its system prefix, its messages as items, and the tools offered."""

    system: list[str] = field(default_factory=list)
    messages: int = 0
    items: list[SentItem] = field(default_factory=list)
    tools: list[str] = field(default_factory=list)


def text_item(role: str, text: str) -> SentItem:
    """A text part: the person's words, the model's, or the host's (a user message in a system reminder)."""
    stripped = text.strip()
    if role == "user" and stripped.startswith(REMINDER_OPEN) and stripped.endswith(REMINDER_CLOSE):
        return SentItem("Host", stripped[len(REMINDER_OPEN) : -len(REMINDER_CLOSE)].strip())
    return SentItem({"user": "You", "assistant": "Model", "system": "System prompt"}.get(role, role), text)


def opaque(data: Any) -> str:
    """Encrypted content compared by a digest, never shown."""
    return "#" + hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:12]


def call_item(name: str, arguments: Any) -> SentItem:
    """A tool call, its arguments as JSON (a string of JSON is read first)."""
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except ValueError:
            pass
    return SentItem("Tool call", f"{name} {json.dumps(arguments, ensure_ascii=False)}")


def attachment_item(name: str, media_type: str = "") -> SentItem:
    return SentItem("Attachment", f"{name} ({media_type})" if media_type else name)
