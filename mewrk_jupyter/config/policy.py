"""`policy/<level>.yaml`: which tools run freely, which ask first, which are refused, at a safety level."""

from __future__ import annotations

from typing import Literal

from pydantic import ValidationInfo, field_validator, model_validator

from .agents import check_tool_list
from .base import ConfigModel, file_stem
from .environment import EnvironmentPolicy
from .problems import invalid
from .sandbox import SandboxPolicy

Tier = Literal["allow", "ask", "deny"]
TIERS: tuple[Tier, ...] = ("allow", "ask", "deny")
# The engine's background-work tools run or are refused; what a subagent does asks under the level itself.
NEVER_ASK = ("agent_spawn", "task_wait")


class PolicyConfig(ConfigModel):
    """The tiers of one safety level (A4) and its commands' environment; the level is also the file's stem."""

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
        return check_tool_list(value, str(info.field_name))

    @field_validator("ask")
    @classmethod
    def _asks(cls, value: list[str]) -> list[str]:
        for index, name in enumerate(value):
            if name in NEVER_ASK:
                raise invalid(
                    f"ask: `{name}` does not ask first (a subagent's own calls ask at this level); "
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
        """The tier this level gives `tool`, or None when no list names it."""
        return next((t for t in TIERS if tool in getattr(self, t)), None)


# With no `policy/default.yaml`: reading is free, anything that changes files or runs commands asks.
DEFAULT_POLICY = PolicyConfig(
    safety_level="default",
    allow=["ls", "read", "grep", "find", "lsp", "inspect", "notebook_read"],
    ask=["bash", "write", "edit", "python", "notebook_edit", "notebook_run"],
    deny=[],
)
