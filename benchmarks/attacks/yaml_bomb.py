"""A few hundred bytes of nested YAML aliases ("billion laughs") in a vendor file took 10 s and 1.5 GB to
validate; it must be refused quickly, with a sentence naming the file, and the rest must keep working."""

from __future__ import annotations

import random
import time
import tracemalloc
from pathlib import Path

import mewrk_jupyter as mw

from . import as_a_newcomer, write

ATTACK = "nested YAML aliases in a config file cost seconds and gigabytes"
TRIALS = 20
SECONDS = 2.0
MEGABYTES = 64


def bomb(rng: random.Random) -> tuple[str, str]:
    """Where, and levels of aliases each listing the one before `width` times (width ** levels values)."""
    width, levels = rng.randint(6, 12), rng.randint(7, 12)
    lines = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    for level in range(1, levels):
        lines.append(f"l{level}: &l{level} [{', '.join([f'*l{level - 1}'] * width)}]")
    where = rng.choice(["llm/bomb.yaml", "agents/bomb.yaml", "tools/bomb.yaml", "policy/bomb.yaml"])
    prefix = {"llm": "protocol: offline\nmodels:\n  m: {}\n", "agents": "model: offline/echo\n"}
    return where, prefix.get(where.split("/")[0], "") + "\n".join(lines) + "\n"


def trial(folder: Path) -> bool:
    """True when the bomb was refused in bounded time and memory with a sentence, and a session still works."""
    rel, text = bomb(random.Random(str(folder)))
    write(folder, rel, text)
    tracemalloc.start()
    started = time.perf_counter()
    try:
        with as_a_newcomer(folder) as notices:
            session = mw.Session.new()
            session.send("hello")
        seconds = time.perf_counter() - started
        peak = tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()
    said = [n for n in notices if n.startswith(rel)]
    return (
        seconds < SECONDS
        and peak < MEGABYTES
        and len(said) == 1
        and "aliases expand" in said[0]
        and session.cards[-1].kind == "model_reply"
    )
