"""Protocol claude-agent against the Anthropic adapter: the same replies from the same local wire server.

Run: python benchmarks/bench_claude_agent.py [--turns N]
Each turn is a message whose reply is 200 words; a vendor of `anthropic-messages` (the official SDK in
this process) and one of `claude-agent` (the Claude Code CLI, npm's when `npm ci` ran in tests/claude-code/, else the
SDK's own) answer it from the test suite's wire server, in a workspace of their own. Printed: the median
wall time of a turn on each, their ratio, and the time to the first token on claude-agent (most of a
turn there is the CLI's start). Figures from one run; nothing is asserted.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import mewrk_jupyter as mw  # noqa: E402
from tests.providers.vendors import NPM_CLI, write_vendor  # noqa: E402
from tests.providers.wire import WireServer, anthropic_reply, anthropic_text  # noqa: E402

WORDS = " ".join(f"word{i}" for i in range(200))


def turns(model: str, server: WireServer, count: int) -> tuple[list[float], list[float]]:
    """Wall seconds of each turn, and seconds to its first streamed text."""
    walls, firsts = [], []
    for n in range(count):
        s = mw.Session.new(model=model, title=f"bench {model}")  # the same request size each turn
        server.enqueue(anthropic_reply(anthropic_text(WORDS, chunks=50)))
        first: list[float] = []
        start = time.perf_counter()

        def seen(event: object, first: list[float] = first) -> None:
            if not first and getattr(event, "kind", None) == "text_delta":
                first.append(time.perf_counter())

        s.subscribe(seen)
        s.send(f"message {n}", wait=True)
        walls.append(time.perf_counter() - start)
        firsts.append((first[0] if first else time.perf_counter()) - start)
    return walls, firsts


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=10)
    args = parser.parse_args()
    server = WireServer().start()
    os.environ["BENCH_KEY"] = "sk-bench"
    models = "  claude-test: {context_window: 200000}\n"
    results = {}
    try:
        for protocol, vendor in (("anthropic-messages", "ant"), ("claude-agent", "cc")):
            with tempfile.TemporaryDirectory() as folder:
                workspace = Path(folder)
                os.chdir(workspace)
                write_vendor(workspace, vendor, protocol, server.url, models, "BENCH_KEY")
                if protocol == "claude-agent" and NPM_CLI.exists():
                    path = workspace / ".mewrk" / "llm" / f"{vendor}.yaml"
                    path.write_text(path.read_text() + f"cli_path: {NPM_CLI}\n")
                    mw.trust(workspace)
                turns(f"{vendor}/claude-test", server, 1)  # warm: the first start of each reads its files
                results[protocol] = turns(f"{vendor}/claude-test", server, args.turns)
    finally:
        server.stop()
    ant, cc = (statistics.median(results[p][0]) * 1000 for p in ("anthropic-messages", "claude-agent"))
    first = statistics.median(results["claude-agent"][1]) * 1000
    cli = "npm's CLI" if NPM_CLI.exists() else "the SDK's own CLI"
    print(f"claude-agent ({cli}) against anthropic-messages · {args.turns} turns of 200 words · medians")
    print(f"  a turn, anthropic-messages   {ant:9.1f} ms")
    print(f"  a turn, claude-agent         {cc:9.1f} ms   ratio {cc / ant:.1f}")
    print(f"  first token, claude-agent    {first:9.1f} ms")


if __name__ == "__main__":
    main()
