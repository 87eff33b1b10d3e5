"""A bash command cut into the simple commands it runs, for approval rules by command.

`git status && rm -rf build` runs two commands; `echo $(curl …)` runs two; `ls > /etc/motd` writes a
file. A rule such as `bash(git status*)` may allow a command only when every command it runs is allowed,
so this finds them all: the parts between `&&`, `||`, `;`, `|`, `&` and newlines, those inside subshells,
braces, command and process substitutions (`$(…)`, `<(…)`), and each part's redirections.

It is an allow-list reader: it reads the forms it knows as bash reads them, and anything else — a
here-document, arithmetic (`$((…))`, `((…))`), `[[ … ]]`, a backtick, a `${…}` other than `${NAME}`, an
unclosed quote, a stream duplicated onto something other than a number — makes it answer None, "cannot
tell", and the command asks the person. It never guesses a form it does not know into an allowed one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .command_words import (
    DIGITS,
    METACHARACTERS,
    Unknown,
    Word,
    WordBuilder,
    ansi_quoted,
    braced_parameter,
    simple_parameter,
    single_quoted,
)

SEPARATORS = ("&&", "||", "|&", ";;", ";", "|", "&", "\n")
# Words that open or continue a shell construct rather than name a command (`if`, `for`, `!`, …).
KEYWORDS = frozenset("if then elif else fi for while until do done time ! { }".split())
# Constructs read differently from a simple command, not read here: they ask.
UNREAD_KEYWORDS = frozenset("case esac select function coproc [[ ]]".split())
# Builtins that evaluate an argument as an array subscript (arithmetic, which runs `$(…)` inside it) or
# as code: any argument with a `[` or one the shell computes, and the reader cannot be sure.
EVALUATES_ARGUMENTS = frozenset(
    "printf test [ read declare typeset local export readonly unset let eval source . mapfile readarray "
    "getopts wait trap shopt".split()
)
REDIRECTIONS = ("&>>", "&>", ">>", ">|", "<>", ">", "<")
# Deeper than this, a command is not one a person writes: it asks rather than exhausting the stack.
MAX_DEPTH = 50
_INDEXED_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\[")


@dataclass
class Part:
    """One simple command: its words, the files its redirections write (`targets`) and read (`reads`)."""

    items: list[Word] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    reads: list[str] = field(default_factory=list)

    @property
    def words(self) -> list[str]:
        """Its words as written (quotes kept)."""
        return [w.raw for w in self.items]

    @property
    def text(self) -> str:
        """The command as written: its words, one space apart (its redirections left out)."""
        return " ".join(self.words)

    def command_items(self) -> list[Word]:
        """Its words after leading keywords (`then`, `do`, `!`) and variable assignments (`A=1`)."""
        items = list(self.items)
        while items and (items[0].raw in KEYWORDS or assignment(items[0].raw)):
            items.pop(0)
        return items

    def command_words(self) -> list[str]:
        """Its words as written after leading keywords and assignments."""
        return [w.raw for w in self.command_items()]


def command_parts(text: str) -> list[Part] | None:
    """The simple commands `text` runs, in order (substitutions before the command that holds them);
    None when it holds a form this reader cannot be sure of."""
    try:
        parts, end = _Reader(text).parse(0, stop=None, depth=0)
    except (Unknown, RecursionError):
        return None
    if end != len(text):
        return None
    return parts


def assignment(word: str) -> bool:
    """Whether `word` sets a variable for the command (`A=1`, `A+=1`)."""
    name, eq, _ = word.partition("=")
    return bool(eq) and name.removesuffix("+").isidentifier()


def _check(part: Part) -> None:
    """Raise Unknown for a finished part whose words the shell reads otherwise than as arguments."""
    for item in part.items:
        if item.raw in KEYWORDS or assignment(item.raw):
            continue
        if _INDEXED_ASSIGNMENT.match(item.raw) and "=" in item.raw:
            raise Unknown  # `a[$_]=1`: the subscript is arithmetic, which may run a substitution
        break
    command = part.command_items()
    if not command:
        return
    name = command[0]
    if name.raw in UNREAD_KEYWORDS or name.value in UNREAD_KEYWORDS:
        raise Unknown
    if name.value in EVALUATES_ARGUMENTS or name.value is None:
        if any(w.value is None or "[" in w.raw for w in command[1:]):
            raise Unknown


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text

    def parse(self, i: int, stop: str | None, depth: int) -> tuple[list[Part], int]:
        """Read from `i` until `stop` (`)`) or the end; the parts found and where it stopped."""
        if depth > MAX_DEPTH:
            raise Unknown
        text = self.text
        parts: list[Part] = []
        found: list[Part] = []  # substitutions met inside the current part, placed before it
        part = Part()
        word = WordBuilder()

        def end_word() -> None:
            taken = word.take()
            if taken is None:
                return
            if not part.items and taken.raw in ("{", "}"):  # a group's braces: `{ ls; }` runs `ls`
                return
            part.items.append(taken)

        def end_part() -> None:
            nonlocal part
            end_word()
            if part.items or part.targets or part.reads:
                _check(part)
                parts.extend(found)
                parts.append(part)
            else:
                parts.extend(found)
            found.clear()
            part = Part()

        while i < len(text):
            c = text[i]
            if stop is not None and text.startswith(stop, i):
                end_part()
                return parts, i
            if c in " \t":
                end_word()
                i += 1
                continue
            if c == "#" and not word.started and (i == 0 or text[i - 1] in METACHARACTERS):
                while i < len(text) and text[i] != "\n":  # a comment begins only where a word may
                    i += 1
                continue
            if c == "\\":
                if i + 1 >= len(text):
                    raise Unknown
                if text[i + 1] == "\n":  # a line continued
                    i += 2
                    continue
                word.add(text[i : i + 2], text[i + 1])
                i += 2
                continue
            separator = next((s for s in SEPARATORS if text.startswith(s, i)), None)
            if separator is not None and not (separator == "&" and text.startswith("&>", i)):
                if separator == ";;":
                    raise Unknown  # a `case` arm: not read here
                end_part()
                i += len(separator)
                continue
            if text.startswith("<(", i) or text.startswith(">(", i):  # process substitution
                start = i
                inner, end = self.parse(i + 2, ")", depth + 1)
                found.extend(inner)
                i = self._expect(end, ")")
                word.add(text[start:i], None)
                continue
            if c in "()":
                if c == ")":
                    raise Unknown  # a `)` that closes nothing (or a `case` pattern)
                if text.startswith("((", i) or word.started or part.items:
                    raise Unknown  # arithmetic, a function `f()`, an array `a=(…)`, a glob `@(…)`
                end_part()
                inner, i = self.parse(i + 1, ")", depth + 1)
                if not inner:
                    raise Unknown  # `()`: a function's parentheses
                parts.extend(inner)
                i = self._expect(i, ")")
                continue
            if c in "<>" or text.startswith("&>", i):
                stream = self._stream_number(word, c)
                i = self._redirection(i, part)
                if stream:
                    word.take()  # `2>file`: the digits name the stream, they are not a word
                continue
            if c == "'":
                value, end = single_quoted(text, i)
                word.add(text[i:end], value)
                i = end
                continue
            if c == '"':
                i = self._double_quoted(i, word, found, depth)
                continue
            if c == "`":
                raise Unknown  # backticks nest and quote otherwise than `$(…)`: not read here
            if c == "$":
                i = self._dollar(i, word, found, depth)
                continue
            if c in "*?[":
                word.glob = True
            if c == "{" or (c == "~" and not word.started):
                word.add(c, None)  # brace expansion, or a home folder: the shell computes the word
                i += 1
                continue
            word.add(c, c)
            i += 1
        if stop is not None:
            raise Unknown  # `$(` left open
        end_part()
        return parts, i

    def _expect(self, i: int, close: str) -> int:
        if not self.text.startswith(close, i):
            raise Unknown
        return i + len(close)

    def _stream_number(self, word: WordBuilder, c: str) -> bool:
        """Whether the word before a redirection is its stream number (`2>`), rather than an argument."""
        if not word.started or c not in "<>":
            return False
        if word.raw and word.raw[0].startswith("{"):
            raise Unknown  # `{fd}>file`: bash picks the stream and names it
        return word.value is not None and all(ch in DIGITS for ch in "".join(word.raw))

    def _substitution(self, i: int, found: list[Part], depth: int) -> int:
        """Read the `$(…)` at `i`, adding the commands it runs to `found`; the index after it."""
        if self.text.startswith("$((", i):
            raise Unknown  # arithmetic may hold substitutions of its own
        inner, end = self.parse(i + 2, ")", depth + 1)
        found.extend(inner)
        return self._expect(end, ")")

    def _dollar(self, i: int, word: WordBuilder, found: list[Part], depth: int) -> int:
        """Read an unquoted `$…` at `i` into `word`; the index after it."""
        text = self.text
        nxt = text[i + 1 : i + 2]
        if nxt == "'":  # $'…' quoting
            value, end = ansi_quoted(text, i)
            word.add(text[i:end], value)
            return end
        if nxt == '"':
            raise Unknown  # `$"…"`: translated text
        return self._expansion(i, word, found, depth)

    def _expansion(self, i: int, word: WordBuilder, found: list[Part], depth: int) -> int:
        """Read a `$(…)`, `${NAME}` or `$NAME` at `i` (or a plain `$`) into `word`; the index after it."""
        text = self.text
        nxt = text[i + 1 : i + 2]
        if nxt == "[":
            raise Unknown  # `$[…]`: arithmetic, quoted or not
        if nxt == "(":
            end = self._substitution(i, found, depth)
        elif nxt == "{":
            end = braced_parameter(text, i)
        else:
            parameter = simple_parameter(text, i)
            if parameter is None:
                word.add("$", "$")
                return i + 1
            end = parameter
        word.add(text[i:end], None)
        return end

    def _double_quoted(self, i: int, word: WordBuilder, found: list[Part], depth: int) -> int:
        """Read the "…" at `i` into `word`: inside, `$` is special only before `(`, `{` or a parameter
        (`"$'"` is a dollar and a quote), and a backslash escapes only `$`, a backtick, `"`, `\\`."""
        text = self.text
        start = i
        i += 1
        value: list[str] | None = []
        while i < len(text) and text[i] != '"':
            c = text[i]
            if c == "\\" and i + 1 < len(text):
                nxt = text[i + 1]
                if value is not None and nxt != "\n":
                    value.append(nxt if nxt in '$`"\\' else c + nxt)
                i += 2
                continue
            if c == "`":
                raise Unknown
            if c == "$":
                inner = WordBuilder()
                i = self._expansion(i, inner, found, depth)
                taken = inner.take()
                if taken is not None and taken.value is None:
                    value = None
                elif value is not None:
                    value.append("$")
                continue
            if value is not None:
                value.append(c)
            i += 1
        if i >= len(text):
            raise Unknown
        word.add(text[start : i + 1], None if value is None else "".join(value))
        return i + 1

    def _redirection(self, i: int, part: Part) -> int:
        """Read the redirection at `i` into `part` (its file, unless it duplicates a stream)."""
        text = self.text
        if text.startswith("<<", i) and not text.startswith("<<<", i):
            raise Unknown  # a here-document: its body follows on later lines
        if text.startswith("<<<", i):
            return self._target(i + 3, part, herestring=True)
        operator = next(op for op in REDIRECTIONS if text.startswith(op, i))
        i += len(operator)
        if text.startswith("&", i):
            if operator not in ("<", ">"):
                raise Unknown
            return self._duplicate(i + 1)
        return self._target(i, part, reading=operator == "<")

    def _duplicate(self, i: int) -> int:
        """Read the stream after `>&` or `<&`: a number (`2>&1`, `>&3-`) or `-` (closed), ending where a
        word ends. Anything else (`>&file`, `>&2#`) bash reads otherwise: not read here."""
        text = self.text
        start = i
        while i < len(text) and text[i] in DIGITS:
            i += 1
        if i < len(text) and text[i] == "-":
            i += 1
        if i == start or (i < len(text) and text[i] not in METACHARACTERS):
            raise Unknown
        return i

    def _target(self, i: int, part: Part, herestring: bool = False, reading: bool = False) -> int:
        text = self.text
        while i < len(text) and text[i] in " \t":
            i += 1
        start = i
        while i < len(text) and text[i] not in METACHARACTERS:
            if text[i] == "'":
                i = single_quoted(text, i)[1]
            elif text[i] == '"':
                i = self._double_quoted(i, WordBuilder(), [], MAX_DEPTH)
            elif text[i] in "$`":
                raise Unknown  # a file (or text) a command or the shell computes
            elif text[i] == "\\":
                i += 2
            else:
                i += 1
        if i == start or i > len(text):
            raise Unknown  # no file named
        if not herestring:
            (part.reads if reading else part.targets).append(text[start:i])
        return i
