"""Approval rules by command (A5): a safety level's tier lists a tool by name (`bash`) or by what a call of
it does (`bash(git status*)`, `read(src/*)`), matched against the call's main argument.

A pattern is the text itself, where `*` stands for any run of characters (spaces and `/` too); a pattern
ending in `:*`, as Claude Code writes them, matches the text before it alone or followed by a space and
anything (`bash(npm run test:*)` matches `npm run test` and `npm run test -k x`, not `npm run tests`).
`\\*` is a star itself and `\\\\` a backslash: "approve always: this command" writes the command so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import re2

from .base import TOOL_NAME

RULE = re.compile(r"^(?P<tool>[A-Za-z0-9_-]{1,64})\((?P<pattern>.*)\)$", re.DOTALL)


@dataclass(frozen=True)
class Rule:
    """A tier entry: the tool it names and, for a rule by command, the pattern its main argument matches."""

    tool: str
    pattern: str | None = None

    def __str__(self) -> str:
        return self.tool if self.pattern is None else f"{self.tool}({self.pattern})"

    @property
    def exact(self) -> bool:
        """Whether the pattern is one text, with no `*` standing for others (`bash(make test)`)."""
        return self.pattern is not None and len(_pieces(self.pattern)) == 1

    def words(self) -> list[str]:
        """The pattern's words, split at spaces (a trailing `:*` and lone `*` left out)."""
        if self.pattern is None:
            return []
        body = self.pattern
        if body.endswith(":*") and not body.endswith("\\:*"):
            body = body[:-2]
        return [w for w in body.split(" ") if w and w != "*"]

    def written_words(self) -> set[str]:
        """The words the pattern writes out in full, stars standing for none of them."""
        return {w for piece in _pieces(" ".join(self.words())) for w in piece.split(" ") if w}

    def matches(self, text: str) -> bool:
        """Whether `text` (a command, a path, …) is what this rule's pattern describes."""
        if self.pattern is None:
            return True
        return _compiled(self.pattern).fullmatch(text) is not None


def parse_rule(entry: str) -> Rule | None:
    """The rule an entry of `allow`, `ask` or `deny` writes, or None when it is neither a tool name nor
    `TOOL(PATTERN)` with a pattern."""
    if TOOL_NAME.match(entry):
        return Rule(entry)
    found = RULE.match(entry)
    if found is None or not found["pattern"].strip():
        return None
    return Rule(found["tool"], found["pattern"])


def literal(text: str) -> str:
    """`text` as a pattern that matches it alone: its stars and backslashes escaped."""
    return text.replace("\\", "\\\\").replace("*", "\\*")


def exact_rule(tool: str, text: str) -> str:
    """The rule that allows `text` itself and nothing else, as a tier lists it."""
    return f"{tool}({literal(text)})"


def _pieces(pattern: str) -> list[str]:
    """The literal texts between the pattern's wildcards (`\\*` and `\\\\` read as themselves)."""
    pieces, current, i = [], [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\" and pattern[i + 1 : i + 2] in ("*", "\\"):
            current.append(pattern[i + 1])
            i += 2
            continue
        if c == "*":
            pieces.append("".join(current))
            current = []
        else:
            current.append(c)
        i += 1
    pieces.append("".join(current))
    return pieces


def rule_problem(entry: str) -> str | None:
    """Why an entry is not a tool name or a rule, in a sentence; None when it is one."""
    if parse_rule(entry) is not None:
        return None
    found = RULE.match(entry)
    if found is not None:
        return f"{entry!r} has an empty pattern: write `{found['tool']}` for every call, or a pattern"
    if "(" in entry and not entry.endswith(")"):
        return f"{entry!r} does not close its pattern with `)`"
    return (
        f"{entry!r} is not a tool name (letters, digits, '_' or '-') nor a rule by command such as "
        "`bash(git status*)`"
    )


# RE2, linear in the text however many `*` a pattern has: a command may be long.
_CACHE: dict[str, Any] = {}


def _compiled(pattern: str) -> Any:
    found = _CACHE.get(pattern)
    if found is None:
        body, prefix = pattern, False
        if pattern.endswith(":*") and not pattern.endswith("\\:*"):
            body, prefix = pattern[:-2], True
        regex = "(?s)" + ".*".join(re2.escape(piece) for piece in _pieces(body))
        if prefix:
            regex += "(?: .*)?"
        found = _CACHE[pattern] = re2.compile(regex)
    return found
