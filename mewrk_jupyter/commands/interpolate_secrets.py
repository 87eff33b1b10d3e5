"""Whether a value an interpolated `{expression}` meets holds a configured secret.

Redaction recognises a secret only as it is. An expression that reverses, slices, encodes or splits a
key into characters (`{settings['key'][::-1]}`, `{list(map(list, settings.values()))}`) would carry it
past redaction, so the evaluator computes with no value whose text holds one: a string, or a string in
a collection (a few levels down) or in a table's text cells.
"""

from __future__ import annotations

import itertools
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import Any, cast

from ..config.redaction import MIN_SECRET_CHARS

SCAN = 10_000  # items of a collection looked through
_DEPTH = 4  # levels of collections in collections looked into
_COLLECTIONS: tuple[type, ...] = (
    list,
    tuple,
    set,
    frozenset,
    type({}.keys()),
    type({}.values()),
    type({}.items()),
)


def holds_secret(value: Any, secret_in: Callable[[str], bool], depth: int = 0) -> bool:
    """Whether the value's text holds a secret `secret_in` recognises."""
    if isinstance(value, str):
        return len(value) >= MIN_SECRET_CHARS and secret_in(value)
    if isinstance(value, bytes | bytearray):
        return len(value) >= MIN_SECRET_CHARS and secret_in(value.decode("utf-8", "replace"))
    if depth >= _DEPTH:
        return False
    items: Iterable[Any] = ()
    if isinstance(value, dict):
        items = itertools.chain(value.keys(), value.values())
    elif isinstance(value, _COLLECTIONS):
        items = cast(Iterable[Any], value)
    elif isinstance(value, _tables()):
        items = _table_texts(value)
    return any(holds_secret(v, secret_in, depth + 1) for v in itertools.islice(items, SCAN))


def _tables() -> tuple[type, ...]:
    """The classes of tables imported so far: pandas' frames, series and indexes, NumPy's arrays."""
    pandas, numpy = sys.modules.get("pandas"), sys.modules.get("numpy")
    found = (pandas.DataFrame, pandas.Series, pandas.Index) if pandas is not None else ()
    return (*found, numpy.ndarray) if numpy is not None else found


def _table_texts(value: Any) -> Iterator[Any]:
    """The text cells of a table (columns of objects or strings only: numbers hold no secret)."""
    pandas = sys.modules.get("pandas")
    if pandas is not None and isinstance(value, pandas.DataFrame):
        yield from value.columns
        for name in value.columns[:100]:
            yield value[name]
        return
    if getattr(value.dtype, "kind", "") in "OUST":
        flat = value.to_numpy() if hasattr(value, "to_numpy") else value
        yield from flat.ravel()[:SCAN]
