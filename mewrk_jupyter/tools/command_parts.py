"""A bash command cut into the simple commands it runs, for approval rules by command (A5).

`git status && rm -rf build` runs two commands; `echo $(curl …)` runs two; `ls > /etc/motd` writes a
file. A rule such as `bash(git status*)` may allow a command only when every command it runs is allowed,
so this finds them all: the parts between `&&`, `||`, `;`, `|`, `&` and newlines, those inside subshells,
braces, command and process substitutions (`$(…)`, backticks, `<(…)`), and each part's redirections.

It is an allow-list reader: what it does not understand — a here-document, arithmetic expansion, an
unclosed quote, a `${…}` holding a substitution — makes it answer None, "cannot tell", and the command
asks the person. It never guesses a form it does not know into an allowed one.
"""

from __future__ import annotations

from dataclasses import dataclass, field

SEPARATORS = ("&&", "||", "|&", ";;", ";", "|", "&", "\n")
# Words that open or continue a shell construct rather than name a command (`if`, `for`, `!`, …).
KEYWORDS = frozenset(
    "if then elif else fi for while until do done case esac select function time coproc ! [[ ]] { }".split()
)
REDIRECTIONS = ("&>>", "&>", ">>", ">|", "<>", ">", "<")


@dataclass
class Part:
    """One simple command: its words as written (quotes kept), and the files its redirections name."""

    words: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        """The command as a rule matches it: its words, one space apart (its redirections left out)."""
        return " ".join(self.words)

    def command_words(self) -> list[str]:
        """Its words after leading keywords (`then`, `do`, `!`) and variable assignments (`A=1`)."""
        words = list(self.words)
        while words and (words[0] in KEYWORDS or _assignment(words[0])):
            words.pop(0)
        return words


class _Unknown(Exception):
    """A form this reader does not understand: the caller answers 'cannot tell'."""


def command_parts(text: str) -> list[Part] | None:
    """The simple commands `text` runs, in order (substitutions before the command that holds them);
    None when it holds a form this reader cannot be sure of."""
    try:
        parts, end = _Reader(text).parse(0, stop=None)
    except _Unknown:
        return None
    if end != len(text):
        return None
    return parts


def _assignment(word: str) -> bool:
    name, eq, _ = word.partition("=")
    return bool(eq) and name.isidentifier()


class _Reader:
    def __init__(self, text: str) -> None:
        self.text = text

    def parse(self, i: int, stop: str | None) -> tuple[list[Part], int]:
        """Read from `i` until `stop` (`)` or a backtick) or the end; the parts found and where it stopped."""
        text = self.text
        parts: list[Part] = []
        found: list[Part] = []  # substitutions met inside the current part, placed before it
        part = Part()
        word: list[str] = []
        in_word = False

        def end_word() -> None:
            nonlocal in_word
            if in_word:
                written = "".join(word)
                if not part.words and written in ("{", "}"):  # a group's braces: `{ ls; }` runs `ls`
                    word.clear()
                    in_word = False
                    return
                part.words.append(written)
                word.clear()
                in_word = False

        def end_part() -> None:
            nonlocal part
            end_word()
            if part.words or part.targets:
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
            if c == "#" and not in_word:
                while i < len(text) and text[i] != "\n":
                    i += 1
                continue
            if c == "\\":
                if i + 1 >= len(text):
                    raise _Unknown
                if text[i + 1] == "\n":  # a line continued
                    i += 2
                    continue
                word.append(text[i : i + 2])
                in_word = True
                i += 2
                continue
            separator = next((s for s in SEPARATORS if text.startswith(s, i)), None)
            if separator is not None and not (separator == "&" and text.startswith("&>", i)):
                if separator == ";;":
                    raise _Unknown  # a `case` arm: not read here
                end_part()
                i += len(separator)
                continue
            if c in "()":
                if c == ")" and stop is None:
                    raise _Unknown  # a `)` that closes nothing (or a `case` pattern)
                if c == ")":
                    end_part()
                    return parts, i
                end_part()
                inner, i = self.parse(i + 1, ")")
                parts.extend(inner)
                i = self._expect(i, ")")
                continue
            if text.startswith("<(", i) or text.startswith(">(", i):  # process substitution
                start = i
                inner, end = self.parse(i + 2, ")")
                found.extend(inner)
                i = self._expect(end, ")")
                word.append(text[start:i])
                in_word = True
                continue
            if c in "<>" or text.startswith("&>", i):
                i = self._redirection(i, part)
                if in_word and all(ch.isdigit() for ch in word):
                    word.clear()  # `2>file`: the digits name the stream, they are not a word
                    in_word = False
                continue
            if c == "'":
                close = text.find("'", i + 1)
                if close < 0:
                    raise _Unknown
                word.append(text[i : close + 1])
                in_word = True
                i = close + 1
                continue
            if c == '"':
                start = i
                i += 1
                while i < len(text) and text[i] != '"':
                    if text[i] == "\\":
                        i += 2
                        continue
                    if text[i] == "$" or text[i] == "`":
                        i = self._dollar(i, found)
                        continue
                    i += 1
                if i >= len(text):
                    raise _Unknown
                word.append(text[start : i + 1])
                in_word = True
                i += 1
                continue
            if c == "$" or c == "`":
                start = i
                i = self._dollar(i, found)
                word.append(text[start:i])
                in_word = True
                continue
            word.append(c)
            in_word = True
            i += 1
        if stop is not None:
            raise _Unknown  # `$(` or a backtick left open
        end_part()
        return parts, i

    def _expect(self, i: int, close: str) -> int:
        if not self.text.startswith(close, i):
            raise _Unknown
        return i + len(close)

    def _dollar(self, i: int, found: list[Part]) -> int:
        """Read a `$…` or backtick form at `i`, adding the commands a substitution runs to `found`;
        returns the index after it."""
        text = self.text
        if text[i] == "`":
            inner, end = self.parse(i + 1, "`")
            found.extend(inner)
            return self._expect(end, "`")
        nxt = text[i + 1 : i + 2]
        if text.startswith("$((", i) or text.startswith("$[", i):
            raise _Unknown  # arithmetic may hold substitutions of its own
        if nxt == "(":
            inner, end = self.parse(i + 2, ")")
            found.extend(inner)
            return self._expect(end, ")")
        if nxt == "{":
            close = text.find("}", i + 2)
            body = text[i + 2 : close] if close >= 0 else ""
            if close < 0 or any(ch in body for ch in "$`(\"'"):
                raise _Unknown
            return close + 1
        if nxt == "'":  # $'…' quoting
            close = i + 2
            while close < len(text) and text[close] != "'":
                close += 2 if text[close] == "\\" else 1
            if close >= len(text):
                raise _Unknown
            return close + 1
        return i + 1

    def _redirection(self, i: int, part: Part) -> int:
        """Read the redirection at `i` into `part` (its file, unless it duplicates a stream)."""
        text = self.text
        if text.startswith("<<", i) and not text.startswith("<<<", i):
            raise _Unknown  # a here-document: its body follows on later lines
        if text.startswith("<<<", i):
            i += 3
            return self._target(i, part, herestring=True)
        operator = next(op for op in REDIRECTIONS if text.startswith(op, i))
        i += len(operator)
        if text.startswith("&", i):  # `2>&1`, `>&-`: a stream duplicated or closed, no file
            i += 1
            while i < len(text) and (text[i].isdigit() or text[i] == "-"):
                i += 1
            return i
        return self._target(i, part)

    def _target(self, i: int, part: Part, herestring: bool = False) -> int:
        text = self.text
        while i < len(text) and text[i] in " \t":
            i += 1
        start = i
        holder: list[Part] = []
        while i < len(text) and text[i] not in " \t\n;&|()<>":
            if text[i] == "'":
                close = text.find("'", i + 1)
                if close < 0:
                    raise _Unknown
                i = close + 1
            elif text[i] == '"':
                close = i + 1
                while close < len(text) and text[close] != '"':
                    close += 2 if text[close] == "\\" else 1
                if close >= len(text):
                    raise _Unknown
                i = close + 1
            elif text[i] in "$`":
                i = self._dollar(i, holder)
            elif text[i] == "\\":
                i += 2
            else:
                i += 1
        if i == start or holder:
            raise _Unknown  # no file named, or one a command computes
        if not herestring:
            part.targets.append(text[start:i])
        return i
