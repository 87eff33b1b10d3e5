"""Claude Code as a model (protocol claude-agent, X7): the real CLI, run through the Claude Agent SDK.

The timeline stays the context. Each model request is one run of the CLI on a transcript written from
the request's own messages (signed thinking with its signature, edited cards as edited): the SDK's
session store hands it to the CLI as a session to resume, and `CLAUDE_CODE_RESUME_INTERRUPTED_TURN`
makes the CLI send it as it stands, the last user message or tool results included (beside tool results
the CLI adds its own "Continue from where you left off."). Nothing the CLI keeps of its own is read back.
The body and the transcript are written in claude_agent_body; this module runs the CLI on them.

The project's tools are offered through the SDK's in-process MCP server (as `mcp__mewrk__<name>`);
Claude Code's built-in tools are off, but for those an agent file lists by their name (`Read`, `Bash`…,
claude_code_tools): the CLI offers its own definition of each, and a call of one comes back as a call of
the project's tool that does its work. When the model calls a tool, the CLI is stopped before it runs
anything — `can_use_tool` for the project's tools; once the CLI's own are offered, a PreToolUse hook for
every call (the CLI runs a Read in its own folder without asking `can_use_tool`) — and it makes no second
request by itself (`max_turns=1`: a call it refuses on its own, as an Edit of a file it cannot see,
would otherwise go back to the model at once). The call comes back as the response's tool call under the
project's name, and the engine runs it through its own safety level, rules, hooks and approval cards, as
for any protocol; the next request carries the result.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import queue
import shutil
import tempfile
import threading
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, cast

from ..errors import ConfigError, ProviderError
from .anthropic import stream_events
from .base import (
    Exchange,
    ModelInfo,
    ModelRequest,
    Provider,
    StopEvent,
    StreamEvent,
    ToolCallEvent,
    UsageEvent,
)
from .claude_agent_body import (
    BUILT_IN,
    SERVER,
    TOOL_PREFIX,
    Transcripts,
    agent_body,
    built_ins,
    split,
    transcript,
)
from .claude_code_tools import to_project

PROTOCOL = "claude-agent"
# What of the kernel's environment the CLI sees: what a program needs to run, never a credential. Every
# other variable the kernel has is blanked for it (the SDK passes the kernel's environment on).
PASSED_ENV = (
    "HOME",
    "PATH",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TERM",
    "TMPDIR",
    "TZ",
    "USER",
    "LOGNAME",
    "SHELL",
)
INSTALL = "pip install claude-agent-sdk (it brings the Claude Code CLI), or npm install -g @anthropic-ai/claude-code"
# As the SDK adapters ask again (SDKProvider's max_retries), not Claude Code's ten with backoff.
MAX_RETRIES = 2
# How long the CLI's result (the response's cost) is waited for once the response itself is whole.
RESULT_WAIT = 10.0
THINKING_BUDGETS = {"low": 2048, "medium": 8192, "high": 16384}
_END = object()


def check_installed(cli_path: str | None) -> None:
    """A ConfigError saying how to install what is missing: the SDK, or the CLI it runs."""
    if importlib.util.find_spec("claude_agent_sdk") is None:
        raise ConfigError(
            f"protocol claude-agent runs Claude Code through the Claude Agent SDK, which is not installed: {INSTALL}."
        )
    if cli_path is not None:
        path = Path(cli_path).expanduser()
        if not (path.is_file() and os.access(path, os.X_OK)):
            raise ConfigError(
                f"cli_path: {cli_path} is not an executable file (Claude Code's CLI, `claude`): {INSTALL}, or fix the path."
            )
        return
    if _bundled_cli() is None and shutil.which("claude") is None:
        raise ConfigError(
            f"protocol claude-agent needs the Claude Code CLI, found neither in the SDK nor on PATH: {INSTALL}."
        )


def _bundled_cli() -> str | None:
    spec = importlib.util.find_spec("claude_agent_sdk")
    if spec is None or spec.origin is None:
        return None
    path = Path(spec.origin).parent / "_bundled" / "claude"
    return str(path) if path.is_file() else None


class ClaudeAgentProvider(Provider):
    """A vendor of protocol claude-agent: Claude Code run for each request."""

    protocol = PROTOCOL

    def __init__(
        self,
        models: dict[str, ModelInfo],
        api_key: Callable[[], str | None],
        base_url: str | None = None,
        headers: Callable[[], dict[str, str]] | None = None,
        cli_path: str | None = None,
    ):
        check_installed(cli_path)
        self._models = models
        self._api_key = api_key
        self._base_url = base_url
        self._headers = headers or dict
        self._cli_path = cli_path

    def model_info(self, model: str) -> ModelInfo:
        return self._models[model]

    def open(self, request: ModelRequest) -> Exchange:
        info = self.model_info(request.model)
        body = agent_body(request, info)
        thinking: dict[str, Any] = {"type": "disabled"}
        budget = THINKING_BUDGETS.get(request.reasoning)
        if budget and info.thinking == "signed":
            thinking = {"type": "enabled", "budget_tokens": budget}
        body["thinking"] = thinking
        roots = {native.name: native.root for native in built_ins(request).values()}
        return ClaudeAgentExchange(body, self, info.name, roots)

    def environment(self) -> dict[str, str]:
        """The CLI's environment: the allowed part of the kernel's, every other variable blanked, and the
        vendor's address, key and headers (read now, never kept)."""
        env = {name: ("" if name not in PASSED_ENV else value) for name, value in os.environ.items()}
        env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
        env["CLAUDE_CODE_RESUME_INTERRUPTED_TURN"] = "1"
        env["DISABLE_AUTOUPDATER"] = "1"
        env["CLAUDE_CODE_MAX_RETRIES"] = str(MAX_RETRIES)
        key = self._api_key()
        if key:
            env["ANTHROPIC_API_KEY"] = key
        if self._base_url:
            env["ANTHROPIC_BASE_URL"] = self._base_url
        headers = self._headers()
        if headers:
            env["ANTHROPIC_CUSTOM_HEADERS"] = "\n".join(f"{k}: {v}" for k, v in headers.items())
        return env

    def secrets(self) -> list[str]:
        """What must never show in a sentence: the key and the headers' values."""
        return [s for s in [self._api_key() or "", *self._headers().values()] if len(s) >= 4]

    @property
    def cli_path(self) -> str | None:
        return self._cli_path


class ClaudeAgentExchange(Exchange):
    """One run of the CLI for one request: the events of the model's response as the CLI streams them."""

    def __init__(
        self, body: dict[str, Any], provider: ClaudeAgentProvider, model: str, roots: dict[str, str]
    ):
        self.body = body
        self.model = model
        self._roots = roots  # Claude Code's own tools offered, and the folder of each one's paths
        # The CLI's empty folder (as given, and resolved), which its environment names as its own.
        self._cwd: tuple[str, ...] = ()
        self._provider = provider
        self._closed = False
        self._portal_cancel: Callable[[], None] | None = None
        self._lock = threading.Lock()
        self._stderr: list[str] = []

    def events(self) -> Iterator[StreamEvent]:
        if self._closed:
            return
        items: queue.Queue[Any] = queue.Queue()
        runner = threading.Thread(target=self._run, args=(items,), name="mewrk-claude-agent", daemon=True)
        runner.start()
        outcome: dict[str, Any] = {}
        usage, stop = yield from _renamed(stream_events(self._raw(items, outcome)), self._project_call)
        if self._closed:
            return
        if stop is None:
            raise ProviderError(self._sentence(outcome))
        cost = getattr(outcome.get("result"), "total_cost_usd", None)
        said = float(cost) if isinstance(cost, int | float) and cost >= 0 else None
        yield UsageEvent(usage, cost=said)
        yield StopEvent(stop)

    def _project_call(self, name: str, params: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        """A streamed call under the project's name for its tool: the MCP prefix taken off; a call of
        Claude Code's own tool as the project's tool that does its work (a path under the CLI's folder
        standing for the same path in the workspace)."""
        if name.startswith(TOOL_PREFIX):
            return name.removeprefix(TOOL_PREFIX), params
        if name in self._roots:
            return to_project(name, params, self._roots[name], *self._cwd)
        return name, params

    def close(self) -> None:
        with self._lock:
            self._closed = True
            cancel = self._portal_cancel
        if cancel is not None:
            cancel()

    # ---- the CLI's run, on a thread of its own with its own event loop ------------------------------

    def _raw(self, items: queue.Queue[Any], outcome: dict[str, Any]) -> Iterator[dict[str, Any]]:
        """The raw Messages events of the run's first response, until the run ends."""
        while True:
            item = items.get()
            if item is _END:
                return
            kind, value = item
            if kind == "event":
                yield value
            else:
                outcome[kind] = value

    def _run(self, items: queue.Queue[Any]) -> None:
        import anyio

        try:
            anyio.run(self._query, items)
        except BaseException as exc:  # the SDK's errors, and anything else: said, never lost
            items.put(("error", exc))
        finally:
            items.put(_END)

    async def _query(self, items: queue.Queue[Any]) -> None:
        import anyio
        from claude_agent_sdk import (
            ClaudeAgentOptions,
            ClaudeSDKClient,
            HookMatcher,
            SdkMcpTool,
            create_sdk_mcp_server,
        )
        from claude_agent_sdk.types import PermissionResultDeny, SessionStore

        body = self.body
        session = str(uuid.uuid4())
        done = anyio.Event()

        async def never(arguments: dict[str, Any]) -> dict[str, Any]:
            return {"content": [{"type": "text", "text": "mewrk runs its tools itself."}], "is_error": True}

        async def stop_here(name: str, arguments: dict[str, Any], context: Any) -> Any:
            # The engine runs the call (safety level, rules, hooks, approval): the CLI stops before it.
            return PermissionResultDeny(message="The workbench runs this call itself.", interrupt=True)

        async def stop_every_call(data: Any, tool_use_id: str | None, context: Any) -> Any:
            # The CLI asks no permission for a call of its own tools it deems safe; a hook it always asks.
            why = "The workbench runs this call itself."
            return {
                "continue_": False,
                "stopReason": why,
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": why,
                },
            }

        messages, prompt = split(body["messages"])

        async def prompts() -> Any:
            if prompt is not None:
                yield {
                    "type": "user",
                    "message": {"role": "user", "content": prompt["content"]},
                    "parent_tool_use_id": None,
                    "session_id": session,
                }
            await done.wait()  # the stream stays open while the CLI may ask can_use_tool

        tools = [
            SdkMcpTool(
                t["name"].removeprefix(TOOL_PREFIX), t.get("description", ""), t["input_schema"], never
            )
            for t in body.get("tools", [])
            if t.get("type") != BUILT_IN
        ]
        theirs = [t["name"] for t in body.get("tools", []) if t.get("type") == BUILT_IN]
        # Every call the CLI would run, whatever its tool: none runs there.
        hooks = {"PreToolUse": [HookMatcher(matcher=None, hooks=[stop_every_call])]} if theirs else None
        with tempfile.TemporaryDirectory(prefix="mewrk-claude-") as cwd:
            self._cwd = tuple(dict.fromkeys((cwd, os.path.realpath(cwd))))
            options = ClaudeAgentOptions(
                system_prompt="\n\n".join(b["text"] for b in body.get("system", [])) or None,
                model=body["model"],
                tools=theirs,
                mcp_servers={SERVER: create_sdk_mcp_server(SERVER, tools=tools)} if tools else {},
                can_use_tool=stop_here,
                hooks=cast("Any", hooks),
                max_turns=1,  # one model request; the CLI never answers a call by itself
                include_partial_messages=True,
                setting_sources=[],
                strict_mcp_config=True,  # no MCP server of ~/.claude.json or a plugin beside ours
                cwd=cwd,
                cli_path=self._provider.cli_path,
                env={
                    **self._provider.environment(),
                    "CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(body["max_tokens"]),
                },
                thinking=body["thinking"],
                stderr=self._stderr.append,
                verbatim_prompts=True,
            )
            if messages:  # the timeline before the prompt, as a session the CLI resumes
                lines = transcript(body["model"], messages, session, cwd)
                options.session_store = cast("SessionStore", Transcripts(session, lines))
                options.resume = session
            with anyio.CancelScope() as scope:
                token = anyio.lowlevel.current_token()

                def cancel() -> None:
                    with contextlib.suppress(RuntimeError):  # the run ended meanwhile
                        anyio.from_thread.run_sync(scope.cancel, token=token)

                with self._lock:
                    if self._closed:
                        return
                    self._portal_cancel = cancel
                try:
                    client = ClaudeSDKClient(options)
                    await client.connect(prompts())
                    try:
                        await self._read(client, items)
                    except Exception as exc:  # said before the end is marked, so the sentence has it
                        items.put(("error", exc))
                        raise
                    finally:
                        items.put(_END)  # the response is read: the engine goes on while the CLI ends
                        done.set()  # the prompt's stream ends, and the CLI with all it started goes
                        await client.disconnect()
                finally:
                    done.set()
                    with self._lock:
                        self._portal_cancel = None

    async def _read(self, client: Any, items: queue.Queue[Any]) -> None:
        """Pass on the events of the run's first response, then wait for the CLI's result (its cost) a
        little while; a second response (the CLI going on by itself) is not this exchange's."""
        import anyio
        from claude_agent_sdk import ResultMessage
        from claude_agent_sdk.types import StreamEvent as SDKStreamEvent

        whole = False
        with anyio.CancelScope() as reading:
            async for message in client.receive_messages():
                if isinstance(message, ResultMessage):
                    items.put(("result", message))
                    return
                if not isinstance(message, SDKStreamEvent) or message.parent_tool_use_id is not None:
                    continue
                kind = message.event.get("type")
                if whole:
                    if kind == "message_start":
                        return
                    continue
                items.put(("event", message.event))
                if kind == "message_stop":
                    whole = True
                    reading.deadline = anyio.current_time() + RESULT_WAIT

    def _sentence(self, outcome: dict[str, Any]) -> str:
        """Why the run gave no response, as the CLI or the SDK said it, with no secret in it."""
        result = outcome.get("result")
        error = outcome.get("error")
        said = ""
        if result is not None:
            said = str(getattr(result, "result", None) or getattr(result, "errors", None) or result.subtype)
        elif error is not None:
            said = f"{type(error).__name__}: {error}"
        if not said:  # the CLI's own last words, when neither its result nor the SDK said why
            said = " ".join(line.strip() for line in self._stderr[-3:] if line.strip())[:400]
        text = f"`{self.model}`: Claude Code gave no response ({said or 'it ended without one'})"
        if "API key" in said:
            text += f"; check api_key in .mewrk/llm/{self.model.split('/', 1)[0]}.yaml"
        for secret in self._provider.secrets():
            text = text.replace(secret, "[redacted]")
        return text + "."


def _renamed(
    events: Iterator[StreamEvent], project_call: Callable[[str, dict[str, Any]], tuple[str, dict[str, Any]]]
) -> Any:
    """The events with each tool call under the project's name for its tool (`project_call`)."""
    inner = iter(events)
    while True:
        try:
            event = next(inner)
        except StopIteration as end:
            return end.value
        if isinstance(event, ToolCallEvent) and isinstance(event.params, dict):
            name, params = project_call(event.name, event.params)
            if (name, params) != (event.name, event.params):
                event = ToolCallEvent(event.index, event.call_id, name, params)
        yield event
