"""The words of a bash command as the shell will see them, read from the grammar's nodes, for the
command reader (command_parts); and rough guesses at what a word runs, for deny rules.

A word keeps its text as written and its value once quotes are taken off: `'rm'`, `r''m`, `\\rm` and
`$'rm'` are all `rm`. A word the shell would still change — a parameter (`$x`, `${x}`), a substitution,
a brace expansion (`{a,b}`), a leading `~` — has no value: no rule can know what it turns into. A node
not listed here (arithmetic, `${x:-…}`, a backtick, `$"…"`), or text inside a node that bash would read
otherwise than the grammar did, raises Unknown.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .command_grammar import METACHARACTERS, Source, Unknown, escaped

if TYPE_CHECKING:
    from tree_sitter import Node

DIGITS = "0123456789"  # not str.isdigit: bash reads only ASCII digits as a stream number
NAME_START = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_"
NAME_CHARS = NAME_START + DIGITS
# `$@`, `$?`, `$1` …: parameters bash sets itself (`$_` is a name, read above).
SPECIAL_PARAMETERS = "@*#?-$!" + DIGITS
GLOB = "*?["
# The characters of a command name read as itself: what a program's or builtin's name is made of. A name
# with any other (or none of its value known) is one the reader does not call plain.
PLAIN_NAME = NAME_CHARS + "._+-/:@%,"


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


# The nodes of the grammar that make (part of) a word, read below; any other node in a word asks.
WORD_NODES = frozenset(
    "word number variable_name test_operator concatenation string raw_string ansi_c_string simple_expansion "
    "expansion command_substitution process_substitution brace_expression $".split()
)
_LEAVES = frozenset("word number variable_name test_operator".split())
_SUBSTITUTIONS = frozenset(("command_substitution", "process_substitution"))
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# The parameters read (their value unknown), as bash writes them.
_PARAMETERS = {
    "simple_expansion": re.compile(r"\$(?:[A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!_-])"),
    "expansion": re.compile(r"\$\{[A-Za-z_][A-Za-z0-9_]*\}"),
    "brace_expression": re.compile(r"\{-?[0-9]+\.\.-?[0-9]+\}"),
}


def read_word(node: Node, source: Source, substitution: Callable[[Node], None]) -> Word:
    """The word `node` is to bash; `substitution` reads the commands of each `$(…)` or `<(…)` in it."""
    pieces = node.children if node.type == "concatenation" else [node]
    if not pieces:
        raise Unknown
    source.check_span(node)
    source.check_touching(pieces)  # a blank inside what the grammar calls one word asks
    words = [_piece(piece, source, substitution) for piece in pieces]
    raw = source.text(node)
    if raw.startswith("#"):
        raise Unknown  # bash starts a comment here, the grammar a word
    value = None if any(w.value is None for w in words) else "".join(w.value or "" for w in words)
    if raw.startswith("~"):
        value = None  # a home folder: the shell computes it
    return Word(raw, value, any(w.glob for w in words))


def _piece(node: Node, source: Source, substitution: Callable[[Node], None]) -> Word:
    """One piece of a word: text unquoted or quoted, a parameter, a substitution (its value unknown)."""
    kind, raw = node.type, source.text(node)
    if kind in _LEAVES and not node.children and (kind != "variable_name" or _NAME.fullmatch(raw)):
        return _unquoted(raw)
    if kind == "raw_string" and len(raw) >= 2 and raw[0] == raw[-1] == "'" and "'" not in raw[1:-1]:
        return Word(raw, raw[1:-1])
    if kind == "ansi_c_string" and len(raw) >= 3 and raw.startswith("$'") and raw.endswith("'"):
        return Word(raw, None if "\\" in raw else raw[2:-1])  # escapes: decoded only to guess, for deny rules
    if kind == "string":
        return _double_quoted(node, source, substitution)
    if kind == "$" and source.after(node) in ("", *METACHARACTERS):
        return Word(raw, "$")  # a dollar before nothing it expands (`$"…"` is translated text: asks)
    if kind in _SUBSTITUTIONS:
        substitution(node)
        return Word(raw, None)
    if _parameter(node, source):
        return Word(raw, None)
    raise Unknown


def _parameter(node: Node, source: Source) -> bool:
    """Whether `node` is `$NAME`, `$1`, `$?`…, `${NAME}` or `{1..3}`, in the grammar's reading and in
    bash's (the grammar reads `$\\  p` as `$p`): any other `${…}` form (`${x[_]}`, `${!x}`, `${x@P}`,
    `${x:-…}`) may evaluate code through arithmetic or prompt expansion."""
    kinds = [c.type for c in node.children]
    if node.type == "simple_expansion":
        kind = kinds in (["$", "variable_name"], ["$", "special_variable_name"])
    elif node.type == "brace_expression":
        kind = set(kinds) <= {"{", "}", "..", "number"}
    else:
        kind = node.type == "expansion" and kinds == ["${", "variable_name", "}"]
    pattern = _PARAMETERS.get(node.type)
    return kind and pattern is not None and pattern.fullmatch(source.text(node)) is not None


def _unquoted(raw: str) -> Word:
    """An unquoted piece of text: backslashes taken off; a `{` (brace expansion) leaves its value unknown,
    `*?[` may glob; a quote, `$`, backtick or metacharacter the grammar left inside asks."""
    value: list[str] | None = []
    glob = False
    i = 0
    while i < len(raw):
        c = raw[i]
        if c == "\\":
            if i + 1 >= len(raw):
                raise Unknown
            if raw[i + 1] != "\n" and value is not None:
                value.append(raw[i + 1])
            i += 2
            continue
        if c in METACHARACTERS or c in "'\"`$":
            raise Unknown
        if c == "{":
            value = None
        glob = glob or c in GLOB
        if value is not None:
            value.append(c)
        i += 1
    return Word(raw, None if value is None else "".join(value), glob)


def _double_quoted(node: Node, source: Source, substitution: Callable[[Node], None]) -> Word:
    """A "…" piece: the text between the expansions the grammar found in it, whose backslashes escape only
    `$`, a backtick, `"`, `\\` and a newline; a backtick, or a `$` that expands, left in that text asks."""
    children = node.children
    if len(children) < 2 or source.text(children[0]) != '"' or source.text(children[-1]) != '"':
        raise Unknown
    literals: list[str] = []
    known = True
    at = children[0].end_byte
    for child in children[1:-1]:
        text = child.type in ("string_content", "$")
        end = child.end_byte if text else child.start_byte
        literals.append(_quoted_literal(source.between(at, end), source.between(end, end + 1)))
        at = max(end, child.end_byte)
        if text:
            continue
        if child.type in _SUBSTITUTIONS:
            substitution(child)
        elif child.type == "brace_expression" or not _parameter(child, source):
            raise Unknown
        known = False
    literals.append(_quoted_literal(source.between(at, children[-1].start_byte), '"'))
    return Word(source.text(node), "".join(literals) if known else None)


def _quoted_literal(text: str, follow: str) -> str:
    """The value of literal text inside "…" (`follow`: the character after it)."""
    out: list[str] = []
    i = 0
    while i < len(text):
        c = text[i]
        nxt = text[i + 1] if i + 1 < len(text) else follow
        if c == "\\":
            if i + 1 >= len(text):
                raise Unknown  # it escapes what the grammar put in the next node
            if nxt != "\n":
                out.append(nxt if nxt in '$`"\\' else c + nxt)
            i += 2
            continue
        if c in '`"' or (c == "$" and (nxt in NAME_CHARS or nxt in SPECIAL_PARAMETERS or nxt in "({[")):
            raise Unknown  # what bash expands or ends here, the grammar took for text
        out.append(c)
        i += 1
    return "".join(out)


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
            while close > 0 and escaped(word, close):
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
