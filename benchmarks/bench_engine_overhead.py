"""Engine overhead against the raw SDK: the same streamed reply of 2,000 tokens from the same local server.

Run: python benchmarks/bench_engine_overhead.py [--server-in-process]
Raw is the official SDK iterating the stream's events with one client; engine is `mw.Session.new(model=…)`
plus `send(…)`, its first token read from the session's `text_delta` events. Both run in this process,
in rounds (the order rotated every round), against the test suite's wire server; the tables show
medians, their ratio engine / raw, and the median of the rounds' own ratios.
The wire server runs in a process of its own, as a vendor's server does. On a thread of this process
(`--server-in-process`, how figures before 2026-12 were taken) it shares the interpreter's lock with
the client: each time the engine's thread lets go of it (every SQLite call does) while the server writes
the stream's 2,000 events, the engine waits for the server's thread, which a real vendor never makes it do.
Raw sends the very body the engine sends (its system prompt, tool list and cache marks, taken from the
history of one engine turn), so that both pay the same for the server and the transfer and the ratio
is the engine's own work.
The engine reads both streams as the JSON objects the SDK decodes (`Stream[object]`), not as the SDK's
typed events (`create(stream=True)`), which saves the SDK's work of building each event's model. So that
the engine's own work still shows, a second raw client iterates that same untyped stream (`raw
untyped`), and each protocol's rows give the ratio against both.
The last table gives the process CPU time of a turn (the wire server's share only with
`--server-in-process`, the same for all): on a shared machine it is steadier than the wall clock.
"""

from __future__ import annotations

import contextlib
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the wire server lives with the tests

import anthropic  # noqa: E402
import openai  # noqa: E402

import mewrk_jupyter as mw  # noqa: E402
from mewrk_jupyter.engine import session as session_module  # noqa: E402
from tests.providers.wire import WireServer, anthropic_reply, anthropic_text, chat_reply  # noqa: E402

TOKENS = 2000
# Rounds: one round's engine / raw ratio varies by about ±20 % on a shared machine, so that the median of
# 40 rounds still moved by ±0.06 from one run to the next.
REPEAT = 100
WARMUP = 2
WORDS = [f" w{i % 97}" for i in range(TOKENS)]  # one streamed delta per token
REPLY = "".join(WORDS)
QUESTION = "Write a long answer."


def anthropic_stream():
    """The Anthropic Messages reply: 2,000 text deltas."""
    return anthropic_reply(anthropic_text(REPLY, chunks=WORDS), model="claude-bench")


def chat_stream():
    """The Chat Completions reply: 2,000 content chunks."""
    return chat_reply(REPLY, content_chunks=WORDS, model="gpt-bench")


def _timed(start: Callable[[], Any], is_text: Callable[[Any], bool]) -> tuple[float, float, float]:
    """Time to the first text event, to the end of the stream that `start()` opens, and its CPU time."""
    c0 = time.process_time()
    t0 = time.perf_counter()
    first = None
    for event in start():
        if first is None and is_text(event):
            first = time.perf_counter() - t0
    return first, time.perf_counter() - t0, time.process_time() - c0


REPLIES = {"anthropic": anthropic_stream, "chat": chat_stream}


class VendorProcess:
    """The wire server in a process of its own, told which reply to give next on its standard input."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, __file__, "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        assert self._process.stdout is not None
        self.url = self._process.stdout.readline().strip()
        self.openai_base_url = self.url + "/v1"

    def next_reply(self, name: str) -> None:
        """Queue the reply `name` (a key of REPLIES) for the next request."""
        assert self._process.stdin is not None and self._process.stdout is not None
        self._process.stdin.write(name + "\n")
        self._process.stdin.flush()
        if self._process.stdout.readline().strip() != "queued":
            raise RuntimeError("the wire server's process ended")

    def close(self) -> None:
        assert self._process.stdin is not None
        self._process.stdin.close()
        self._process.wait(timeout=10)


class VendorThread:
    """The wire server on a thread of this process (`--server-in-process`)."""

    def __init__(self) -> None:
        self._server = WireServer().start()
        self.url = self._server.url
        self.openai_base_url = self._server.openai_base_url

    def next_reply(self, name: str) -> None:
        """Queue the reply `name` (a key of REPLIES) for the next request."""
        self._server.enqueue(REPLIES[name]())

    def close(self) -> None:
        self._server.stop()


Vendor = VendorProcess | VendorThread


def serve() -> None:
    """The wire server's process: queues the reply named on each line of its input, until the input ends."""
    with WireServer() as server:
        print(server.url, flush=True)
        for line in sys.stdin:
            # The requests it recorded are of no use here: kept, they would grow its heap, and with it the
            # pauses of its garbage collector in the middle of later replies.
            server.clear()
            server.enqueue(REPLIES[line.strip()]())
            print("queued", flush=True)


def engine_body(server: Vendor, model: str, reply: str) -> dict[str, Any]:
    """The body a new session's send sends, as its history recorded it (without `stream`)."""
    session_module.forget_open_sessions()
    s = mw.Session.new(model=model, title="bench")
    server.next_reply(reply)
    s.send(QUESTION, wait=True)
    return s.history[-1].request


def raw_anthropic(server: Vendor, body: dict[str, Any]) -> Callable[[], tuple[float, float, float]]:
    """One client, as an SDK user would keep it; returns a function timing one streamed reply."""
    client = anthropic.Anthropic(base_url=server.url, api_key="bench", max_retries=0)

    def once() -> tuple[float, float, float]:
        server.next_reply("anthropic")
        return _timed(
            lambda: client.messages.create(**body, stream=True),
            lambda e: e.type == "content_block_delta" and e.delta.type == "text_delta",
        )

    return once


def raw_chat(server: Vendor, body: dict[str, Any]) -> Callable[[], tuple[float, float, float]]:
    """One OpenAI client; returns a function timing one streamed chat completion."""
    client = openai.OpenAI(base_url=server.openai_base_url, api_key="bench", max_retries=0)
    body = {k: v for k, v in body.items() if k != "stream_options"}

    def once() -> tuple[float, float, float]:
        server.next_reply("chat")
        return _timed(
            lambda: client.chat.completions.create(
                **body, stream=True, stream_options={"include_usage": True}
            ),
            lambda c: bool(c.choices and c.choices[0].delta.content),
        )

    return once


def raw_untyped(
    server: Vendor,
    client: anthropic.Anthropic | openai.OpenAI,
    path: str,
    body: dict[str, Any],
    reply: str,
    is_text: Callable[[Any], bool],
) -> Callable[[], tuple[float, float, float]]:
    """A raw client reading the stream as the engine does: the JSON objects the SDK decodes."""
    stream_cls = (
        anthropic.Stream[object] if isinstance(client, anthropic.Anthropic) else openai.Stream[object]
    )

    def once() -> tuple[float, float, float]:
        server.next_reply(reply)
        return _timed(
            lambda: client.post(
                path, body={**body, "stream": True}, cast_to=object, stream=True, stream_cls=stream_cls
            ),
            is_text,
        )

    return once


def reply_text(event: Any) -> bool:
    """Whether a session event brings reply text: the first token comes in the reply card it opens."""
    if event.kind == "card_added":
        return event.card.kind == "model_reply"
    return event.kind == "text_delta"


def engine(server: Vendor, model: str, reply: str) -> Callable[[], tuple[float, float, float]]:
    """A new session per turn (the same request size each time); returns a function timing one send."""

    def once() -> tuple[float, float, float]:
        session_module.forget_open_sessions()
        s = mw.Session.new(model=model, title="bench")
        server.next_reply(reply)
        first: list[float] = []
        s.subscribe(lambda e: first or not reply_text(e) or first.append(time.perf_counter()))
        c0 = time.process_time()
        t0 = time.perf_counter()
        s.send(QUESTION, wait=True)
        total = time.perf_counter() - t0
        cpu = time.process_time() - c0
        if s.cards[-1].text != REPLY:
            raise RuntimeError("the engine did not receive the whole reply")
        return first[0] - t0, total, cpu

    return once


def measure(contenders: dict[str, Callable[[], tuple[float, float, float]]]) -> dict[str, float]:
    """Each contender's turn once a round, the order rotated every round, so that all see the same
    machine; medians in ms, and for each raw contender the median of each round's engine / raw ratio
    (what drifts on a shared machine between rounds cancels out in the round)."""
    names = list(contenders)
    samples: dict[str, list[float]] = {
        f"{name} {what}": [] for name in names for what in ("ttft", "total", "cpu")
    }
    ratios: dict[str, list[float]] = {}
    for i in range(WARMUP + REPEAT):
        order = names[i % len(names) :] + names[: i % len(names)]
        turn = {name: contenders[name]() for name in order}
        if i < WARMUP:
            continue
        for n, what in enumerate(("ttft", "total", "cpu")):
            for name in names:
                samples[f"{name} {what}"].append(turn[name][n])
                if name != "engine":
                    ratios.setdefault(f"paired {name} {what}", []).append(turn["engine"][n] / turn[name][n])
    medians = {name: statistics.median(values) * 1000 for name, values in samples.items()}
    return medians | {name: statistics.median(values) for name, values in ratios.items()}


def configure(workspace: Path, server: Vendor | WireServer) -> None:
    """llm/ files pointing both protocols at the local server."""
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "anthropic.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {server.url}\napi_key: ${{BENCH_KEY}}\n"
        "models:\n  claude-bench: {context_window: 200000, max_tokens: 4096}\n"
    )
    (llm / "compat.yaml").write_text(
        f"protocol: openai-chat\nbase_url: {server.openai_base_url}\napi_key: ${{BENCH_KEY}}\n"
        "models:\n  gpt-bench: {context_window: 128000}\n"
    )


def main() -> None:
    os.environ["BENCH_KEY"] = "bench"
    rows = {}
    in_process = "--server-in-process" in sys.argv[1:]
    server: Vendor = VendorThread() if in_process else VendorProcess()
    with tempfile.TemporaryDirectory() as tmp, contextlib.closing(server):
        os.chdir(tmp)
        os.environ["HOME"] = tmp
        os.environ.pop("MEWRK_HOME", None)
        os.environ["MEWRK_USER_CONFIG"] = str(Path(tmp) / "person-config")  # the trust below stays here
        configure(Path(tmp), server)
        mw.trust(tmp)  # the bench wrote these vendor files
        claude, gpt = "anthropic/claude-bench", "compat/gpt-bench"
        body = engine_body(server, claude, "anthropic")
        rows["Anthropic Messages"] = measure(
            {
                "raw": raw_anthropic(server, body),
                "raw untyped": raw_untyped(
                    server,
                    anthropic.Anthropic(base_url=server.url, api_key="bench", max_retries=0),
                    "/v1/messages",
                    body,
                    "anthropic",
                    lambda e: e["type"] == "content_block_delta" and e["delta"]["type"] == "text_delta",
                ),
                "engine": engine(server, claude, "anthropic"),
            }
        )
        body = engine_body(server, gpt, "chat")
        rows["OpenAI Chat Completions"] = measure(
            {
                "raw": raw_chat(server, body),
                "raw untyped": raw_untyped(
                    server,
                    openai.OpenAI(base_url=server.openai_base_url, api_key="bench", max_retries=0),
                    "/chat/completions",
                    body,
                    "chat",
                    lambda c: bool(c["choices"] and c["choices"][0]["delta"].get("content")),
                ),
                "engine": engine(server, gpt, "chat"),
            }
        )
    print(
        f"mewrk_jupyter engine overhead · Python {sys.version.split()[0]} · anthropic {anthropic.__version__}"
        f" · openai {openai.__version__} · {TOKENS:,} streamed tokens · median of {REPEAT} pairs"
    )
    where = "on a thread of this process" if in_process else "in a process of its own, as a vendor's is"
    print(f"the wire server runs {where}")
    print("ratio: of the two medians · paired: the median of each round's engine / raw (steadier when")
    print("the machine's load drifts, as each round runs back to back). raw: the SDK's typed events, as")
    print("create(stream=True) gives them; raw untyped: the JSON objects the SDK decodes, read as the engine")
    print("reads them, so that row is the engine's own work\n")
    head = ("raw", "engine", "ratio", "paired")
    for what, title in (
        ("ttft", "time to first token"),
        ("total", "whole turn"),
        ("cpu", "CPU time per turn"),
    ):
        print(f"{title:36}" + "".join(f"{h:>12}" for h in head))
        for name, r in rows.items():
            for raw in ("raw", "raw untyped"):
                if f"{raw} {what}" not in r:
                    continue
                cells = (
                    f"{r[f'{raw} {what}']:.1f} ms",
                    f"{r[f'engine {what}']:.1f} ms",
                    f"{r[f'engine {what}'] / r[f'{raw} {what}']:.2f}",
                    f"{r[f'paired {raw} {what}']:.2f}",
                )
                label = name if raw == "raw" else "  against raw untyped"
                print(f"  {label:34}" + "".join(f"{c:>12}" for c in cells))


if __name__ == "__main__":
    serve() if sys.argv[1:] == ["--serve"] else main()
