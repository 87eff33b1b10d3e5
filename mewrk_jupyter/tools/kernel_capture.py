"""What a `python` call printed and drew: stdout and stderr of its own thread, and the images it made."""

from __future__ import annotations

import base64
import io
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ..cards.models import Attachment

_LOCK = threading.Lock()
MAX_IMAGES = 4
MAX_IMAGE_BYTES = 5 * 1024 * 1024


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


def _png_of(obj: Any) -> bytes | None:
    """A figure's or an image's PNG bytes; None when it cannot be drawn."""
    buffer = io.BytesIO()
    try:
        if callable(getattr(obj, "savefig", None)):
            obj.savefig(buffer, format="png", bbox_inches="tight")
        else:
            obj.save(buffer, format="PNG")
    except Exception:  # a figure that fails to draw is noted without its image
        return None
    data = buffer.getvalue()
    return data if len(data) <= MAX_IMAGE_BYTES else None


def _image(name: str, data: bytes) -> Attachment:
    return Attachment(name=name, media_type="image/png", data=base64.b64encode(data).decode(), size=len(data))


def rich_outputs(value: Any, figures: set[int]) -> tuple[list[str], list[Attachment]]:
    """The images a call made — figures it opened, and a result that is a figure or an image — as PNG
    attachments for its card (at most MAX_IMAGES), and a note of each, which a model without vision
    input reads instead of the image."""
    found: list[tuple[str, Any]] = []
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is not None:
        found += [(f"matplotlib figure {n}", pyplot.figure(n)) for n in sorted(figures)]
    module = type(value).__module__ or ""
    if module.startswith("PIL") and hasattr(value, "save"):
        found.append((f"the result, an image, mode {getattr(value, 'mode', '?')}", value))
    elif module.startswith("matplotlib") and callable(getattr(value, "savefig", None)) and not figures:
        found.append(("the result, a matplotlib figure", value))
    notes: list[str] = []
    images: list[Attachment] = []
    for i, (what, obj) in enumerate(found, 1):
        data = _png_of(obj) if len(images) < MAX_IMAGES else None
        if data is not None:
            images.append(_image(f"output-{i}.png", data))
        kept = "shown to the person on the card" if data is not None else "not kept"
        notes.append(f"[image: {what}, {_size_of(obj)}; {kept}]")
    return notes, images
