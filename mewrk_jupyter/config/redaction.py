"""Hide known secret values in text before it is stored or sent: each becomes `[redacted]`.

A secret is found as it is and in the forms an attacker's command or code prints it (secret_forms.py):
reversed, rot13, hexadecimal, base64, base32, escaped, spaced out, wrapped over lines, or in pieces.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Collection, Iterable
from typing import Any

import re2

from .secret_forms import forms, windows

REDACTED = "[redacted]"
# Shorter values are left alone: a variable such as `DEBUG_KEY=on` or `TOKEN_TTL=3600` holds a word or a
# number that turns up everywhere, and hiding it would garble ordinary text while protecting nothing.
MIN_SECRET_CHARS = 8
# RE2 builds its automaton lazily within this memory. Five long keys need a few megabytes; twenty need
# more than 64 MB, and out of memory the search falls back to one a thousand times slower.
_MAX_MEMORY = 256 << 20
# Redactors are made again every few seconds and on every change of the environment, mostly of the same
# secrets: the expression of each set is compiled once (some tens of milliseconds).
_COMPILED_SETS = 16


class Redactor:
    """Replaces every occurrence of the known secrets in text or in JSON-like data."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        values = sorted({s for s in secrets if len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True)
        self._pattern: Any = None
        self._pieces: dict[str, list[tuple[str, int]]] = {}
        if values:
            self._pattern, self._pieces = _compiled(tuple(values))

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, text: str) -> str:
        """`text` with every known secret replaced."""
        if self._pattern is None or not text:
            return text
        spans = self._spans(text)
        if not spans:
            return text
        kept = [text[end:start] for (_, end), (start, _) in zip([(0, 0), *spans], spans, strict=False)]
        return REDACTED.join([*kept, text[spans[-1][1] :]])

    def found_in(self, value: Any, skip: Collection[str] = ()) -> bool:
        """Whether a secret appears in any text of `value` (JSON-like data), outside the keys in `skip`."""
        if self._pattern is None:
            return False
        if isinstance(value, str):
            return self._pattern.search(value) is not None
        if isinstance(value, dict):
            return any(k not in skip and self.found_in(v, skip) for k, v in value.items())
        if isinstance(value, list | tuple):
            return any(self.found_in(v, skip) for v in value)
        return False

    def data(self, value: Any, skip: Collection[str] = ()) -> Any:
        """JSON-like data with every text redacted, except under the keys in `skip` (opaque data)."""
        if not self.found_in(value, skip):
            return value
        return self._copy(value, skip)

    def _copy(self, value: Any, skip: Collection[str]) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {k: v if k in skip else self._copy(v, skip) for k, v in value.items()}
        if isinstance(value, list | tuple):
            return [self._copy(v, skip) for v in value]
        return value

    def _spans(self, text: str) -> list[list[int]]:
        """Where the secrets' forms are in `text`, a piece grown to the whole run of its secret, and finds
        that touch merged."""
        spans: list[list[int]] = []
        for found in self._pattern.finditer(text):
            start, end = found.span()
            floor = spans[-1][1] if spans else 0
            for secret, at in self._pieces.get(found.group(), ()):
                start, end = _grown(text, start, end, secret, at, floor)
            if spans and start <= spans[-1][1]:  # a piece grown over the finds after it
                spans[-1][1] = max(spans[-1][1], end)
            else:
                spans.append([start, end])
        return spans


@functools.lru_cache(maxsize=_COMPILED_SETS)
def _compiled(values: tuple[str, ...]) -> tuple[Any, dict[str, list[tuple[str, int]]]]:
    """One expression for every form of every secret (longest secrets first, so that one containing
    another is hidden whole; exact forms before pieces), and where each piece is in its secrets."""
    expressions = [form for value in values for form in forms(value)]
    pieces: dict[str, list[tuple[str, int]]] = {}
    for value in values:
        for piece, start in windows(value):
            pieces.setdefault(piece, []).append((value, start))
    expressions += [re2.escape(piece) for piece in pieces]
    options = re2.Options()
    options.max_mem = _MAX_MEMORY
    options.log_errors = False  # an automaton out of memory falls back to a slower search, still right
    return re2.compile("|".join(dict.fromkeys(expressions)), options), pieces


def _grown(text: str, start: int, end: int, secret: str, at: int, floor: int) -> tuple[int, int]:
    """The span of a piece found at `start:end` (the secret's characters from `at`) grown both ways while
    the text goes on as the secret does (not before `floor`, what was already hidden)."""
    after = len(os.path.commonprefix([text[end : end + len(secret)], secret[at + end - start :]]))
    back = min(at, start - floor)
    before = len(os.path.commonprefix([text[start - back : start][::-1], secret[at - back : at][::-1]]))
    return start - before, end + after
