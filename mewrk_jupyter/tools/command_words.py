"""The words of a bash command as the shell will see them, for the command reader (command_parts).

A word keeps its text as written and its value once quotes are taken off: `'rm'`, `r''m`, `\\rm` and
`$'rm'` are all `rm`. A word the shell would still change — a parameter (`$x`, `${x}`), a substitution,
a brace expansion (`{a,b}`), a leading `~` — has no value: no rule can know what it turns into.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# Metacharacters end a word (bash's own list, with newline).
METACHARACTERS = " \t\n;&|()<>"
DIGITS = "0123456789"  # not str.isdigit: bash reads only ASCII digits as a stream number
NAME_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
NAME_CHARS = NAME_START + DIGITS
# `$@`, `$?`, `$1` …: parameters bash sets itself (`$_` is a name, read above).
SPECIAL_PARAMETERS = "@*#?-$!" + DIGITS
GLOB = "*?["
# The characters of a command name read as itself: what a program's or builtin's name is made of. A name
# with any other (or none of its value known) is one the reader does not call plain.
PLAIN_NAME = NAME_CHARS + "._+-/:@%,"


class Unknown(Exception):
    """A form the reader does not understand: the caller answers 'cannot tell'."""


@dataclass
class Word:
    """One word: as written, its value once unquoted (None when the shell still expands it), and whether
    an unquoted glob may turn it into other words."""

    raw: str
    value: str | None
    glob: bool = False

    @property
    def seen(self) -> str:
        """Its value, or the text as written when the shell computes it."""
        return self.raw if self.value is None else self.value

    def plain(self) -> str | None:
        """Its value when it is a plain name — no expansion, no glob, no character outside PLAIN_NAME, no
        leading `-` — or None. `[` (the test builtin) is plain: alone, it globs nothing."""
        value = self.value
        if value is None or not value or value[0] == "-":
            return None
        if value == "[" or (not self.glob and all(ch in PLAIN_NAME for ch in value)):
            return value
        return None

    def option_like(self) -> bool:
        """Whether the shell may hand the command an option here (`-x`, `--out=f`, `@argsfile`), or a
        word it computes that may be one."""
        if self.value is None:
            return True
        if self.glob and self.value[:1] in GLOB:
            return True  # `*` may name a file called `--output=x`
        return self.value[:1] in ("-", "@")


@dataclass
class WordBuilder:
    """The word being read: its text as written and its value so far."""

    raw: list[str] = field(default_factory=list)
    value: list[str] | None = field(default_factory=list)
    glob: bool = False
    started: bool = False

    def add(self, written: str, value: str | None) -> None:
        """Append `written`, whose value is `value` (None: the shell computes it)."""
        self.raw.append(written)
        self.started = True
        if value is None or self.value is None:
            self.value = None
        else:
            self.value.append(value)

    def take(self) -> Word | None:
        """The word read, or None when none began; the builder starts over."""
        if not self.started:
            return None
        raw = "".join(self.raw)
        word = Word(raw, None if self.value is None else "".join(self.value), self.glob)
        self.raw, self.value, self.glob, self.started = [], [], False, False
        return word


def single_quoted(text: str, i: int) -> tuple[str, int]:
    """The value of the '…' at `i` and the index after it."""
    close = text.find("'", i + 1)
    if close < 0:
        raise Unknown
    return text[i + 1 : close], close + 1


def ansi_quoted(text: str, i: int) -> tuple[str | None, int]:
    """The value of the $'…' at `i` (None when it holds escapes, not decoded here) and the index after it."""
    close = i + 2
    escaped = False
    while close < len(text) and text[close] != "'":
        if text[close] == "\\":
            escaped = True
            close += 1
        close += 1
    if close >= len(text):
        raise Unknown
    return (None if escaped else text[i + 2 : close]), close + 1


def braced_parameter(text: str, i: int) -> int:
    """The index after the `${NAME}` at `i`; any other `${…}` form (`${x[_]}`, `${!x}`, `${x@P}`,
    `${x:-…}`, `${x:off}`) may evaluate code through arithmetic or prompt expansion, so is not read."""
    close = text.find("}", i + 2)
    name = text[i + 2 : close] if close >= 0 else ""
    if not name or name[0] not in NAME_START or any(ch not in NAME_CHARS for ch in name):
        raise Unknown
    return close + 1


def simple_parameter(text: str, i: int) -> int | None:
    """The index after the `$NAME` or `$?`-style parameter at `i`, or None when `$` is a plain dollar."""
    nxt = text[i + 1 : i + 2]
    if nxt and nxt in SPECIAL_PARAMETERS:
        return i + 2
    if nxt and nxt in NAME_START:
        end = i + 1
        while end < len(text) and text[end] in NAME_CHARS:
            end += 1
        return end
    return None


def unquote_roughly(word: str) -> str:
    """`word` with quotes and backslashes dropped: a guess at what runs, for deny rules only."""
    out = []
    i = 0
    while i < len(word):
        c = word[i]
        if c == "\\" and i + 1 < len(word):
            out.append(word[i + 1])
            i += 2
            continue
        if c == "$" and word[i + 1 : i + 2] == "'":
            close = word.find("'", i + 2)
            while close > 0 and _escaped(word, close):
                close = word.find("'", close + 1)
            if close > 0:
                out.append(ansi_decoded(word[i + 2 : close]))
                i = close + 1
                continue
            i += 1
            continue
        if c not in "'\"":
            out.append(c)
        i += 1
    return "".join(out)


def _escaped(text: str, i: int) -> bool:
    """Whether the character at `i` follows an odd run of backslashes."""
    run = 0
    while i - run - 1 >= 0 and text[i - run - 1] == "\\":
        run += 1
    return run % 2 == 1


_ANSI_ESCAPES = {
    "a": "\a",
    "b": "\b",
    "e": "\x1b",
    "E": "\x1b",
    "f": "\f",
    "n": "\n",
    "r": "\r",
    "t": "\t",
    "v": "\v",
    "\\": "\\",
    "'": "'",
    '"': '"',
    "?": "?",
}
_HEX = "0123456789abcdefABCDEF"


def ansi_decoded(body: str) -> str:
    """The text of a $'…' body with its escapes decoded as bash does (`\\x72`, `\\162`, `\\u0072`): a guess
    at what runs, for deny rules only."""
    out = []
    i = 0
    while i < len(body):
        c = body[i]
        if c != "\\" or i + 1 >= len(body):
            out.append(c)
            i += 1
            continue
        e = body[i + 1]
        if e in _ANSI_ESCAPES:
            out.append(_ANSI_ESCAPES[e])
            i += 2
            continue
        digits, base, width = "", 16, {"x": 2, "u": 4, "U": 8}.get(e, 0)
        start = i + 2
        if not width and e in "01234567":
            digits, base, width, start = "", 8, 3, i + 1
        alphabet = _HEX if base == 16 else "01234567"
        end = start
        while end < len(body) and end - start < width and body[end] in alphabet:
            end += 1
        digits = body[start:end]
        if not digits:
            out.append(c + e)
            i += 2
            continue
        try:
            out.append(chr(int(digits, base)))
        except (ValueError, OverflowError):
            out.append(digits)
        i = end
    return "".join(out)


def brace_words(word: str) -> list[str]:
    """`{rm,-f,x}` as the words bash makes of it; any other word as itself (a guess, for deny rules)."""
    if word.startswith("{") and word.endswith("}") and "," in word:
        return [w for w in word[1:-1].split(",") if w]
    return [word]
