"""Order keys: strings that sort cards and leave room for an insert anywhere without renumbering.

A key is a fixed-width base-62 head (appends and prepends step it by one) followed by an optional
fraction that inserts between two neighbours extend. Keys never end in the smallest digit, so there
is always room before any key. Plain string comparison gives the timeline's order.
"""

from __future__ import annotations

DIGITS = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
BASE = len(DIGITS)
HEAD_WIDTH = 8
_MIDDLE = BASE**HEAD_WIDTH // 2


def _encode(n: int) -> str:
    if not 0 < n < BASE**HEAD_WIDTH:
        raise OverflowError("order key head out of range")
    out = []
    for _ in range(HEAD_WIDTH):
        n, r = divmod(n, BASE)
        out.append(DIGITS[r])
    return "".join(reversed(out))


def _decode(head: str) -> int:
    n = 0
    for ch in head:
        n = n * BASE + DIGITS.index(ch)
    return n


def _midpoint(a: str, b: str | None) -> str:
    """A fraction strictly between fractions a and b (b None: no upper bound); a < b, no trailing '0'."""
    if b is not None:
        n = 0
        while n < len(b) and (a[n] if n < len(a) else "0") == b[n]:
            n += 1
        if n > 0:
            return b[:n] + _midpoint(a[n:], b[n:])
    low = DIGITS.index(a[0]) if a else 0
    high = DIGITS.index(b[0]) if b is not None else BASE
    if high - low > 1:
        return DIGITS[(low + high) // 2]
    if b is not None and len(b) > 1:
        return b[:1]
    return DIGITS[low] + _midpoint(a[1:], None)


def key_between(before: str | None, after: str | None) -> str:
    """A key that sorts after `before` and before `after` (None: the timeline's start or end)."""
    if before is not None and after is not None and not before < after:
        raise ValueError(f"order keys out of order: {before!r} !< {after!r}")
    if before is None:
        return _encode(_MIDDLE) if after is None else _encode(_decode(after[:HEAD_WIDTH]) - 1)
    if after is None:
        return _encode(_decode(before[:HEAD_WIDTH]) + 1)
    low, high = _decode(before[:HEAD_WIDTH]), _decode(after[:HEAD_WIDTH])
    if high - low > 1:
        return _encode(low + 1)
    if high - low == 1:
        if len(after) > HEAD_WIDTH:
            return after[:HEAD_WIDTH]
        return before[:HEAD_WIDTH] + _midpoint(before[HEAD_WIDTH:], None)
    return before[:HEAD_WIDTH] + _midpoint(before[HEAD_WIDTH:], after[HEAD_WIDTH:])
