"""`inspect {name}`: what a variable of the kernel is, read without calling anything of the person's code
but the libraries' own descriptions (shape, dtypes, head)."""

from __future__ import annotations

import inspect as pyinspect
import sys
from typing import Any

from .base import Redact, ToolFailure, ToolResult, no_redaction, truncate

MAX_REPR = 2_000
HEAD_ROWS = 5
DOC_LINES = 20


def _lookup(name: str, namespace: dict[str, Any]) -> Any:
    """The object at a dotted path such as `df.columns`, read with getattr only."""
    first, *rest = name.strip().split(".")
    if not first.isidentifier() or not all(part.isidentifier() for part in rest):
        raise ToolFailure(f"`{name}` is not a variable name or a dotted path such as `df.columns`.")
    if first not in namespace:
        raise ToolFailure(f"There is no variable `{first}` in the kernel; `python` can list what there is.")
    obj = namespace[first]
    for i, part in enumerate(rest):
        if not hasattr(obj, part):
            raise ToolFailure(f"`{'.'.join([first, *rest[:i]])}` has no attribute `{part}`.")
        obj = getattr(obj, part)
    return obj


def _short(text: str, limit: int = MAX_REPR, redact: Redact = no_redaction) -> str:
    text = redact(text)  # before the cut: a secret cut in two would no longer be recognised
    return text if len(text) <= limit else f"{text[:limit]}… [{len(text):,} characters in all]"


def _pandas_facts(obj: Any, redact: Redact) -> list[str]:
    pandas = sys.modules.get("pandas")
    if pandas is None:
        return []
    if isinstance(obj, pandas.DataFrame):
        columns = ", ".join(f"{column} ({dtype})" for column, dtype in obj.dtypes.items())
        return [
            f"shape: {obj.shape[0]:,} rows × {obj.shape[1]:,} columns",
            f"columns: {_short(columns, redact=redact)}",
            f"head:\n{obj.head(HEAD_ROWS).to_string()}",
        ]
    if isinstance(obj, pandas.Series):
        return [f"length: {len(obj):,}", f"dtype: {obj.dtype}", f"head:\n{obj.head(HEAD_ROWS).to_string()}"]
    return []


def describe(name: str, namespace: dict[str, Any], redact: Redact = no_redaction) -> ToolResult:
    """The type, shape, columns, head, length, signature and docstring of the variable `name` (known
    secrets hidden before anything is cut)."""
    obj = _lookup(name, namespace)
    kind = type(obj)
    lines = [f"name: {name.strip()}", f"type: {kind.__module__}.{kind.__qualname__}"]
    facts = _pandas_facts(obj, redact)
    if not facts and hasattr(obj, "shape") and hasattr(obj, "dtype"):  # a NumPy array, or one like it
        facts = [f"shape: {obj.shape}", f"dtype: {obj.dtype}"]
    lines += facts
    if not facts and hasattr(kind, "__len__"):
        try:
            lines.append(f"length: {len(obj):,}")
        except TypeError:
            pass
    if callable(obj):
        try:
            lines.append(f"signature: {name.strip()}{pyinspect.signature(obj)}")
        except (TypeError, ValueError):
            pass
    doc = pyinspect.getdoc(obj) if callable(obj) or pyinspect.ismodule(obj) else None
    if doc:
        shown = doc.splitlines()[:DOC_LINES]
        lines.append("docstring:\n" + "\n".join(shown) + ("\n…" if len(doc.splitlines()) > DOC_LINES else ""))
    if not facts and not callable(obj) and not pyinspect.ismodule(obj):
        lines.append(f"value: {_short(repr(obj), redact=redact)}")
    return truncate(redact("\n".join(lines)))
