"""Safety levels (A4): whether a tool runs freely, asks the person first, or is refused."""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...cards.models import Card, HostMessage
from ...config.policy import PolicyConfig, Tier
from ...config.rules import Rule, exact_rule, literal, parse_rule
from ...tools import Tool
from ...tools.command_options import known_option, read_only_options
from ...tools.command_parts import KEYWORDS, Part, assignment, command_parts
from ...tools.command_words import Word
from ...tools.mcp import server_prefix
from .command_match import Shaky, allows_command, catches, may_meet, reading, rough_runs

# A redirection may name these outside the workspace and still be allowed by a rule.
STREAM_FILES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")
# A redirection writes without asking only files that no tool reads as configuration or code: an allowed
# `echo` could otherwise write `.git/config` (git runs its `core.fsmonitor`), `conftest.py` (pytest runs
# it) or a `Makefile`. An allow-list of data files, since the list of files tools read has no end.
DATA_FILES = (".txt", ".log", ".out", ".err", ".csv", ".tsv", ".diff", ".patch")
NOT_DATA = re.compile(r"(requirements|constraints).*\.txt|cmakelists\.txt")
# Commands that run what their arguments say: "commands like this" suggests no rule for them.
RUNS_ITS_ARGUMENTS = frozenset(
    "bash sh zsh dash fish python python3 node perl ruby php eval exec env sudo doas xargs nohup timeout "
    "nice command builtin source . watch ssh su".split()
)
# Commands whose second word says what they do (`git status`, `npm test`): "like this" keeps it.
SUBCOMMANDS = frozenset(
    "git npm pnpm yarn pip pip3 uv poetry conda mamba cargo go docker podman kubectl helm make gh "
    "jupyter terraform dotnet apt apt-get brew systemctl rustup hatch nox tox".split()
)
# Bash's builtins (bash 5.2, `compgen -b`): they run in the shell itself, so some of them change its
# folder for the commands after them (`cd`, `pushd`, or `eval`, `source`, `builtin` running one).
BASH_BUILTINS = frozenset(
    ". : [ alias bg bind break builtin caller cd command compgen complete compopt continue declare dirs "
    "disown echo enable eval exec exit export false fc fg getopts hash help history jobs kill let local "
    "logout mapfile popd printf pushd pwd read readarray readonly return set shift shopt source suspend "
    "test times trap true type typeset ulimit umask unalias unset wait".split()
)
# The builtins known to leave the shell's folder where it is; a program runs in a process of its own.
KEEPS_FOLDER = frozenset(
    ": [ echo printf true false test pwd read export local declare typeset readonly unset shift getopts "
    "wait type help times umask let kill jobs".split()
)


@dataclass(frozen=True)
class Subject:
    """What rules by command match in one call: its main argument as written (`whole`), and the texts
    every one of which an allow rule must match — a command's simple commands, a path inside the
    workspace — or None when they cannot be told (a form the reader does not know, a path outside)."""

    whole: str
    parts: tuple[str, ...] | None
    # For a bash command: each simple command's words, which allow rules meet word by word.
    commands: tuple[tuple[Word, ...], ...] = ()
    # For deny and ask rules: the commands as they may run (unquoted, by program name, past wrappers).
    runs: tuple[tuple[str, ...], ...] = ()
    # Whether the reader can name every command it runs; and the commands holding a computed word.
    clear: bool = True
    shaky: tuple[Shaky, ...] = ()


def main_argument(tool: Tool) -> str | None:
    """The parameter rules by command match for `tool`: its first required text parameter."""
    properties = tool.input_schema.get("properties", {})
    for name in tool.input_schema.get("required", []):
        if isinstance(properties.get(name), dict) and properties[name].get("type") == "string":
            return str(name)
    return None


def subject_of(tool: Tool | None, params: dict[str, Any], root: Path) -> Subject | None:
    """What rules by command match in a call of `tool` with `params`; None when it has no main argument."""
    argument = main_argument(tool) if tool is not None else None
    value = params.get(argument) if argument is not None else None
    if not isinstance(value, str):
        return None
    if tool is not None and tool.name == "bash" and argument == "command":
        return command_subject(value, root)
    if argument == "path":
        inside = inside_workspace(value, root)
        return Subject(value, None if inside is None else (inside,))
    return Subject(value, (value,))


def command_subject(command: str, root: Path) -> Subject:
    """What rules by command match in the bash command `command`, run in the workspace `root`."""
    parts = command_parts(command)
    if parts is None:
        return Subject(command, None, runs=tuple(map(tuple, rough_runs(command))), clear=False)
    read = [reading(p.command_items()) for p in parts]
    seen = tuple(tuple(view) for r in read for view in r.views)
    clear = all(r.clear for r in read)
    shaky = tuple(name for r in read for name in r.shaky)
    moved = False
    for part in parts:
        if not all(_writable_target(t, root, moved) for t in part.targets):  # a file outside: ask
            return Subject(command, None, runs=seen, clear=clear, shaky=shaky)
        if not all(_readable_source(t, root, moved) for t in part.reads):
            return Subject(command, None, runs=seen, clear=clear, shaky=shaky)
        moved = moved or not _keeps_folder(part)
    spoken = [p for p in parts if p.items]
    return Subject(
        command,
        tuple(p.text for p in spoken),
        commands=tuple(tuple(p.items) for p in spoken),
        runs=seen,
        clear=clear,
        shaky=shaky,
    )


def _keeps_folder(part: Part) -> bool:
    """Whether this command surely leaves the shell's folder where it was, so that a relative file name
    in a later redirection still means one in the workspace: it runs nothing (an assignment alone), or
    its name is plain (not computed, not quoted into something else) and names a program or a builtin
    known to keep the folder. Anything else — `cd`, `'cd'`, `c""d`, `builtin cd`, `eval …`, `$x` — may
    move it."""
    command = part.command_items()
    if not command:
        return True
    name = command[0].plain()
    if name is None:
        return False
    return "/" in name or name not in BASH_BUILTINS or name in KEEPS_FOLDER


def _unquoted(target: str) -> str:
    return target[1:-1] if len(target) > 1 and target[0] == target[-1] and target[0] in "'\"" else target


def _readable_source(target: str, root: Path, moved: bool) -> bool:
    """Whether a file a redirection reads is surely inside the workspace (or a stream)."""
    name = _unquoted(target)
    if name in STREAM_FILES:
        return True
    if any(ch in name for ch in "$`~*?[{\\'\"") or (moved and not os.path.isabs(name)):
        return False
    return inside_workspace(name, root) is not None


def _writable_target(target: str, root: Path, moved: bool) -> bool:
    """Whether a redirection may write its file without asking: a stream such as /dev/null, or a plain
    data file inside the workspace (see DATA_FILES) that is no link to another file."""
    name = _unquoted(target)
    if name in STREAM_FILES:
        return True
    if any(ch in name for ch in "$`~*?[{\\'\""):
        return False  # a name the shell would still expand
    if not os.path.isabs(name) and moved:
        return False  # relative to a folder an earlier `cd` chose
    inside = inside_workspace(name, root)
    if inside is None or not _data_file(inside):
        return False
    try:
        return os.stat(os.path.join(root, inside)).st_nlink <= 1  # a hard link writes another file too
    except OSError:
        return True  # not there yet: the shell makes it


def _data_file(inside: str) -> bool:
    """Whether a workspace path (resolved) names a file no tool reads as configuration or code."""
    pieces = inside.split("/")
    if any(p.startswith(".") for p in pieces):
        return False  # `.git/config`, `.mewrk/…`, `.env`: hidden files configure tools
    return pieces[-1].lower().endswith(DATA_FILES) and not NOT_DATA.fullmatch(pieces[-1].lower())


def inside_workspace(path: str, root: Path) -> str | None:
    """`path` relative to the workspace, resolved (links followed), or None when it is outside."""
    real_root = os.path.realpath(root)
    real = os.path.realpath(os.path.join(real_root, path))
    if real != real_root and not real.startswith(real_root + os.sep):
        return None
    return Path(os.path.relpath(real, real_root)).as_posix()


def tier_of(
    policy: PolicyConfig, tool: str, approved_always: list[str], subject: Subject | None = None
) -> Tier:
    """The tier of a call of `tool`: deny wins (by name, or a deny rule matching any command it runs);
    then an ask rule matching any of them asks, and so does a call where a deny or ask rule may meet a
    command the reader cannot name (see _unsure); a tool allowed or approved for the session by name runs,
    and so does a call whose every command an allow rule (or an approve-always rule) matches; otherwise
    the tier its name has, and an unlisted tool asks.

    An MCP server's tool takes the tier of its own name, else that of `mcp__<server>` (all its tools).
    """
    tier = policy.tier(tool)
    prefix = server_prefix(tool)
    if tier is None and prefix is not None:
        tier = policy.tier(prefix)
    if tier == "deny":
        return "deny"
    if subject is not None:
        if _caught(policy.rules("deny", tool), subject):
            return "deny"
        if _caught(policy.rules("ask", tool), subject):
            return "ask"
        if _unsure([*policy.rules("deny", tool), *policy.rules("ask", tool)], subject):
            return "ask"
    if tool in approved_always:
        return "allow"
    if subject is not None:
        granted = [r for r in map(parse_rule, approved_always) if r is not None and r.tool == tool]
        allowing = [*policy.rules("allow", tool), *(r for r in granted if r.pattern is not None)]
        if allows(allowing, subject):
            return "allow"
    return tier or "ask"


def allows(rules: list[Rule], subject: Subject) -> bool:
    """Whether these allow rules let the call run: an exact one (no `*`) is its whole argument (the very
    command a person approved), or every command it runs is matched by one of them."""
    if any(rule.exact and rule.matches(subject.whole) for rule in rules):
        return True
    if not rules or not subject.parts:
        return False
    if subject.commands:
        return all(any(allows_command(rule, list(c)) for rule in rules) for c in subject.commands)
    return all(any(rule.matches(text) for rule in rules) for text in subject.parts)


def _caught(rules: list[Rule], subject: Subject) -> bool:
    """Whether a deny or ask rule meets the call: its text, any command it runs, or any way one may run."""
    texts = (subject.whole, *(subject.parts or ()))
    if any(rule.matches(text) for rule in rules for text in texts):
        return True
    return any(catches(rule, list(run)) for rule in rules for run in subject.runs)


def _unsure(rules: list[Rule], subject: Subject) -> bool:
    """Whether a deny or ask rule may meet the call where the reader cannot tell: it cannot name every
    command the call runs (a computed name, `eval`, `sh -c`, a wrapper's unknown option, a form it does
    not read), or a command a rule names holds a word the shell may make into the rule's (`git $p` for
    `git push*`)."""
    if not rules:
        return False
    if not subject.clear:
        return True
    return any(may_meet(rule, shaky) for rule in rules for shaky in subject.shaky)


def suggested_rules(tool: str, subject: Subject | None) -> tuple[list[str], list[str]]:
    """What "approve always" can add for this call: the rule for this very command (or path), and the
    rules for commands like it (`bash(git status*)`: a command's first word, and its subcommand)."""
    if subject is None:
        return [], []
    exact = [exact_rule(tool, subject.whole)]
    if subject.parts is None:
        return exact, []
    if tool == "bash":
        like = [_like_command(list(items)) for items in subject.commands]
        if not like or any(rule is None for rule in like):
            return exact, []
        return exact, [f"bash({rule})" for rule in dict.fromkeys(r for r in like if r is not None)]
    if subject.parts[0] != subject.whole or "/" in subject.whole:  # a path: the files of its folder
        folder = subject.parts[0].rpartition("/")[0]
        return exact, [f"{tool}({literal(folder)}/*)" if folder else f"{tool}(*)"]
    return exact, []


def _like_command(items: list[Word]) -> str | None:
    """`git status -s` → `git status*`; `pytest tests/x.py` → `pytest *`; `make -j4 test` → `make -j4*`
    (an option no list knows is written out, so the rule allows it); None for a command that starts with
    an assignment or a keyword, holds a word the shell computes, or runs what its arguments say
    (`python …`, `xargs …`): no prefix of it says what it runs."""
    if not items or items[0].raw in KEYWORDS or assignment(items[0].raw):
        return None
    if any(w.value is None or w.glob for w in items) or any(" " in w.seen or "*" in w.seen for w in items):
        return None
    first, *rest = [w.seen for w in items]
    if first in RUNS_ITS_ARGUMENTS or "/" in first:
        return None
    subcommand = rest and rest[0][:1].isalpha() and all(ch.isalnum() or ch in "-_:" for ch in rest[0])
    options = read_only_options([first, *rest])
    unknown = [
        i
        for i, w in enumerate(items[1:], 1)
        if w.option_like() and not (options.every or known_option(options, w.seen))
    ]
    if unknown:
        return " ".join([first, *rest][: unknown[-1] + 1]) + "*"
    if first in SUBCOMMANDS and subcommand:
        return f"{first} {rest[0]}*"
    return f"{first} *" if rest else f"{first}*"


def denial(tool: str, level: str) -> str:
    """What the model reads when the safety level refuses a tool (a statement, not an error)."""
    return (
        f"The tool `{tool}` is not allowed at the safety level `{level}`, so this call was not run. "
        f"Find another way, or ask the person to change the safety level."
    )


# Plan mode (a conversation setting): the model plans and reads, and these tools are not offered, nor a
# tool declared outside the engine (an MCP server's, a tool file's command) that does not say it only reads.
PLAN_WITHHELD = ("write", "edit", "bash", "python", "notebook_edit", "notebook_run")
PLAN_ON = (
    "Plan mode is on: the person wants a plan before any change. Read and search as much as you need, "
    "then present a plan for the person to review. `write`, `edit`, `bash`, `python`, `notebook_edit` "
    "and `notebook_run`, the MCP "
    "servers' tools (`mcp__…`) that their servers do not mark read-only, and the workspace's command "
    "tools not declared read-only are not yours to use until the person turns plan mode off (a call of "
    "one, while the tool list still shows it, is not run); do not try to change files another way. Your "
    "subagents plan too, those at work now and those you start."
)
PLAN_OFF = "Plan mode is off: you may change files and run commands again, under the safety level."
PLAN_OFF_START = "Plan mode is off"
PLAN_TOPIC = "plan_mode"


def plan_message(on: bool) -> HostMessage:
    """The host message that tells the model plan mode began or ended."""
    return HostMessage(topic=PLAN_TOPIC, text=PLAN_ON if on else PLAN_OFF)


def announced_plan_mode(cards: Iterable[Card]) -> bool:
    """Whether these cards leave the model told that plan mode is on: their last plan-mode message says so
    (none: off)."""
    on = False
    for card in cards:
        if isinstance(card, HostMessage) and card.topic == PLAN_TOPIC:
            on = not card.text.startswith(PLAN_OFF_START)  # a reworded message still says which it is
    return on


def plan_withholds(tool: Tool) -> bool:
    """Whether plan mode withholds `tool`: a built-in that changes files or runs code, or a tool declared
    outside the engine (an MCP server's, a `.mewrk/tools` command) that does not say it is read-only."""
    return tool.name in PLAN_WITHHELD or (tool.declared and not tool.read_only)


def plan_denial(tool: str) -> str:
    """What the model reads when it calls a tool that plan mode withholds (a statement, not an error)."""
    return (
        f"Plan mode is on, so `{tool}` is not offered and this call was not run. Present your plan; the "
        "person turns plan mode off when it is time to carry it out."
    )


def plan_withdrawal(tool: str) -> str:
    """What the model reads when plan mode turned on while its call of `tool` waited for the person's
    approval: the approval was withdrawn and the call not run (a statement, not an error)."""
    return (
        f"Plan mode was turned on while this call of `{tool}` waited for the person's approval, so the "
        "approval was withdrawn and the call was not run. Present your plan; the person turns plan mode "
        "off when it is time to carry it out."
    )


# A call of the same response after the one whose approval plan mode withdrew, when the turn ends there.
PLAN_TURN_ENDED = (
    "This call was not run: plan mode was turned on while an earlier call of the same reply waited for "
    "the person's approval, and the turn ended there. Call it again if you still need it."
)


def rejection(reason: str | None) -> str:
    """What the model reads when the person rejects a call (A2): a statement carrying the reason."""
    text = "The person reviewed this call and rejected it, so it was not run."
    if reason and reason.strip():
        text += f" Their reason: {reason.strip()}"
    return text
