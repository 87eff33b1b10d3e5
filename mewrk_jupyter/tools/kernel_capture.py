"""What a `python` call printed and drew: stdout and stderr of its own thread, and the figures it made."""

from __future__ import annotations

import io
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_LOCK = threading.Lock()


class _ThreadRouter:
    """Stands in for sys.stdout or sys.stderr: a thread being captured writes to its buffer, every other
    thread (the person's own cells among them) to the stream it replaced."""

    def __init__(self, original: Any) -> None:
        self.original = original
        self.buffers: dict[int, io.StringIO] = {}

    def write(self, text: str) -> int:
        buffer = self.buffers.get(threading.get_ident())
        return buffer.write(text) if buffer is not None else self.original.write(text)

    def flush(self) -> None:
        if threading.get_ident() not in self.buffers:
            self.original.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.original, name)


def _router(name: str) -> _ThreadRouter:
    stream = getattr(sys, name)
    if not isinstance(stream, _ThreadRouter):
        stream = _ThreadRouter(stream)
        setattr(sys, name, stream)
    return stream


@contextmanager
def captured_output() -> Iterator[tuple[io.StringIO, io.StringIO]]:
    """Capture what this thread prints to stdout and stderr while the block runs."""
    me = threading.get_ident()
    out, err = io.StringIO(), io.StringIO()
    with _LOCK:
        routers = (_router("stdout"), _router("stderr"))
        routers[0].buffers[me], routers[1].buffers[me] = out, err
    try:
        yield out, err
    finally:
        with _LOCK:
            for name, router in zip(("stdout", "stderr"), routers, strict=True):
                router.buffers.pop(me, None)
                if not router.buffers and getattr(sys, name) is router:
                    setattr(sys, name, router.original)  # nothing captured any more: as it was


def new_figures(before: set[int] | None) -> set[int]:
    """The numbers of matplotlib's open figures (those not in `before`, when given); none without pyplot."""
    pyplot = sys.modules.get("matplotlib.pyplot")
    numbers = set(pyplot.get_fignums()) if pyplot is not None else set()
    return numbers if before is None else numbers - before


def _size_of(obj: Any) -> str:
    size = getattr(obj, "size", None)
    if isinstance(size, tuple) and len(size) == 2:
        return f"{size[0]} × {size[1]} pixels"
    width_height = getattr(obj, "get_size_inches", None)
    dpi = getattr(obj, "dpi", None)
    if callable(width_height) and isinstance(dpi, int | float):
        w, h = width_height()
        return f"{round(w * dpi)} × {round(h * dpi)} pixels"
    return "size unknown"


def rich_outputs(value: Any, figures: set[int]) -> list[str]:
    """Notes of the images a call made: figures it opened, and a result that is a figure or an image.

    The images stay in the kernel; the note says how the person can attach one for the model to see.
    """
    notes = []
    pyplot = sys.modules.get("matplotlib.pyplot")
    for number in sorted(figures):
        figure = pyplot.figure(number) if pyplot is not None else None
        notes.append(
            f"[image: matplotlib figure {number}, {_size_of(figure)}; the person can attach it with "
            f"`%mewrk attach plt.figure({number})`]"
        )
    module = type(value).__module__ or ""
    if module.startswith("PIL") and hasattr(value, "save"):
        notes.append(
            f"[image: the result is an image, {_size_of(value)}, mode {getattr(value, 'mode', '?')}]"
        )
    elif module.startswith("matplotlib") and callable(getattr(value, "savefig", None)) and not figures:
        notes.append(f"[image: the result is a matplotlib figure, {_size_of(value)}]")
    return notes
