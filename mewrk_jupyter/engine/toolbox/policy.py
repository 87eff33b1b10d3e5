"""Safety levels (A4): whether a tool runs freely, asks the person first, or is refused."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ...cards.models import Card, HostMessage
from ...config.policy import PolicyConfig, Tier
from ...config.rules import Rule, exact_rule, literal, parse_rule
from ...tools import Tool
from ...tools.command_parts import Part, command_parts
from ...tools.mcp import server_prefix

# A redirection may name these outside the workspace and still be allowed by a rule.
STREAM_FILES = ("/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty")
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
# Commands after which a relative file name no longer means one in the workspace.
CHANGES_FOLDER = ("cd", "pushd", "popd")


@dataclass(frozen=True)
class Subject:
    """What rules by command match in one call: its main argument as written (`whole`), and the texts
    every one of which an allow rule must match — a command's simple commands, a path inside the
    workspace — or None when they cannot be told (a form the reader does not know, a path outside)."""

    whole: str
    parts: tuple[str, ...] | None
    # For deny rules also the commands as run, without leading keywords and assignments.
    bare: tuple[str, ...] = ()


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
    parts = command_parts(command)
    if parts is None:
        return Subject(command, None)
    bare = tuple(" ".join(p.command_words()) for p in parts)
    moved = False
    texts: list[str] = []
    for part in parts:
        words = part.command_words()
        if not all(_writable_target(t, root, moved) for t in part.targets):
            return Subject(command, None, bare)  # it writes a file outside the workspace: ask
        moved = moved or bool(words and words[0] in CHANGES_FOLDER)
        if part.words:
            texts.append(part.text)
    return Subject(command, tuple(texts), bare)


def _writable_target(target: str, root: Path, moved: bool) -> bool:
    """Whether a redirection's file is surely inside the workspace (or a stream such as /dev/null)."""
    name = target[1:-1] if len(target) > 1 and target[0] == target[-1] and target[0] in "'\"" else target
    if name in STREAM_FILES:
        return True
    if any(ch in name for ch in "$`~*?[{\\'\""):
        return False  # a name the shell would still expand
    if not os.path.isabs(name) and moved:
        return False  # relative to a folder an earlier `cd` chose
    return inside_workspace(name, root) is not None


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
    then an ask rule matching any of them asks; a tool allowed or approved for the session by name runs,
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
        texts = (subject.whole, *(subject.parts or ()), *subject.bare)
        if _any_matches(policy.rules("deny", tool), texts):
            return "deny"
        if _any_matches(policy.rules("ask", tool), texts):
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
    return all(any(rule.matches(text) for rule in rules) for text in subject.parts)


def _any_matches(rules: list[Rule], texts: tuple[str, ...]) -> bool:
    return any(rule.matches(text) for rule in rules for text in texts)


def suggested_rules(tool: str, subject: Subject | None) -> tuple[list[str], list[str]]:
    """What "approve always" can add for this call: the rule for this very command (or path), and the
    rules for commands like it (`bash(git status*)`: a command's first word, and its subcommand)."""
    if subject is None:
        return [], []
    exact = [exact_rule(tool, subject.whole)]
    if subject.parts is None:
        return exact, []
    if tool == "bash":
        like = [_like_command(text) for text in subject.parts]
        if any(rule is None for rule in like):
            return exact, []
        return exact, [f"bash({rule})" for rule in dict.fromkeys(r for r in like if r is not None)]
    if subject.parts[0] != subject.whole or "/" in subject.whole:  # a path: the files of its folder
        folder = subject.parts[0].rpartition("/")[0]
        return exact, [f"{tool}({literal(folder)}/*)" if folder else f"{tool}(*)"]
    return exact, []


def _like_command(text: str) -> str | None:
    """`git status -s` → `git status*`; `pytest tests/x.py` → `pytest *`; `echo two` → `echo *`; None for a command that starts
    with an assignment or a keyword, or runs what its arguments say (`python …`, `xargs …`): no prefix of
    it says what it runs."""
    part = Part(words=text.split(" "))
    if part.command_words() != part.words or not part.words:
        return None
    first, *rest = part.words
    if first in RUNS_ITS_ARGUMENTS or "/" in first:
        return None
    subcommand = rest and rest[0][:1].isalpha() and all(ch.isalnum() or ch in "-_:" for ch in rest[0])
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
