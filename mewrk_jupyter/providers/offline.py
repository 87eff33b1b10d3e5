"""The embedded offline provider (P4): deterministic models that need no key and no network.

Every `offline/…` model answers from the request alone, so the same timeline always gives the same
reply. A line in the newest user message can ask for more than an echo:

    call: <tool> {"json": "params"}   the model calls that tool (several lines: parallel calls)
    long: <n>                          a reply of about n tokens
    think: <text>                      a thinking block before the reply (offline/thinker always thinks)

Asked for a summary of the conversation (the engine's compaction), the model writes a structured one
(offline_summary.py); offered the engine's `handoff` tool, or asked for handoff documents, it writes
those and hands off (offline_handoff.py). The models that declare a native compaction (all but
`offline/tiny` and `offline/slow`) compact a request into an opaque item of their own and read it
back (offline_native.py).

Models: `offline/echo` (the default), `offline/thinker` (signed thinking, like Anthropic's),
`offline/slow` (streams slowly, for Stop and crash tests), `offline/tiny` (a 2k context window),
`offline/big` (a 1M window, as the largest vendors' models have: long sessions without a refusal; it
also takes async tool calls).
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections.abc import Iterator
from typing import Any

from ..cards.models import Usage
from ..errors import ConfigError, ProviderError
from .base import (
    Compaction,
    Exchange,
    Message,
    ModelInfo,
    ModelRequest,
    Provider,
    StopEvent,
    StreamEvent,
    TextDelta,
    TextPart,
    ThinkingDelta,
    ThinkingDone,
    ToolCallEvent,
    ToolResultPart,
    UsageEvent,
)
from .offline_handoff import HANDOFF_TOOL, asks_for_handoff, is_handoff, should_hand_off, write_handoff
from .offline_native import OfflineCompaction, check_items, folded
from .offline_summary import asks_for_summary, is_summary, write_summary

MODELS: dict[str, dict[str, Any]] = {
    "echo": {"context_window": 32_000, "thinking": "none", "delay": 0.0, "native_compaction": True},
    "thinker": {"context_window": 32_000, "thinking": "signed", "delay": 0.0, "native_compaction": True},
    "slow": {"context_window": 32_000, "thinking": "none", "delay": 0.05, "native_compaction": False},
    "tiny": {"context_window": 2_000, "thinking": "none", "delay": 0.0, "native_compaction": False},
    "big": {
        "context_window": 1_000_000,
        "thinking": "none",
        "delay": 0.0,
        "native_compaction": True,
        "async_tools": True,
    },
}

# What a file without text costs in a request, as a vendor counts a large image (Anthropic: about 1,600).
FILE_TOKENS = 1_600

_WORDS = (
    "the timeline is the context and every card on it can be edited before the model reads it again "
    "so a person steers the agent by changing what it sees rather than by arguing with it"
).split()

_CALL = re.compile(r"^\s*call:\s*([\w.-]+)\s*(\{.*\})?\s*$")
_LONG = re.compile(r"^\s*long:\s*(\d+)\s*$")
_THINK = re.compile(r"^\s*think:\s*(.*)$")


def estimate_tokens(text: str) -> int:
    """A rough token count: one token per four characters, at least one for any text."""
    return (len(text) + 3) // 4 if text else 0


def offline_signature(text: str) -> str:
    """The offline model's stand-in for a provider signature: a digest of the thinking it wrote."""
    return "offline-sig-" + hashlib.sha256(text.encode()).hexdigest()[:32]


class OfflineExchange(Exchange):
    """A scripted response, streamed word by word."""

    def __init__(
        self,
        body: dict[str, Any],
        events: list[StreamEvent],
        delay: float,
        refusal: ProviderError | None = None,
    ):
        self.body = body
        self._events = events
        self._delay = delay
        self._refusal = refusal  # what the model answers instead, as a vendor answers a request it refuses
        self._closed = threading.Event()

    def events(self) -> Iterator[StreamEvent]:
        if self._refusal is not None:
            raise self._refusal
        for event in self._events:
            if self._closed.is_set():
                return
            if self._delay and isinstance(event, TextDelta | ThinkingDelta):
                self._closed.wait(self._delay)
                if self._closed.is_set():
                    return
            yield event

    def close(self) -> None:
        self._closed.set()


class OfflineProvider(Provider):
    """Deterministic local models, the default when no configuration exists."""

    protocol = "offline"

    def model_info(self, model: str) -> ModelInfo:
        name = model.split("/", 1)[1] if "/" in model else model
        spec = MODELS.get(name)
        if spec is None:
            known = ", ".join(f"offline/{m}" for m in MODELS)
            raise ConfigError(f"The model `{model}` is not an offline model; offline models: {known}.")
        return ModelInfo(
            name=f"offline/{name}",
            protocol=self.protocol,
            context_window=spec["context_window"],
            thinking=spec["thinking"],
            max_tokens=4096,
            native_compaction=spec["native_compaction"],
            async_tools=spec.get("async_tools", False),
        )

    def open(self, request: ModelRequest) -> Exchange:
        info = self.model_info(request.model)
        body = request.model_dump(mode="json")
        delay = MODELS[info.name.split("/", 1)[1]]["delay"]
        try:
            check_items(request.messages)  # an altered item, or another's, is refused as a vendor would
        except ProviderError as refusal:
            return OfflineExchange(body, [], delay, refusal)
        return OfflineExchange(body, list(_script(request, info)), delay)

    def compaction(self, request: ModelRequest, instructions: str | None = None) -> Compaction:
        info = self.model_info(request.model)
        if not info.native_compaction:
            return super().compaction(request, instructions)
        return OfflineCompaction(request, request_tokens(request), instructions)


def _last_user_text(messages: list[Message]) -> str | None:
    """The text of the newest user message, or None when the request ends with the model's own turn; a
    summary of the earlier conversation it begins with is the engine's, not the person's words."""
    if not messages or messages[-1].role != "user":
        return None
    return "\n".join(
        p.text
        for p in messages[-1].parts
        if isinstance(p, TextPart) and not is_summary(p.text) and not is_handoff(p.text)
    )


def _tool_results(messages: list[Message]) -> list[ToolResultPart]:
    if not messages or messages[-1].role != "user":
        return []
    return [p for p in messages[-1].parts if isinstance(p, ToolResultPart)]


def _last_assistant_text(messages: list[Message]) -> str:
    for message in reversed(messages):
        if message.role == "assistant":
            return "".join(p.text for p in message.parts if isinstance(p, TextPart))
    return ""


def _words(text: str) -> list[str]:
    return re.findall(r"\S+\s*|\s+", text)


def _serialized(request: ModelRequest) -> tuple[str, int]:
    """The request as the offline model counts it (system and messages, files without their bytes),
    and how many files it carries."""
    messages = [m.model_dump(mode="json") for m in request.messages]
    files = 0
    for message in messages:
        for part in message.get("parts", []):
            # A tool's images count as the person's attached images do.
            for file in [part, *part.get("images", [])]:
                if file.get("type") == "attachment" and file.get("data"):
                    # A vendor counts a file's content, not its base64: an image costs a fixed amount,
                    # and a text or PDF is counted by the text beside it.
                    file["data"] = ""
                    files += 1
    return json.dumps(request.model_dump(mode="json")["system"]) + json.dumps(messages), files


def request_tokens(request: ModelRequest) -> int:
    """A request's size as the offline models count it."""
    serialized, files = _serialized(request)
    return estimate_tokens(serialized) + FILE_TOKENS * files


def _script(request: ModelRequest, info: ModelInfo) -> Iterator[StreamEvent]:
    """The whole response, decided from the request alone."""
    serialized, _ = _serialized(request)
    input_tokens = request_tokens(request)
    results = _tool_results(request.messages)
    user_text = _last_user_text(request.messages)
    index = 0
    thinking = None
    calls: list[tuple[str, dict[str, Any]]] = []
    long_n = 0
    summary = asks_for_summary(request.messages)
    handoff = asks_for_handoff(request.messages)
    hand_off = not summary and not handoff and should_hand_off(request)
    if user_text is not None and not results and not summary and not handoff and not hand_off:
        for line in user_text.splitlines():
            if m := _CALL.match(line):
                calls.append((m.group(1), _params(m.group(2))))
            elif m := _LONG.match(line):
                long_n = int(m.group(1))
            elif m := _THINK.match(line):
                thinking = m.group(1).strip()
    if thinking is None and info.thinking != "none":
        thinking = (
            f"The person wrote {len(user_text or '')} characters; I answer from the timeline as it stands."
        )
    output: list[str] = []
    if thinking:
        yield from (ThinkingDelta(index, w) for w in _words(thinking))
        signature = offline_signature(thinking) if info.thinking == "signed" else None
        yield ThinkingDone(index, signature=signature)
        output.append(thinking)
        index += 1
    if summary:  # a native compaction's item in the conversation is read as the summary it carries
        reply = write_summary(folded(request.messages))
    elif handoff:
        reply = write_handoff(folded(request.messages))
    elif hand_off:  # the engine armed the handoff: the documents go in the call
        calls = [(HANDOFF_TOOL, {"documents": write_handoff(folded(request.messages))})]
        reply = "The context is nearly full, so I hand the work over to a new session."
    else:
        reply = _reply_text(request.messages, user_text, results, calls, long_n)
    yield from (TextDelta(index, w) for w in _words(reply))
    output.append(reply)
    index += 1
    for i, (name, params) in enumerate(calls):
        call_id = "toolu_off_" + hashlib.sha256(f"{serialized}{i}".encode()).hexdigest()[:16]
        yield ToolCallEvent(index, call_id, name, params)
        output.append(json.dumps(params))
        index += 1
    output_tokens = sum(estimate_tokens(t) for t in output)
    yield UsageEvent(Usage(input_tokens=input_tokens, output_tokens=output_tokens))
    yield StopEvent("tool_use" if calls else "end_turn")


def _params(raw: str | None) -> dict[str, Any]:
    if not raw:
        return {}
    try:
        value = json.loads(raw)
    except json.JSONDecodeError:
        return {"raw": raw}
    return value if isinstance(value, dict) else {"value": value}


def _reply_text(
    messages: list[Message],
    user_text: str | None,
    results: list[ToolResultPart],
    calls: list[tuple[str, dict[str, Any]]],
    long_n: int,
) -> str:
    if results:
        lines = []
        for r in results:
            first = r.content.strip().splitlines()[0] if r.content.strip() else "(empty)"
            status = "failed" if r.is_error else "returned"
            lines.append(f"The tool call `{r.tool_use_id}` {status}: {first[:200]}")
        return "\n".join(lines)
    if calls:
        names = ", ".join(f"`{name}`" for name, _ in calls)
        return f"I will call {names}."
    if long_n:
        return " ".join(_WORDS[i % len(_WORDS)] for i in range(long_n)) + "."
    if user_text is None:
        before = _last_assistant_text(messages).strip()
        tail = before[-80:] if before else "nothing yet"
        return f"Continuing from the timeline as it stands (last words: “{tail}”)."
    if not user_text.strip() and any(
        isinstance(p, TextPart) and is_summary(p.text) for p in messages[-1].parts
    ):
        return "Going on from the summary of the earlier conversation."
    count = len(messages)
    return f"You said: “{user_text.strip()}”\n\n(offline echo; I read {count} message{'s' * (count != 1)}.)"
