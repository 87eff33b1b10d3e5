"""The program of a child process that matches grep's RE2 pattern against the lines of text files.

RE2 matches in linear time, but the constant can be large: a pattern that outgrows RE2's DFA memory falls
back to its NFA at microseconds a character, and one search of a long line cannot be interrupted. A thread
left running at the time limit kept a core busy for a minute; a child process can be killed (match_pool).

It is run by its file path and imports only the standard library and RE2, so that it starts in a fraction
of a second. One search is one exchange: the parent writes a `Batch` as a JSON line followed by the bytes
of its files one after the other, and the child answers a `Hits` line. It ends at the end of its input, or
when the parent that started it is gone.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
from typing import Any, TypedDict

import re2


class Batch(TypedDict):
    """What the parent asks: the pattern, and the text files (display name, size in bytes) that follow."""

    pattern: str
    files: list[tuple[str, int]]


class Hits(TypedDict):
    """What the child answers: `path:line:text` for each matching line, in the order of the files."""

    hits: list[str]


def compiled(regex: str) -> Any:
    """`regex` compiled by RE2 without logging to stderr (the parent has said why a pattern cannot run)."""
    options = re2.Options()
    options.log_errors = False
    return re2.compile(regex, options)


def matching_lines(pattern: Any, name: str, data: bytes) -> list[str]:
    """`name:number:line` for every line of the text `data` that `pattern` matches somewhere."""
    text = data.decode("utf-8", errors="replace")
    return [
        f"{name}:{number}:{line}"
        for number, line in enumerate(text.splitlines(), start=1)
        if pattern.search(line)
    ]


def _end_with(parent: int) -> None:
    """Exit as soon as the process that started this one is gone, even in the middle of a search."""
    while os.getppid() == parent:
        time.sleep(1.0)
    os.kill(os.getpid(), signal.SIGKILL)  # the main thread may be inside one long RE2 search


def serve(parent: int) -> None:
    """Answer batches from standard input until it ends."""
    threading.Thread(target=_end_with, args=(parent,), daemon=True).start()
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    patterns: dict[str, Any] = {}
    while line := source.readline():
        batch: Batch = json.loads(line)
        pattern = patterns.get(batch["pattern"])
        if pattern is None:
            patterns.clear()
            pattern = patterns[batch["pattern"]] = compiled(batch["pattern"])
        # All of it is read before any is matched, so that the parent's writing never waits on a search.
        texts = [(name, source.read(size)) for name, size in batch["files"]]
        hits = [hit for name, data in texts for hit in matching_lines(pattern, name, data)]
        answer: Hits = {"hits": hits}
        sink.write(json.dumps(answer).encode() + b"\n")
        sink.flush()


if __name__ == "__main__":
    serve(int(sys.argv[1]))
