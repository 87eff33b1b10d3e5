"""An object of the kernel as a card can carry it: a DataFrame as a bounded Markdown table with its shape
and dtypes, an array's shape, dtype and preview, a figure or an image as a PNG attachment, an exception
with its traceback, anything else as its text — each cut with a note saying what was left out.

Each library renders its own objects (`DataFrame.to_markdown`, `numpy.array2string`, `Figure.savefig`,
`Image.save`); none of them is imported here unless the object comes from it, so a kernel without pandas
or matplotlib loads nothing. `to_markdown` needs `tabulate` (the `notebook` extra): without it a table
goes as pandas' plain text.
"""

from __future__ import annotations

import base64
import io
import sys
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..cards.models import Attachment, UserInput
from .assembly.attachments import attachments_for_message

MAX_ROWS = 20
MAX_COLUMNS = 20
MAX_TEXT_CHARS = 20_000
MAX_CELL_CHARS = 200  # a table's value longer than this is cut, so that a table of long texts stays bounded
ARRAY_EDGE = 3  # items shown at each end of an array's axes


@dataclass
class Representation:
    """What a card carries of an object: Markdown for the model and the person, and images."""

    text: str
    attachments: list[Attachment] = field(default_factory=list)


def _module(obj: Any) -> str:
    return type(obj).__module__ or ""


def _fenced(text: str, language: str = "") -> str:
    fence = "````" if "```" in text else "```"
    return f"{fence}{language}\n{text.rstrip()}\n{fence}"


def cut(text: str, limit: int = MAX_TEXT_CHARS) -> str:
    """Text up to `limit` characters, with a note of how long it was when it is cut."""
    if len(text) <= limit:
        return text
    return f"{text[:limit]}\n\n[cut: {len(text):,} characters in all, the first {limit:,} shown]"


def _table(frame: Any) -> str:
    """A DataFrame as Markdown (tabulate), or pandas' own plain text where tabulate is not installed."""
    try:
        return str(frame.to_markdown())
    except ImportError:  # pandas needs the optional `tabulate` for Markdown
        return _fenced(frame.to_string())


def _short_values(frame: Any) -> tuple[Any, int]:
    """The frame with each text value longer than MAX_CELL_CHARS cut (only text and object columns can
    hold one), and how many were cut."""
    cut_values = 0

    def short(value: Any) -> Any:
        nonlocal cut_values
        if value is None or isinstance(value, (int, float)):
            return value
        text = str(value)
        if len(text) <= MAX_CELL_CHARS:
            return value
        cut_values += 1
        return text[:MAX_CELL_CHARS] + "…"

    shortened = frame.copy()
    for at, dtype in enumerate(frame.dtypes):
        if dtype.kind in "OSU" or str(dtype) in ("string", "str"):
            shortened.isetitem(at, frame.iloc[:, at].map(short).astype(object))
    return shortened, cut_values


def _left_out(rows: int, columns: int, cut_values: int = 0) -> str:
    parts = []
    if rows:
        parts.append(f"{rows:,} more row{'s' * (rows != 1)}")
    if columns:
        parts.append(f"{columns:,} more column{'s' * (columns != 1)}")
    said = f"\n\n_Not shown: {' and '.join(parts)}._" if parts else ""
    if cut_values:
        said += (
            f"\n\n_Values longer than {MAX_CELL_CHARS} characters are cut to their first {MAX_CELL_CHARS} "
            f"({cut_values:,} value{'s' * (cut_values != 1)})._"
        )
    return said


def _dataframe(name: str, frame: Any) -> Representation:
    rows, columns = frame.shape
    shown, cut_values = _short_values(frame.iloc[:MAX_ROWS, :MAX_COLUMNS])
    dtypes = ", ".join(f"`{column}` {dtype}" for column, dtype in frame.dtypes.items())
    head = f"`{name}`: pandas DataFrame, {rows:,} rows × {columns:,} columns\n\ndtypes: {cut(dtypes, 2_000)}"
    left_out = _left_out(rows - len(shown), columns - shown.shape[1], cut_values)
    return Representation(f"{head}\n\n{cut(_table(shown))}{left_out}")


def _series(name: str, series: Any) -> Representation:
    shown, cut_values = _short_values(series.iloc[:MAX_ROWS].to_frame())
    head = f"`{name}`: pandas Series `{series.name}`, {len(series):,} values, dtype {series.dtype}"
    left_out = _left_out(len(series) - len(shown), 0, cut_values)
    return Representation(f"{head}\n\n{cut(_table(shown))}{left_out}")


def _array(name: str, array: Any) -> Representation:
    import numpy  # the object is numpy's, so numpy is there

    preview = numpy.array2string(array, threshold=MAX_ROWS * MAX_COLUMNS, edgeitems=ARRAY_EDGE)
    shape = " × ".join(str(n) for n in array.shape) or "a scalar"
    return Representation(
        f"`{name}`: NumPy array, shape {shape}, dtype {array.dtype}\n\n{_fenced(cut(preview))}"
    )


def _png(name: str, data: bytes) -> Attachment:
    return Attachment(
        name=f"{name}.png", media_type="image/png", data=base64.b64encode(data).decode(), size=len(data)
    )


def _figure(name: str, figure: Any) -> Representation:
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", bbox_inches="tight")
    return Representation(
        f"`{name}`: a matplotlib figure (attached as an image)", [_png(name, buffer.getvalue())]
    )


def _image(name: str, image: Any) -> Representation:
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    width, height = image.size
    said = f"`{name}`: an image, {width} × {height} pixels, mode {image.mode} (attached as PNG)"
    return Representation(said, [_png(name, buffer.getvalue())])


def _exception(name: str, error: BaseException) -> Representation:
    text = "".join(traceback.format_exception(type(error), error, error.__traceback__))
    return Representation(f"`{name}`: {type(error).__name__}\n\n{_fenced(cut(text))}")


def is_figure(obj: Any) -> bool:
    """Whether `obj` is a matplotlib figure (or something that saves itself like one)."""
    return _module(obj).startswith("matplotlib") and callable(getattr(obj, "savefig", None))


def is_image(obj: Any) -> bool:
    """Whether `obj` is a PIL image."""
    return _module(obj).startswith("PIL") and callable(getattr(obj, "save", None)) and hasattr(obj, "size")


def represent(obj: Any, name: str) -> Representation:
    """How a card carries `obj`, called `name` (the expression it was read from)."""
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(obj, pandas.DataFrame):
        return _dataframe(name, obj)
    if pandas is not None and isinstance(obj, pandas.Series):
        return _series(name, obj)
    numpy = sys.modules.get("numpy")
    if numpy is not None and isinstance(obj, numpy.ndarray):
        return _array(name, obj)
    if is_figure(obj):
        return _figure(name, obj)
    if _module(obj).startswith("matplotlib") and is_figure(getattr(obj, "figure", None)):
        return _figure(name, obj.figure)  # an Axes or an artist: the figure it is drawn on
    if is_image(obj):
        return _image(name, obj)
    if isinstance(obj, BaseException):
        return _exception(name, obj)
    if isinstance(obj, str):
        return Representation(f"`{name}`:\n\n{_fenced(cut(obj))}")
    return Representation(f"`{name}`: {type(obj).__name__}\n\n{_fenced(cut(repr(obj)))}")


def attached_input(obj: Any, name: str, redact: Callable[[str], str]) -> UserInput:
    """A user input carrying `obj` as `represent` shows it, labelled `name`; `redact` hides a known secret
    in its text on the card."""
    shown = represent(obj, name)
    files = attachments_for_message(shown.attachments)
    return UserInput(text=redact(shown.text), attachments=files, attached=name)
