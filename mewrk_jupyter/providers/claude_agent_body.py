"""What the Claude Code CLI is given for one request (protocol claude-agent, X7): the Messages body of the
timeline, with the project's tools under their MCP names and Claude Code's own by their name, and the
session transcript the CLI resumes, written from the body's messages."""

from __future__ import annotations

import uuid
from typing import Any

from .anthropic import request_body
from .base import ClaudeCodeTool, ModelInfo, ModelRequest
from .claude_code_tools import PROJECT_TOOL, system_line, to_claude

SERVER = "mewrk"
TOOL_PREFIX = f"mcp__{SERVER}__"
# How a body names a tool the CLI offers as its own (claude_code_tools): its name, no definition of ours.
BUILT_IN = "claude_code"


def built_ins(request: ModelRequest) -> dict[str, ClaudeCodeTool]:
    """The request's tools that the CLI offers as its own, by the project's name."""
    return {spec.name: spec.claude_code for spec in request.tools if spec.claude_code is not None}


def agent_body(request: ModelRequest, info: ModelInfo) -> dict[str, Any]:
    """What the CLI is given for a request: the Messages body of the timeline, the project's tools under
    their MCP names, Claude Code's own by their name (their calls in its words, a line saying their folder).

    Cache breakpoints are left to the CLI, which places its own.
    """
    body = request_body(request, info)
    theirs = built_ins(request)
    # An earlier call of a project tool that Claude Code has a name for, and which this request does not
    # offer through MCP (plan mode withholds edit, say), is shown in Claude Code's words too, so that the
    # model reads its own calls in one vocabulary while the session offers Claude Code's tools at all.
    offered = {spec.name for spec in request.tools}
    root = next(iter(theirs.values())).root if theirs else None
    shown_as = {project: name for name, project in PROJECT_TOOL.items() if project not in offered}
    for block in [*body.get("system", []), *body.get("tools", [])]:
        block.pop("cache_control", None)
    for message in body["messages"]:
        for block in message["content"]:
            block.pop("cache_control", None)
            if block.get("type") != "tool_use":
                continue
            name = block["name"]
            native = theirs[name].name if name in theirs else shown_as.get(name)
            if native is not None and root is not None and isinstance(block["input"], dict):
                block["input"] = to_claude(name, block["input"], root)
                block["name"] = native
            else:
                block["name"] = TOOL_PREFIX + name
    body["tools"] = [
        {"type": BUILT_IN, "name": theirs[tool["name"]].name}
        if tool["name"] in theirs
        else {**tool, "name": TOOL_PREFIX + tool["name"]}
        for tool in body.get("tools", [])
    ]
    if not body["tools"]:
        del body["tools"]
    if root is not None:
        line = system_line([native.name for native in theirs.values()], root)
        body["system"] = [*body.get("system", []), {"type": "text", "text": line}]
    return body


def split(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    """The transcript and the prompt of a run: a last user message without tool results is the prompt,
    sent as written (`verbatim_prompts`: an `@path` in it is not read by the CLI); a last message with tool
    results stays in the transcript, which the CLI resumes as an interrupted turn."""
    last = messages[-1] if messages else None
    if last is not None and last["role"] == "user":
        if not any(block.get("type") == "tool_result" for block in last["content"]):
            return messages[:-1], last
    return messages, None


def transcript(model: str, messages: list[dict[str, Any]], session: str, cwd: str) -> list[dict[str, Any]]:
    """Messages as the lines of a Claude Code session transcript, each after the one before."""
    lines: list[dict[str, Any]] = []
    parent: str | None = None
    for n, message in enumerate(messages):
        line_id = str(uuid.uuid4())
        if message["role"] == "assistant":
            content = {
                "id": f"msg_mewrk_{n}",
                "type": "message",
                "role": "assistant",
                "model": model,
                "content": message["content"],
                "stop_reason": "tool_use"
                if any(b.get("type") == "tool_use" for b in message["content"])
                else "end_turn",
                "usage": {"input_tokens": 0, "output_tokens": 0},
            }
        else:
            content = {"role": "user", "content": message["content"]}
        lines.append(
            {
                "parentUuid": parent,
                "isSidechain": False,
                "type": message["role"],
                "message": content,
                "uuid": line_id,
                "timestamp": "2026-01-01T00:00:00.000Z",
                "userType": "external",
                "cwd": cwd,
                "sessionId": session,
            }
        )
        parent = line_id
    return lines


class Transcripts:
    """The SDK's session store for one run: it loads the transcript written from the timeline and keeps
    nothing the CLI writes (the timeline, not the CLI, is the record)."""

    def __init__(self, session: str, lines: list[dict[str, Any]]):
        self._session = session
        self._lines = lines

    async def load(self, key: dict[str, Any]) -> list[dict[str, Any]] | None:
        return self._lines if key.get("session_id") == self._session and not key.get("subpath") else None

    async def append(self, key: dict[str, Any], entries: list[dict[str, Any]]) -> None:
        return None
