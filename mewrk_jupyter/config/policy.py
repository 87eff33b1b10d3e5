"""`policy/<level>.yaml`: which tools run freely, which ask first, which are refused, at a safety level."""

from __future__ import annotations

import json
import re
from typing import Literal

import yaml
from pydantic import ValidationInfo, field_validator, model_validator

from .base import ConfigModel, file_stem
from .environment import EnvironmentPolicy
from .problems import invalid
from .rules import Rule, parse_rule, rule_problem
from .sandbox import SandboxPolicy

Tier = Literal["allow", "ask", "deny"]
TIERS: tuple[Tier, ...] = ("allow", "ask", "deny")
# The engine's background-work tools run or are refused; what a subagent does asks under the level itself.
NEVER_ASK = ("agent_spawn", "task_wait", "workflow")


class PolicyConfig(ConfigModel):
    """The tiers of one safety level (A4) and its commands' environment; the level is also the file's stem.

    A tier lists tools by name (`bash`) or rules by command (`bash(git status*)`, A5; config/rules.py).
    """

    safety_level: str
    allow: list[str] = []
    ask: list[str] = []
    deny: list[str] = []
    # What the commands started at this level see of the kernel's environment variables.
    environment: EnvironmentPolicy = EnvironmentPolicy()
    # Where those commands run: confined out of sight of the kernel's processes, and what they may touch.
    sandbox: SandboxPolicy = SandboxPolicy()

    @field_validator("allow", "ask", "deny")
    @classmethod
    def _names(cls, value: list[str], info: ValidationInfo) -> list[str]:
        field = str(info.field_name)
        seen: set[str] = set()
        for index, entry in enumerate(value):
            problem = rule_problem(entry) if isinstance(entry, str) else f"{entry!r} is not text"
            if problem is not None:
                raise invalid(f"{field}: {problem}", field, str(index))
            if entry in seen:
                raise invalid(f"{field} lists '{entry}' twice", field, str(index))
            seen.add(entry)
        return value

    @field_validator("ask")
    @classmethod
    def _asks(cls, value: list[str]) -> list[str]:
        for index, entry in enumerate(value):
            name = entry.partition("(")[0]
            if name in NEVER_ASK:
                raise invalid(
                    f"ask: `{entry}` does not ask first (a subagent's own calls ask at this level); "
                    f"list it under allow, or under deny to refuse it",
                    "ask",
                    str(index),
                )
        return value

    @field_validator("safety_level")
    @classmethod
    def _level(cls, value: str, info: ValidationInfo) -> str:
        stem = file_stem(info)
        if stem is not None and value != stem:
            raise invalid(
                f"safety_level '{value}' must match the file name (policy/{stem}.yaml)", "safety_level"
            )
        return value

    @model_validator(mode="after")
    def _one_tier_each(self) -> PolicyConfig:
        for i, first in enumerate(TIERS):
            for second in TIERS[i + 1 :]:
                both = [name for name in getattr(self, first) if name in getattr(self, second)]
                if both:
                    raise invalid(f"tool '{both[0]}' is in both {first} and {second}", second)
        return self

    def tier(self, tool: str) -> Tier | None:
        """The tier this level gives `tool` by name, or None when no list names it alone."""
        return next((t for t in TIERS if tool in getattr(self, t)), None)

    def rules(self, tier: Tier, tool: str) -> list[Rule]:
        """The rules by command that `tier` lists for `tool` (`bash(git status*)`, …)."""
        found = (parse_rule(entry) for entry in getattr(self, tier))
        return [rule for rule in found if rule is not None and rule.pattern is not None and rule.tool == tool]


# With no `policy/default.yaml`: reading is free, anything that changes files or runs commands asks.
DEFAULT_POLICY = PolicyConfig(
    safety_level="default",
    allow=["ls", "read", "grep", "find", "lsp", "inspect", "notebook_read"],
    ask=["bash", "write", "edit", "python", "notebook_edit", "notebook_run"],
    deny=[],
)


def with_allowed(text: str | None, level: str, entries: list[str]) -> str:
    """The text of `policy/<level>.yaml` with `entries` added to its `allow` list (the built-in level's
    lists when there is no file yet); the file's other lines stay as they are."""
    if text is None:
        base = DEFAULT_POLICY if level == "default" else PolicyConfig(safety_level=level)
        lines = [f"safety_level: {level}"]
        for tier in TIERS:
            values = getattr(base, tier) + (entries if tier == "allow" else [])
            lines.append(f"{tier}:" + ("" if values else " []"))
            lines += [f"  - {json.dumps(value)}" for value in values]
        return "\n".join(lines) + "\n"
    data = yaml.safe_load(text) or {}
    current = data.get("allow") if isinstance(data, dict) else None
    values = [
        *(current if isinstance(current, list) else []),
        *(e for e in entries if e not in (current or [])),
    ]
    block = ["allow:", *(f"  - {json.dumps(value)}" for value in values)]
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if re.match(r"allow\s*:", line)), None)
    if start is None:
        return text.rstrip("\n") + "\n" + "\n".join(block) + "\n"
    end = start + 1
    while end < len(lines) and (not lines[end].strip() or lines[end][:1] in (" ", "\t", "-")):
        end += 1
    while end > start + 1 and not lines[end - 1].strip():
        end -= 1  # the blank lines before the next key stay
    return "\n".join([*lines[:start], *block, *lines[end:]]) + "\n"
