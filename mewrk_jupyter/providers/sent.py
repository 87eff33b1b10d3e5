"""What a recorded request body carried, read back in neutral words: one item per part, for each wire protocol.

The history keeps each request exactly as it went to the vendor (T17). Reading that body is the adapters'
work, so this module, beside them, reads it for the engine: a summary shows what was really sent — a
signed thinking block by its signed original, whatever the card shows after an edit (T7) — and the tool
lock offers again the tools a request offered, with no vendor's JSON above the providers (DESIGN §1).
A new protocol adds its reader here, chosen in read_request.
"""

from __future__ import annotations

import json
from typing import Any

from .base import TOOL_IMAGES_MARK, ToolSpec
from .offline import estimate_tokens
from .record import SentItem, SentRequest, attachment_item, call_item, opaque, text_item


def _results(content: Any, is_error: bool = False) -> list[SentItem]:
    """A tool result, and after it each image it carried (Anthropic's blocks, the Responses parts)."""
    blocks = [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
    if isinstance(content, list):
        content = "\n".join(b["text"] for b in blocks if isinstance(b.get("text"), str))
    images = [_image(b) for b in blocks if b.get("type") in ("image", "input_image", "image_url")]
    return [SentItem("Tool result", str(content), "error" if is_error else ""), *images]


def _image(block: dict[str, Any]) -> SentItem:
    """An image a tool's result carried, by its media type where the block says it."""
    source = block.get("source")
    source = source if isinstance(source, dict) else {}
    url = block.get("image_url")
    url = url.get("url") if isinstance(url, dict) else url
    media_type = source.get("media_type") or (
        url[5:].split(";", 1)[0] if isinstance(url, str) and url.startswith("data:") else ""
    )
    return SentItem("Tool image", media_type or "image")


def _neutral(body: dict[str, Any], out: SentRequest) -> None:
    """The engine's own request form (the offline models receive it as it is)."""
    out.system = [s for s in body.get("system") or [] if isinstance(s, str)]
    out.tools = [t.get("name", "?") for t in body.get("tools") or []]
    for message in body.get("messages") or []:
        out.messages += 1
        role = message.get("role", "")
        for part in message.get("parts") or []:
            kind = part.get("type")
            if kind == "text":
                out.items.append(text_item(role, part.get("text", "")))
            elif kind == "thinking" and part.get("encrypted") is not None:
                out.items.append(SentItem("Thinking", opaque(part["encrypted"]), "encrypted, sent as is"))
            elif kind == "thinking" and part.get("signature") is not None:
                # What goes out is the signed original; `text` is only what the card shows now.
                out.items.append(SentItem("Thinking", part.get("signed_text") or "", "signed"))
            elif kind == "thinking":
                out.items.append(SentItem("Thinking", part.get("text", "")))
            elif kind == "tool_use":
                out.items.append(call_item(part.get("name", "?"), part.get("input")))
            elif kind == "tool_result":
                out.items += _results(part.get("content", ""), bool(part.get("is_error")))
                out.items += [
                    SentItem("Tool image", i.get("media_type") or "image") for i in part.get("images", [])
                ]
            elif kind == "attachment":
                out.items.append(attachment_item(part.get("name", "?"), part.get("media_type", "")))


def _anthropic(body: dict[str, Any], out: SentRequest) -> None:
    system = body.get("system") or []
    blocks = [system] if isinstance(system, str) else system
    out.system = [b if isinstance(b, str) else b.get("text", "") for b in blocks]
    out.tools = [t.get("name", t.get("type", "?")) for t in body.get("tools") or []]
    for message in body.get("messages") or []:
        out.messages += 1
        role, content = message.get("role", ""), message.get("content")
        parts: list[dict[str, Any]] = (
            [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        )
        for block in parts:
            kind = block.get("type")
            if kind == "text":
                out.items.append(text_item(role, block.get("text", "")))
            elif kind == "thinking":
                out.items.append(SentItem("Thinking", block.get("thinking", ""), "signed"))
            elif kind == "redacted_thinking":
                out.items.append(SentItem("Thinking", opaque(block.get("data")), "encrypted, sent as is"))
            elif kind == "tool_use":
                out.items.append(call_item(block.get("name", "?"), block.get("input")))
            elif kind == "tool_result":
                out.items += _results(block.get("content", ""), bool(block.get("is_error")))
            elif kind in ("image", "document"):
                source = block.get("source") or {}
                out.items.append(attachment_item(block.get("title") or kind, source.get("media_type", "")))


def _chat(body: dict[str, Any], out: SentRequest) -> None:
    out.tools = [(t.get("function") or {}).get("name", "?") for t in body.get("tools") or []]
    messages = list(body.get("messages") or [])
    while messages and messages[0].get("role") == "system":  # the leading system messages: the prefix
        out.system.append(str(messages.pop(0).get("content") or ""))
    for message in messages:
        out.messages += 1
        role, content = message.get("role", ""), message.get("content")
        if message.get("reasoning_content"):
            out.items.append(SentItem("Thinking", message["reasoning_content"]))
        if role == "tool":
            out.items += _results(content or "")
            continue
        chunks: list[dict[str, Any]] = (
            [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        )
        tool_images = False  # after the line that marks a tool's images, until the person's own parts
        for block in chunks:
            text = block.get("text")
            if block.get("type") == "text" and isinstance(text, str) and text.startswith(TOOL_IMAGES_MARK):
                tool_images = True  # the line is the engine's; the images after it are the tool's
            elif block.get("type") == "image_url" and tool_images:
                out.items.append(_image(block))
            elif block.get("type") == "text":
                tool_images = False
                out.items.append(text_item(role, block.get("text", "")))
            elif block.get("type") == "file":
                out.items.append(attachment_item((block.get("file") or {}).get("filename", "file")))
            else:
                out.items.append(attachment_item("image"))
        for call in message.get("tool_calls") or []:
            function = call.get("function") or {}
            out.items.append(call_item(function.get("name", "?"), function.get("arguments")))


def _responses(body: dict[str, Any], out: SentRequest) -> None:
    out.system = [body["instructions"]] if body.get("instructions") else []
    out.tools = [t.get("name", t.get("type", "?")) for t in body.get("tools") or []]
    for item in body.get("input") or []:
        out.messages += 1
        kind = item.get("type", "message")
        if kind == "function_call":
            out.items.append(call_item(item.get("name", "?"), item.get("arguments")))
        elif kind == "function_call_output":
            out.items += _results(item.get("output", ""))
        elif kind == "reasoning":
            out.items.append(
                SentItem("Thinking", opaque(item.get("encrypted_content")), "encrypted, sent as is")
            )
        elif kind == "message":
            role = {"developer": "system"}.get(item.get("role", ""), item.get("role", ""))
            content = item.get("content")
            for block in (
                [{"type": "input_text", "text": content}] if isinstance(content, str) else content or []
            ):
                if block.get("type") in ("input_text", "output_text"):
                    out.items.append(text_item(role, block.get("text", "")))
                else:
                    out.items.append(attachment_item(block.get("filename") or "image"))


def read_request(body: dict[str, Any], protocol: str) -> SentRequest:
    """The request body as recorded, read back into items; a body of an unknown shape reads as empty."""
    out = SentRequest()
    messages = body.get("messages")
    if protocol == "tool":
        return out
    if "input" in body:
        _responses(body, out)
    elif protocol == "offline" or any(isinstance(m, dict) and "parts" in m for m in messages or []):
        _neutral(body, out)
    elif protocol == "openai-chat" or any(m.get("role") in ("system", "tool") for m in messages or []):
        _chat(body, out)
    elif isinstance(messages, list):
        _anthropic(body, out)
    return out


def sent_tools(tools: list[Any]) -> list[ToolSpec]:
    """The tools of a recorded request's body, in order, as the engine declares them (the tool lock sends
    them again as they were), read by their shape in any protocol; a vendor's own tool kind is skipped."""
    specs = []
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        if isinstance(tool.get("function"), dict):  # Chat Completions
            tool = tool["function"]
        elif tool.get("type", "function") != "function":  # a vendor's own (web search, …)
            continue
        # Responses and Chat Completions call the schema `parameters`; Anthropic and the engine do not.
        schema = tool.get("parameters", tool.get("input_schema"))
        if isinstance(schema, dict) and isinstance(tool.get("name"), str):
            specs.append(
                ToolSpec(name=tool["name"], description=tool.get("description") or "", input_schema=schema)
            )
    return specs


# Strings of a request body that are not the timeline's words: ids, roles, encodings, signatures, bytes.
_NOT_WORDS = frozenset(
    {"id", "type", "role", "tool_use_id", "call_id", "media_type", "signature", "encrypted_content", "data"}
    | {"file_data", "url", "filename", "cache_control", "status", "detail", "protocol", "signed_text"}
)


def _words(value: object, key: str = "") -> int:
    if isinstance(value, str):
        return 0 if key in _NOT_WORDS or value.startswith("data:") else estimate_tokens(value)
    if isinstance(value, dict):
        if value.get("role") in ("system", "developer"):  # the hidden prefix, in Chat Completions
            return 0
        return sum(_words(v, k) for k, v in value.items() if k not in _NOT_WORDS)
    if isinstance(value, list):
        return sum(_words(v, key) for v in value)
    return 0


def _messages(body: dict[str, Any]) -> object:
    """The timeline's part of a request body: Messages' and Chat's `messages`, Responses' `input`."""
    return body.get("messages", body.get("input", []))


def timeline_words(body: dict[str, Any]) -> int:
    """The timeline's words in a request body (its messages, the hidden prefix left out), estimated as
    the engine estimates cards: what a vendor's count of the request less this carried beside them."""
    return _words(_messages(body))


def prefix_estimate(body: dict[str, Any]) -> int:
    """An estimate of what a body carries beside the timeline, with no vendor's count to go by: its
    system text and tool schemas as characters / 4."""
    messages = _messages(body)
    listed = messages if isinstance(messages, list) else []
    system = [m for m in listed if isinstance(m, dict) and m.get("role") in ("system", "developer")]
    rest = {k: v for k, v in body.items() if k not in ("messages", "input")}
    return estimate_tokens(json.dumps([rest, system], ensure_ascii=False))
