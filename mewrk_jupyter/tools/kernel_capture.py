"""What a `python` call printed, showed and drew: stdout and stderr of its own thread, what it showed with
IPython's `display()` (in order with stdout), and the images it made."""

from __future__ import annotations

import base64
import io
import struct
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from ..cards.models import Attachment

_LOCK = threading.Lock()
PNG = b"\x89PNG\r\n\x1a\n"
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


@dataclass
class Display:
    """One `display()` of the call: how much it had printed by then, the mime bundle shown, and the id of
    the object formatted for it (None for a bundle published as it was)."""

    at: int
    data: dict[str, Any]
    shown: int | None = None


@dataclass
class Displays:
    """What a thread showed while captured, in order."""

    out: io.StringIO
    shown: list[Display] = field(default_factory=list)
    formatting: int | None = None  # the object display() formats now, for the bundle it publishes next

    def showed(self, obj: Any) -> bool:
        """Whether `obj` was shown with an image (a figure displayed is not noted a second time)."""
        return any(d.shown == id(obj) and "image/png" in d.data for d in self.shown)


_DISPLAYS: dict[int, Displays] = {}  # by thread
_ROUTED: list[_Routed] = []


class _Routed:
    """Stands in for a method of the shell's (its display publisher's `publish`, its formatter's `format`):
    a thread being captured calls `take` instead, every other thread the method (the person's cells)."""

    def __init__(self, owner: Any, name: str, take: Callable[..., Any]) -> None:
        self.owner, self.name, self.take = owner, name, take
        self.method = getattr(owner, name)
        self.own = vars(owner).get(name)  # a stand-in already on the instance, put back after
        setattr(owner, name, self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        displays = _DISPLAYS.get(threading.get_ident())
        if displays is None:
            return self.method(*args, **kwargs)
        return self.take(displays, self.method, *args, **kwargs)

    def restore(self) -> None:
        if vars(self.owner).get(self.name) is not self:
            return  # replaced since: that is not ours to undo
        if self.own is None:
            delattr(self.owner, self.name)  # the class's own method again
        else:
            setattr(self.owner, self.name, self.own)


def _format(displays: Displays, method: Callable[..., Any], obj: Any, *args: Any, **kwargs: Any) -> Any:
    displays.formatting = id(obj)
    formatted = method(obj, *args, **kwargs)
    if not (isinstance(formatted, tuple) and formatted and formatted[0]):
        displays.formatting = None  # nothing to publish (its `_ipython_display_` showed something else)
    return formatted


def _publish(
    displays: Displays, _method: Callable[..., Any], data: Any = None, metadata: Any = None, **_kwargs: Any
) -> None:
    """Keep the bundle for the call's result instead of sending it to the notebook."""
    if isinstance(data, dict) and data:
        displays.shown.append(Display(len(displays.out.getvalue()), dict(data), displays.formatting))
    displays.formatting = None


def _shell() -> Any:
    """The IPython shell `display()` publishes through, or None (display() then prints)."""
    if "IPython" not in sys.modules:
        return None
    from IPython.core.interactiveshell import InteractiveShell

    return InteractiveShell.instance() if InteractiveShell.initialized() else None


@contextmanager
def captured_displays(out: io.StringIO) -> Iterator[Displays]:
    """Capture what this thread shows with `display()` while the block runs, each noted with where `out`
    (its captured stdout) stood; other threads' displays reach the notebook as before."""
    me = threading.get_ident()
    displays = Displays(out)
    with _LOCK:
        shell = _shell()
        if not _ROUTED and shell is not None and shell.display_pub is not None:
            _ROUTED.append(_Routed(shell.display_pub, "publish", _publish))
            _ROUTED.append(_Routed(shell.display_formatter, "format", _format))
        _DISPLAYS[me] = displays
    try:
        yield displays
    finally:
        with _LOCK:
            _DISPLAYS.pop(me, None)
            if not _DISPLAYS:
                for routed in _ROUTED:
                    routed.restore()
                _ROUTED.clear()


def _png_bytes(value: Any) -> bytes | None:
    """A bundle's `image/png` as bytes (IPython gives it in base64, or raw); None when it is not a PNG."""
    try:
        data = value if isinstance(value, bytes) and value.startswith(PNG) else base64.b64decode(value)
    except (TypeError, ValueError):
        return None
    return data if data.startswith(PNG) else None


def _png_size(data: bytes) -> str:
    if len(data) < 24:
        return "size unknown"
    width, height = struct.unpack(">II", data[16:24])  # the IHDR chunk, first after the signature
    return f"{width} × {height} pixels"


class Kept:
    """The images of a call, numbered in the order they were found, at most MAX_IMAGES of them kept."""

    def __init__(self) -> None:
        self.images: list[Attachment] = []
        self.found = 0

    @property
    def full(self) -> bool:
        return len(self.images) >= MAX_IMAGES

    def note(self, what: str, data: bytes | None, size: str) -> str:
        """Keep the PNG `data` when there is room; the note of it that the result's text carries."""
        self.found += 1
        if data is not None and not self.full and len(data) <= MAX_IMAGE_BYTES:
            self.images.append(_image(f"output-{self.found}.png", data))
            return f"[image: {what}, {size}; shown to the person on the card]"
        return f"[image: {what}, {size}; not kept]"


def printed_and_shown(out: str, displays: Displays, kept: Kept) -> list[str]:
    """What the call printed, with what it showed put where it showed it."""
    parts: list[str] = []
    printed = 0
    for display in displays.shown:
        parts += _printed(out[printed : display.at])
        parts.append(_display_text(display, kept))
        printed = display.at
    return parts + _printed(out[printed:])


def _printed(text: str) -> list[str]:
    return [f"[stdout]\n{text.rstrip()}"] if text.strip() else []


def _display_text(display: Display, kept: Kept) -> str:
    """One display as the result's text reads it: its text/plain, and a note of its PNG (kept as an image
    of the card); a bundle with neither names what it held."""
    lines = ["[display]"]
    text = display.data.get("text/plain")
    if isinstance(text, str) and text.strip():
        lines.append(text.rstrip())
    png = _png_bytes(display.data["image/png"]) if "image/png" in display.data else None
    if png is not None:
        lines.append(kept.note("displayed", png, _png_size(png)))
    if len(lines) == 1:
        return f"[display: {', '.join(sorted(display.data))}; not shown]"
    return "\n".join(lines)


def rich_outputs(value: Any, figures: set[int], kept: Kept, displays: Displays | None = None) -> list[str]:
    """The images a call made — figures it opened (but did not display), and a result that is a figure or
    an image — kept as PNG attachments for its card, and a note of each, which a model without vision
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
    return [
        kept.note(what, None if kept.full else _png_of(obj), _size_of(obj))
        for what, obj in found
        if displays is None or not displays.showed(obj)
    ]
