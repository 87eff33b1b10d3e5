"""How a `bash(PATTERN)` rule meets the commands a call runs.

An allow rule matches a command's words once unquoted (`git status -s`), and allows it only when every
option the rule's `*` stands for is one it writes out or one the command is known to only read with
(command_options): `bash(git diff:*)` allows `git diff HEAD~1 src/`, not `git diff --output=/etc/x`. A
command name the shell computes (`$x`, `{a,b}`) is allowed by no rule.

Deny and ask rules are read more widely, since missing one lets a call through: they meet the command
also by the name of its program (`/bin/rm` is `rm`), through wrappers (`command rm`, `env rm`), with the
rule's options anywhere in it, in any order, combined (`-fr` for `-rf`) or abbreviated (`--porc` for
`--porcelain`) — inside the line `eval`, `sh -c` or `env -S` runs, and, for a command the reader cannot
read, each piece of its text between separators. Where that reading cannot name what runs (a computed
name, a wrapper's option it does not know, `eval "$cmd"`), the reading says so (`Reading.clear`) and a
level with deny or ask rules asks.
"""

from __future__ import annotations

import fnmatch
import os
import re
from dataclasses import dataclass, field

from ...config.rules import Rule
from ...tools.command_options import known_option, read_only_options
from ...tools.command_parts import KEYWORDS, assignment, command_parts
from ...tools.command_words import Word, brace_words, unquote_roughly
from ...tools.command_wrappers import SHELLS, WRAPPERS, shell_line, unwrap

# Deeper than this, an `eval` of an `eval` … is not read: it asks.
MAX_NESTING = 8
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


@dataclass
class Reading:
    """The ways a simple command may be what a deny or ask rule names (`views`: its words unquoted, its
    program by base name, the command each wrapper, `eval` or `sh -c` runs); whether the reader can name
    every command it runs (`clear`: not so for a computed name, an `eval` or `sh -c` of computed text, a
    wrapper with an option it does not know); and the commands that hold a word the shell computes
    and globs (`shaky`: `git $p origin`, whose `$p` may be any word a rule for `git` names)."""

    views: list[list[str]] = field(default_factory=list)
    clear: bool = True
    shaky: list[Shaky] = field(default_factory=list)


@dataclass(frozen=True)
class Shaky:
    """A command (by program name) whose words after its name the shell may still turn into others: one
    it computes (`computed`: `$p`, `"$msg"`), or globs that may name a file called like any word."""

    name: str
    computed: bool
    globs: tuple[str, ...] = ()


def may_meet(rule: Rule, shaky: Shaky) -> bool:
    """Whether deny or ask rule `rule` may meet this command once the shell has made its words: the rule
    names its program and has later words that a computed word, or one of its globs, may turn into
    (`git $p origin`, `git pu?h` for `git push*`)."""
    wanted = rule.words()
    if len(wanted) < 2 or not Rule(rule.tool, wanted[0]).matches(shaky.name):
        return False
    if shaky.computed:
        return True
    return any(fnmatch.fnmatchcase(want.rstrip("*"), glob) for want in wanted[1:] for glob in shaky.globs)


def reading(items: list[Word], depth: int = 0) -> Reading:
    """How deny and ask rules read this simple command (its words after assignments and keywords)."""
    found = Reading()
    _read(items, found, depth)
    return found


def _read(words: list[Word], found: Reading, depth: int) -> None:
    if depth > MAX_NESTING:
        found.clear = False
        return
    while words:
        expanded = brace_words(words[0].seen)
        if expanded != [words[0].seen]:
            words = [*(Word(w, None) for w in expanded), *words[1:]]
        _add_views(words, found)
        name = words[0].plain()
        if name is None:
            found.clear = False  # a computed name (`$x`, `r${e}m`, `$'\\x72m'`) may be any command
        base = os.path.basename(name if name is not None else _guess(words[0]))
        if base != words[0].seen and base:
            found.views.append([base, *(w.seen for w in words[1:])])
        computed = any(w.value is None for w in words[1:])
        globs = tuple(w.value for w in words[1:] if w.value is not None and w.glob)
        if computed or globs:
            found.shaky.append(Shaky(base, computed, globs))
        args = words[1:]
        if base in WRAPPERS:
            unwrapped = unwrap(WRAPPERS[base], args)
            found.clear = found.clear and unwrapped.clear
            for line in unwrapped.lines:
                _read_line(line, found, depth + 1)
            words = unwrapped.command
            continue
        if base == "eval":
            _read_line(" ".join(_guess(w) for w in args), found, depth + 1)
            found.clear = found.clear and all(w.value is not None for w in args)
        elif base in SHELLS:
            script, known = shell_line(args)
            found.clear = found.clear and known and (script is None or script.value is not None)
            if script is not None:
                _read_line(_guess(script), found, depth + 1)
        return


def _read_line(line: str, found: Reading, depth: int) -> None:
    """Read the command line an `eval`, a `sh -c` or `env -S` runs, as more commands of this one."""
    parts = command_parts(line)
    if parts is None:
        found.clear = False
        found.views.extend(rough_runs(line))
        return
    for part in parts:
        _read(part.command_items(), found, depth)


def _add_views(words: list[Word], found: Reading) -> None:
    """The command's words unquoted, and roughly unquoted where the shell computes them (`$'\\x72m'`)."""
    seen = [w.seen for w in words]
    found.views.append(seen)
    guessed = [_guess(w) for w in words]
    if guessed != seen:
        found.views.append(guessed)


def _guess(word: Word) -> str:
    return word.value if word.value is not None else unquote_roughly(word.raw)


def _views(words: list[str]) -> list[list[str]]:
    """For words read roughly: the command they may run, past wrappers' options as best the words say."""
    items = [Word(w, w) for w in words]
    return reading(items).views


def rough_runs(text: str) -> list[list[str]]:
    """For text the reader cannot read: each piece between separators, as the command it might run (a line
    continued is joined first, as bash joins it: `r\\<newline>m` is `rm`)."""
    found: list[list[str]] = []
    for piece in _ROUGH_SEPARATORS.split(text.replace("\\\n", "")):
        words = [unquote_roughly(w) for w in piece.split()]
        while words and (words[0] in KEYWORDS or assignment(words[0])):
            words = words[1:]
        found.extend(_views(words))
    return found
