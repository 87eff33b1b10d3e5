"""The three wire protocols side by side, for tests that ask the same of each: a vendor file per protocol on
the local wire server, a text reply, a tool call, a reply cut at the output limit, and readers of a
recorded body (the tools it offered, its messages as (role, text) pairs in order)."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .vendors import write_vendor
from .wire import (
    Reply,
    anthropic_reply,
    anthropic_tool_use,
    chat_reply,
    chat_tool_call,
    responses_function_call,
    responses_reply,
)

KEY_ENV = "THREE_KEY"


@dataclass(frozen=True)
class Wire:
    """One protocol on the wire server: its model name and the replies it scripts."""

    protocol: str
    model: str
    reply: Callable[[str], Reply]
    call: Callable[[str, dict[str, Any]], Reply]
    cut: Callable[[str], Reply]  # a reply that hit the output limit

    def tools(self, body: dict[str, Any]) -> list[str]:
        """The names of the tools a recorded body offered, in order."""
        return [t.get("name") or t.get("function", {}).get("name") for t in body.get("tools") or []]

    def turns(self, body: dict[str, Any]) -> list[tuple[str, str]]:
        """Each part of the body's conversation as (role, text), in order: a text part is its text; a call
        is `call:<name>`; a result is `result:<text>`. Parts the protocol keeps apart stay apart (Chat
        Completions joins a user message's texts into one string)."""
        out: list[tuple[str, str]] = []
        if self.protocol == "anthropic-messages":
            for message in body["messages"]:
                for block in message["content"]:
                    out.append((message["role"], _block(block)))
        elif self.protocol == "openai-chat":
            for message in body["messages"]:
                if message["role"] == "system":
                    continue
                if message["role"] == "tool":
                    out.append(("user", "result:" + _text(message["content"])))
                    continue
                if message.get("content"):
                    out.append((message["role"], _text(message["content"])))
                for call in message.get("tool_calls") or []:
                    out.append(("assistant", "call:" + call["function"]["name"]))
        else:
            for item in body["input"]:
                kind = item.get("type", "message")
                if kind == "function_call":
                    out.append(("assistant", "call:" + item["name"]))
                elif kind == "function_call_output":
                    out.append(("user", "result:" + _text(item["output"])))
                elif kind == "message" and isinstance(item["content"], str):
                    out.append((item["role"], item["content"]))
                elif kind == "message":  # each part apart, as Anthropic's blocks
                    out += [(item["role"], block.get("text", "")) for block in item["content"]]
        return out


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "".join(c.get("text", "") for c in content if isinstance(c, dict))


def _block(block: dict[str, Any]) -> str:
    if block["type"] == "tool_use":
        return "call:" + block["name"]
    if block["type"] == "tool_result":
        return "result:" + _text(block["content"])
    return block.get("text", json.dumps(block))


WIRES = {
    "anthropic": Wire(
        "anthropic-messages",
        "ant/m",
        lambda text: anthropic_reply(text),
        lambda name, params: anthropic_reply(anthropic_tool_use(name, params)),
        lambda text: anthropic_reply(text, stop_reason="max_tokens"),
    ),
    "chat": Wire(
        "openai-chat",
        "chat/m",
        lambda text: chat_reply(text),
        lambda name, params: chat_reply(tool_calls=[chat_tool_call(name, params)]),
        lambda text: chat_reply(text, finish_reason="length"),
    ),
    "responses": Wire(
        "openai-responses",
        "resp/m",
        lambda text: responses_reply(text),
        lambda name, params: responses_reply(responses_function_call(name, params)),
        lambda text: responses_reply(text, status="incomplete"),
    ),
}


def write_three(workspace: Path, server: Any) -> None:
    """A vendor file of each protocol, all pointing at `server`, with a model `m` each."""
    models = "  m: {context_window: 100000}\n"
    write_vendor(workspace, "ant", "anthropic-messages", server.url, models, KEY_ENV)
    write_vendor(workspace, "chat", "openai-chat", server.openai_base_url, models, KEY_ENV)
    write_vendor(workspace, "resp", "openai-responses", server.openai_base_url, models, KEY_ENV)
