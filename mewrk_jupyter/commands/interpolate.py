"""`{name}` and `{expression}` in a message typed in a notebook, read from the kernel's namespace.

As in Jupyter AI's `%%ai`: `{df.shape}`, `{In[3]}` (a cell's source), `{Out[3]}` (its result) and
`{Err[3]}` (its error, recorded by the magics) become their text; `{{` and `}}` stand for one brace.
Braces around something that is not an expression of names the namespace holds (a JSON object, a set
literal of undefined names, code in a question) stay as typed, so pasted code is sent as it was.
An expression of known names that fails is refused with a sentence: the person meant it. An expression
reads values and never acts: interpolate_eval.py evaluates it form by form, and interpolate_calls.py
lists what it may call and read.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Callable, Mapping
from typing import Any

from ..cards.models import Interpolation
from ..errors import InvalidInput
from .interpolate_eval import CallRefused, read

# An interpolated value longer than this is cut, with a note saying how long it was.
MAX_VALUE_CHARS = 20_000


class _NotAnExpression(Exception):
    """What the braces hold is not an expression of known names: it stays as typed."""


def _closing(text: str, start: int) -> int | None:
    """The index of the brace that closes the one at `start`, counting nested braces; None if none does."""
    depth = 0
    for i in range(start, len(text)):
        if text[i] == "{":
            depth += 1
        elif text[i] == "}":
            depth -= 1
            if depth == 0:
                return i
    return None


def _free_names(tree: ast.AST) -> set[str]:
    """Names an expression reads that it does not bind itself (in a comprehension or a lambda)."""
    bound = {
        node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store)
    }
    bound |= {arg.arg for node in ast.walk(tree) if isinstance(node, ast.Lambda) for arg in node.args.args}
    read = {
        node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
    }
    return read - bound


def _no_secret(text: str) -> bool:
    """Outside a session no secret is configured."""
    return False


def _value(
    source: str, namespace: Mapping[str, Any], secret_in: Callable[[str], bool], attaching: bool = False
) -> Any:
    """The value of `source` in the namespace; _NotAnExpression when it is not one to evaluate. A failure
    is said for what the value was for: a message's `{source}`, or an object to attach."""
    expression = source.strip()
    if not expression:
        raise _NotAnExpression
    try:
        tree = ast.parse(expression, mode="eval")
    except SyntaxError:
        raise _NotAnExpression from None
    if any(name not in namespace and not hasattr(builtins, name) for name in _free_names(tree)):
        raise _NotAnExpression
    try:
        return read(tree, namespace, secret_in)
    except CallRefused as refused:
        if attaching:
            raise InvalidInput(
                f"`{source}` was not attached: it {refused}, and attach only reads values (it may call "
                "builtins such as `len` and reading methods such as `df.head()`); nothing was added to the "
                "timeline — compute it in a cell and attach the result."
            ) from None
        raise InvalidInput(
            f"`{{{source}}}` was not interpolated: it {refused}, and an expression in a message only reads "
            "values (it may call builtins such as `len` and reading methods such as `df.head()`); nothing "
            "was sent — compute it in a cell and interpolate the result, or write `{{` and `}}` to send "
            "braces as text."
        ) from None
    except Exception as exc:  # whatever the expression raises, the person reads it in one sentence
        if attaching:
            raise InvalidInput(
                f"`{source}` could not be attached ({type(exc).__name__}: {exc}); nothing was added to the "
                "timeline — check the name or the cell number, or run the cell that makes it first."
            ) from None
        raise InvalidInput(
            f"`{{{source}}}` could not be interpolated ({type(exc).__name__}: {exc}); nothing was sent — "
            "fix the expression, or write `{{` and `}}` to send braces as text."
        ) from None


def evaluate(source: str, namespace: Mapping[str, Any], secret_in: Callable[[str], bool] = _no_secret) -> Any:
    """The value of an expression of the namespace's names, to attach; InvalidInput says why there is none.
    `secret_in` says whether text holds a configured secret, which the expression may not compute with."""
    try:
        return _value(source, namespace, secret_in, attaching=True)
    except _NotAnExpression:
        raise InvalidInput(
            f"`{source}` is not a name or an expression of names defined in the kernel; "
            "check its spelling, or run the cell that defines it first."
        ) from None


def as_text(value: Any) -> str:
    """A value as a message carries it: its `str`, cut with a note past MAX_VALUE_CHARS."""
    text = value if isinstance(value, str) else str(value)
    if len(text) <= MAX_VALUE_CHARS:
        return text
    return f"{text[:MAX_VALUE_CHARS]}\n[cut: {len(text):,} characters in all, the first {MAX_VALUE_CHARS:,} shown]"


def interpolate(
    template: str, namespace: Mapping[str, Any], secret_in: Callable[[str], bool] = _no_secret
) -> tuple[str, list[Interpolation]]:
    """The message with each `{expression}` replaced by its text, and what was interpolated, in order;
    `secret_in` as for evaluate."""
    out: list[str] = []
    done: list[Interpolation] = []
    i = 0
    while i < len(template):
        char = template[i]
        if template.startswith("{{", i) or template.startswith("}}", i):
            out.append(char)
            i += 2
            continue
        end = _closing(template, i) if char == "{" else None
        if end is None:
            out.append(char)
            i += 1
            continue
        source = template[i + 1 : end]
        try:
            text = as_text(_value(source, namespace, secret_in))
        except _NotAnExpression:
            out.append(template[i : end + 1])
        else:
            out.append(text)
            done.append(Interpolation(source=source, text=text))
        i = end + 1
    return "".join(out), done
