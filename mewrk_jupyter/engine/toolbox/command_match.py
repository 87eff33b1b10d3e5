"""How a `bash(PATTERN)` rule meets the commands a call runs.

An allow rule matches a command's words once unquoted (`git status -s`), and allows it only when every
option the rule's `*` stands for is one it writes out or one the command is known to only read with
(command_options): `bash(git diff:*)` allows `git diff HEAD~1 src/`, not `git diff --output=/etc/x`. A
command name the shell computes (`$x`, `{a,b}`) is allowed by no rule.

Deny and ask rules are read more widely, since missing one lets a call through: they meet the command
also by the name of its program (`/bin/rm` is `rm`), through wrappers (`command rm`, `env rm`), with the
rule's options anywhere in it, in any order, combined (`-fr` for `-rf`) or abbreviated (`--porc` for
`--porcelain`) — and, for a command the reader cannot read, each piece of its text between separators.
"""

from __future__ import annotations

import os
import re

from ...config.rules import Rule
from ...tools.command_options import known_option, read_only_options
from ...tools.command_parts import KEYWORDS, assignment
from ...tools.command_words import DIGITS, Word, brace_words, unquote_roughly

# Commands that run the command their arguments name: deny rules look past them.
WRAPPERS = frozenset(
    "command builtin exec env nice nohup time timeout sudo doas stdbuf ionice chrt taskset xargs".split()
)
_ROUGH_SEPARATORS = re.compile(r"\n|;|&&|\|\||\||&|\(|\)|`|\$\(")


def allows_command(rule: Rule, items: list[Word]) -> bool:
    """Whether allow rule `rule` lets this simple command (its words) run."""
    if not rule.matches(" ".join(w.seen for w in items)):
        return False
    command = items
    while command and (command[0].raw in KEYWORDS or assignment(command[0].raw)):
        command = command[1:]
    if not command:
        return True
    name = command[0]
    if name.value is None or name.glob:
        return False
    options = read_only_options([w.seen for w in command])
    if options.every:
        return True
    written = rule.written_words()
    for word in command[1:]:
        if not word.option_like():
            continue
        if word.value is None or word.glob:
            return False  # a word the shell computes may be any option
        if word.value not in written and not known_option(options, word.value):
            return False
    return True


def catches(rule: Rule, words: list[str]) -> bool:
    """Whether deny or ask rule `rule` meets a command run as `words`: its text, or its words with the
    rule's options anywhere among them."""
    if rule.pattern is None:
        return True
    if not words:
        return False
    if rule.matches(" ".join(words)):
        return True
    wanted = rule.words()
    if not wanted or not Rule(rule.tool, wanted[0]).matches(words[0]):
        return False
    rest = words[1:]
    for want in wanted[1:]:
        bare = want.rstrip("*")
        if bare.startswith("-") and len(bare) > 1:
            if not _has_option(bare, want != bare, rest):
                return False
        elif not any(Rule(rule.tool, want).matches(w) for w in rest):
            return False
    return True


def _has_option(option: str, longer: bool, words: list[str]) -> bool:
    """Whether `words` pass `option`: as written, as `--opt=VALUE`, abbreviated (`--porc`), extended when
    the rule's star allows it, or its letters within combined short options (`-fr` for `-rf`)."""
    if option.startswith("--"):
        name = option.split("=", 1)[0]
        for word in words:
            given = word.split("=", 1)[0]
            if not given.startswith("--"):
                continue
            if given == name or (len(given) > 3 and name.startswith(given)):
                return True
            if longer and given.startswith(name):
                return True
        return False
    letters = set(option[1:])
    seen: set[str] = set()
    for word in words:
        if word.startswith("-") and not word.startswith("--"):
            seen.update(word[1:])
    return letters <= seen


def runs(items: list[Word]) -> list[list[str]]:
    """The ways a simple command may be what a deny rule names: its words unquoted, its program by its
    base name, and the command each wrapper (`command rm`, `env A=1 rm`) runs."""
    words = [w.seen for w in items]
    return _views(words)


def _views(words: list[str]) -> list[list[str]]:
    views: list[list[str]] = []
    while words:
        words = [*brace_words(words[0]), *words[1:]]
        views.append(words)
        base = os.path.basename(words[0])
        if base != words[0] and base:
            views.append([base, *words[1:]])
        if base not in WRAPPERS:
            break
        i = 1
        while i < len(words) and (words[i][:1] in ("-", *DIGITS) or assignment(words[i])):
            i += 1  # the wrapper's own options, counts and variables
        words = words[i:]
    return views


def rough_runs(text: str) -> list[list[str]]:
    """For text the reader cannot read: each piece between separators, as the command it might run."""
    found: list[list[str]] = []
    for piece in _ROUGH_SEPARATORS.split(text):
        words = [unquote_roughly(w) for w in piece.split()]
        while words and (words[0] in KEYWORDS or assignment(words[0])):
            words = words[1:]
        found.extend(_views(words))
    return found
