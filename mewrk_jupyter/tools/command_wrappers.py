"""Commands that run another command their arguments name (`sudo -u root rm x`, `timeout -s KILL 5 rm x`),
and shells that run a command line they are given (`bash -c "rm x"`), for deny and ask rules.

To find the command a wrapper runs, its own options must be told from the command's words: `-s KILL`
takes a value, `-v` none, and `timeout` takes a duration before the command. Each wrapper's options are
listed here, those taking no value and those taking one; a word that is none of them (or one the shell
computes, which may be any of them) means the reader cannot say what runs.
"""

from __future__ import annotations

from dataclasses import dataclass

from .command_parts import assignment
from .command_words import DIGITS, Word


@dataclass(frozen=True)
class Wrapper:
    """How a wrapper is called: short options that take no value (`flags`, combinable) and those that
    take one (`values`: glued, `-uroot`, or the next word), long ones likewise (`--user=root` or `--user
    root`), short ones whose value may only be glued (`glued`: xargs's `-i{}`), how many operands come
    before the command (`operands`: timeout's duration), whether `NAME=VALUE` words may (`assignments`),
    whether `-5` is an option (`numbers`: nice), and options whose value is a command line to split
    (`splits`: env's `-S`)."""

    flags: str = ""
    values: str = ""
    long_flags: frozenset[str] = frozenset()
    long_values: frozenset[str] = frozenset()
    glued: str = ""
    operands: int = 0
    assignments: bool = False
    numbers: bool = False
    splits: str = ""
    long_splits: frozenset[str] = frozenset()


def _long(text: str) -> frozenset[str]:
    return frozenset(text.split())


WRAPPERS: dict[str, Wrapper] = {
    "command": Wrapper(flags="pvV"),
    "builtin": Wrapper(),
    "exec": Wrapper(flags="cl", values="a"),
    "nohup": Wrapper(),
    "busybox": Wrapper(),  # `busybox rm x`: the applet is the command
    "env": Wrapper(
        flags="i0v",
        values="uC",
        long_flags=_long("--ignore-environment --null --debug"),
        long_values=_long("--unset --chdir"),
        assignments=True,
        splits="S",
        long_splits=_long("--split-string"),
    ),
    "nice": Wrapper(values="n", long_values=_long("--adjustment"), numbers=True),
    "time": Wrapper(
        flags="pvaq",
        values="of",
        long_flags=_long("--portability --verbose --append --quiet"),
        long_values=_long("--output --format"),
    ),
    "timeout": Wrapper(
        flags="v",
        values="ks",
        long_flags=_long("--preserve-status --foreground --verbose"),
        long_values=_long("--kill-after --signal"),
        operands=1,
    ),
    "sudo": Wrapper(
        flags="AbEHiknPSs",
        values="CDghpRrTtUu",
        long_flags=_long(
            "--askpass --background --preserve-env --set-home --login --non-interactive --preserve-groups "
            "--stdin --shell --reset-timestamp"
        ),
        long_values=_long(
            "--user --group --host --prompt --chdir --close-from --role --type --other-user --command-timeout"
        ),
    ),
    "doas": Wrapper(flags="n", values="aCu"),
    "stdbuf": Wrapper(values="ioe", long_values=_long("--input --output --error")),
    "ionice": Wrapper(
        flags="t", values="cn", long_flags=_long("--ignore"), long_values=_long("--class --classdata")
    ),
    "chrt": Wrapper(flags="abdefiorRv", values="TPD", operands=1),
    "taskset": Wrapper(flags="ac", long_flags=_long("--all-tasks --cpu-list"), operands=1),
    "setsid": Wrapper(flags="cfw", long_flags=_long("--ctty --fork --wait")),
    "xargs": Wrapper(
        flags="0rtpxo",
        values="adEILnPs",
        long_flags=_long("--null --no-run-if-empty --verbose --interactive --exit --open-tty"),
        long_values=_long(
            "--arg-file --delimiter --max-args --max-procs --max-chars --max-lines --process-slot-var "
            "--replace --eof"
        ),
        glued="iel",
    ),
}

# Shells: `-c` makes their first operand the command line they run. The options listed take no value
# (`-e`, `-x`, `-l`, `+e`) or one (`-o pipefail`); any other, or `-s` (commands from the input), and the
# reader cannot say what runs.
SHELLS = frozenset("sh bash dash zsh ksh mksh ash yash posh".split())
SHELL = Wrapper(
    flags="abcefhklmnptuvxBCEHPTis",
    values="oO",
    long_flags=_long("--login --norc --noprofile --posix --restricted --noediting --verbose"),
    long_values=_long("--rcfile --init-file"),
)


@dataclass(frozen=True)
class Unwrapped:
    """What a wrapper runs: the command's words (empty: none), whether the reader could align the
    wrapper's words (`clear`), and the command lines an option gives to split (env's `-S`)."""

    command: list[Word]
    clear: bool = True
    lines: tuple[str, ...] = ()


def unwrap(wrapper: Wrapper, args: list[Word]) -> Unwrapped:
    """The command `args` (the words after the wrapper's name) make the wrapper run. When they cannot be
    aligned, a guess for deny rules: the words after those that look like options, counts, variables."""
    i, lines, _letters = _options(wrapper, args)
    operands = args[i : i + wrapper.operands] if i is not None else []
    if i is None or any(w.value is None or w.glob for w in operands):  # a computed duration may split
        at = 0
        while at < len(args) and (args[at].seen[:1] in ("-", *DIGITS) or assignment(args[at].seen)):
            at += 1
        return Unwrapped(args[at:], clear=False)
    command = args[i + wrapper.operands :]
    if lines:
        return Unwrapped(command, clear=False, lines=lines)
    return Unwrapped(command)


def shell_line(args: list[Word]) -> tuple[Word | None, bool]:
    """For a shell called with `args`: the word holding the command line `-c` gives it and whether its
    options were all known; (None, True) for a shell that runs a script file, (None, False) for one
    whose commands the reader cannot see (from its input, an unknown option)."""
    i, _lines, letters = _options(SHELL, args)
    if i is None or "s" in letters:
        return None, False
    if "c" in letters:
        return (args[i], True) if i < len(args) else (None, False)
    return None, i < len(args)  # no script file: it reads its commands from the input


def _options(wrapper: Wrapper, args: list[Word]) -> tuple[int | None, tuple[str, ...], str]:
    """Where the wrapper's own words end in `args` (None: a word it does not know), the command lines
    its splitting options give, and the short option letters seen."""
    i = 0
    lines: list[str] = []
    letters: list[str] = []
    while i < len(args):
        word = args[i]
        value = word.value
        if value is None or word.glob:
            return None, (), ""  # a computed word may be any option, or several words
        if value == "--":
            return i + 1, tuple(lines), "".join(letters)
        if wrapper.assignments and assignment(value):
            i += 1
            continue
        if value.startswith("--") and len(value) > 2:
            name, eq, given = value.partition("=")
            if name in wrapper.long_flags or (eq and name in wrapper.long_values):
                i += 1
            elif name in wrapper.long_splits:
                line = given if eq else _word_value(args, i + 1)
                if line is None:
                    return None, (), ""
                lines.append(line)
                i += 1 if eq else 2
            elif name in wrapper.long_values:
                i += 2
            else:
                return None, (), ""
            continue
        if value[:1] in "-+" and len(value) > 1:
            if wrapper.numbers and value[0] == "-" and all(ch in DIGITS for ch in value[1:]):
                i += 1
                continue
            taken = _short(wrapper, args, i, lines, letters)
            if taken is None:
                return None, (), ""
            i = taken
            continue
        break
    return min(i, len(args)), tuple(lines), "".join(letters)


def _short(wrapper: Wrapper, args: list[Word], i: int, lines: list[str], letters: list[str]) -> int | None:
    """Read the short options `args[i]` combines; the index after them (and their values), or None."""
    value = args[i].value or ""
    for j, ch in enumerate(value[1:], 1):
        letters.append(ch)
        rest = value[j + 1 :]
        if ch in wrapper.glued:
            return i + 1
        if ch in wrapper.values or ch in wrapper.splits:
            line = rest if rest else _word_value(args, i + 1)
            if line is None:
                return None
            if ch in wrapper.splits:
                lines.append(line)
            return i + 1 if rest else i + 2
        if ch not in wrapper.flags:
            return None
    return i + 1


def _word_value(args: list[Word], i: int) -> str | None:
    """The value of the word at `i` when there is one the reader knows."""
    if i >= len(args) or args[i].value is None:
        return None
    return args[i].value
