"""The forms a known secret takes when a command or code prints it encoded, as regular expressions.

A form is the secret as it is (or escaped for JSON, Python or a URL), reversed, rot13, hexadecimal,
base64 or base32 at every alignment in a larger blob, or its characters apart by a separator; each may
be broken over lines, as `base64` wraps at 76 columns, `xxd -p` at 60 and `fold` anywhere. A secret of
24 characters or more is also found by any long enough piece of it (`windows`). The expressions are
RE2's (no backtracking), which finds all of them at once in linear time.
"""

from __future__ import annotations

import base64
import codecs
import json
import re
from collections.abc import Callable, Iterator

# Characters a URL leaves as they are: a secret of only these has no escaped form of its own.
_UNRESERVED = re.compile(r"[A-Za-z0-9._~-]*")
# Between the characters of a form: a line break (`\r\n` too) or none.
_BREAK = r"\s{0,2}"
# Between hexadecimal pairs: what `xxd -p`, `od -An -tx1`, `bytes.hex(':')`, `\x73\x6b`, `0x73, 0x6b`
# and `%73%6B` put there.
_HEX_APART = r"[\s\\x0:,;%]{0,4}"
# Between spaced-out characters (`s k - a n t`, `['s', 'k', …]`, one a line): blanks and signs.
_SPACED_APART = r"[^0-9A-Za-z]{1,6}"
# A blank of a secret as it may be printed: as it is, another blank, escaped (JSON's \n or \u000b,
# Python's \x0c, a URL's %0A or +) or left out.
_BLANK = r"\s|\\[nrtfv]|\\x[0-9A-Fa-f]{2}|\\u[0-9A-Fa-f]{4}|\+|%[0-9A-Fa-f]{2}"
# A piece this long of a secret is itself a secret: random characters, 16 of them are ~90 bits.
PIECE_CHARS = 16
# Secrets shorter than this are not looked for in pieces: half of one would be too short to be unique.
MIN_PIECED_CHARS = 24
# A long secret (a key file) is looked for in at most this many pieces, spread evenly over it.
MAX_PIECES = 128
# A longer secret (a key file) is looked for as it is, reversed and in pieces, not encoded: the forms of
# every chunk of it would make an expression too large for RE2's automaton to stay fast.
MAX_ENCODED_CHARS = 256
# A piece of a file with a run of this many letters of one case holds a word: its boilerplate
# (`"type":"service_account"`) that ordinary text may quote; a key's run is random, and kept.
_WORDY = re.compile(r"[a-z]{5}|[A-Z]{5}")
# A run of letters that may be a word (one with two vowels or more, a third of it, is taken for one).
_WORD = re.compile(r"[A-Z]?[a-z]{4,}|[A-Z]{5,}")


def forms(secret: str) -> list[str]:
    """The expressions of every form of `secret`, exact ones first."""
    found = [_escaped(secret), _turned(secret[::-1])]
    if len(secret) > MAX_ENCODED_CHARS:
        return found
    found.append(_turned(codecs.encode(secret, "rot13")))
    found.append(_SPACED_APART.join(re.escape(c) for c in secret if not c.isspace()))
    # An encoding is of the secret's bytes as they are, line breaks included.
    data = secret.encode()
    found.append("(?i:" + _HEX_APART.join(f"{byte:02x}" for byte in data) + ")")
    found += [_BREAK.join(map(_base64, core.decode())) for core in _cores(data, base64.b64encode, 6, 3)]
    found += ["(?i:" + _BREAK.join(core.decode()) + ")" for core in _cores(data, base64.b32encode, 5, 5)]
    return list(dict.fromkeys(found))


def _turned(text: str) -> str:
    """The secret reversed or rot13, as it is but for its blanks."""
    return _BREAK.join(_blank(char) if char.isspace() else re.escape(char) for char in text)


def windows(secret: str) -> list[tuple[str, int]]:
    """The pieces of `secret` that find it when it is printed in parts, with where each starts: every run
    of PIECE_CHARS (half, for a secret under 32), or MAX_PIECES of them spread evenly over a long one;
    never one with a blank or of fewer than 4 different characters, nor one holding a word in a file."""
    if len(secret) < MIN_PIECED_CHARS or _worded(secret):
        return []
    size = min(PIECE_CHARS, len(secret) // 2)
    starts = range(len(secret) - size + 1)
    step = -(-len(starts) // MAX_PIECES)
    # A key is random, and any run of it a secret; a file (lines, or long) also holds words.
    wordy = len(secret) > MAX_ENCODED_CHARS or any(c.isspace() for c in secret)
    pieces = [(secret[i : i + size], i) for i in starts[::step]]
    return [(piece, i) for piece, i in pieces if _random(piece) and not (wordy and _WORDY.search(piece))]


def _worded(secret: str) -> bool:
    """Whether `secret` is mostly words (a path, a passphrase): a piece of it is ordinary text too, as
    `/home/me/.cache` is of a token file's path; a key's letters are random, seldom in a word."""
    words = sum(len(run) for run in _WORD.findall(secret) if _vowels(run) >= max(2, len(run) / 3))
    return words * 2 >= len(secret)


def _vowels(run: str) -> int:
    return sum(char in "aeiouyAEIOUY" for char in run)


def _random(piece: str) -> bool:
    return len(set(piece)) >= 4 and not any(c.isspace() for c in piece)


def _escaped(secret: str) -> str:
    """The secret with each character as it is or as JSON, Python or a URL escapes it."""
    if _UNRESERVED.fullmatch(secret):
        return _BREAK.join(map(re.escape, secret))
    return _BREAK.join(_blank(char) if char.isspace() else _escaped_char(char) for char in secret)


def _blank(char: str) -> str:
    """A blank of the secret as it may be printed (RE2's \\s is only ASCII's: the blank itself too)."""
    return f"(?:{re.escape(char)}|{_BLANK})*"


def _escaped_char(char: str) -> str:
    if _UNRESERVED.fullmatch(char):
        return re.escape(char)
    spelled = {char, json.dumps(char)[1:-1], json.dumps(char, ensure_ascii=False)[1:-1], repr(char)[1:-1]}
    if char in "'\"":
        spelled.add("\\" + char)  # a quote inside a Python string of the same quotes
    spelled.add("".join(f"%{byte:02X}" for byte in char.encode()))
    spelled.add("".join(f"%{byte:02x}" for byte in char.encode()))
    return "(?:" + "|".join(re.escape(s) for s in sorted(spelled, key=len, reverse=True)) + ")"


def _cores(data: bytes, encode: Callable[[bytes], bytes], bits: int, group: int) -> Iterator[bytes]:
    """The characters of the encoding of `data` that stay the same whatever bytes surround it, for each
    of the `group` alignments it may have in a larger blob."""
    for before in range(group):
        encoded = encode(b"\0" * before + data + b"\0" * group)
        first = -(-8 * before // bits)  # the first character made of the data's bits alone
        end = 8 * (before + len(data)) // bits
        yield encoded[first:end]


def _base64(char: str) -> str:
    """A character of base64 in the standard or the URL-safe alphabet."""
    return {"+": "[+-]", "/": "[/_]"}.get(char, char)
