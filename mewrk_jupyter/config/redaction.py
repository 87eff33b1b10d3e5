"""Hide known secret values in text before it is stored or sent: each becomes `[redacted]`."""

from __future__ import annotations

import re
from collections.abc import Collection, Iterable
from typing import Any

REDACTED = "[redacted]"
# Shorter values are left alone: a variable such as `DEBUG_KEY=on` or `TOKEN_TTL=3600` holds a word or a
# number that turns up everywhere, and hiding it would garble ordinary text while protecting nothing.
MIN_SECRET_CHARS = 8


class Redactor:
    """Replaces every occurrence of the known secrets in text or in JSON-like data."""

    def __init__(self, secrets: Iterable[str] = ()) -> None:
        # Longest first, so that a secret that contains another is hidden whole.
        values = sorted({s for s in secrets if len(s) >= MIN_SECRET_CHARS}, key=len, reverse=True)
        self._pattern = re.compile("|".join(map(re.escape, values))) if values else None

    def __bool__(self) -> bool:
        return self._pattern is not None

    def text(self, text: str) -> str:
        """`text` with every known secret replaced."""
        if self._pattern is None or not text:
            return text
        return self._pattern.sub(REDACTED, text)

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
