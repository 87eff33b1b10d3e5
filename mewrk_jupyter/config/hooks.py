"""`hooks/<name>.yaml`: a command the engine runs at a moment of the conversation; what it prints reaches
the model as a host message."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator

from .base import ConfigModel
from .tools import check_command

HookEvent = Literal["session_start", "before_request", "after_tool"]
HOOK_EVENTS: tuple[str, ...] = ("session_start", "before_request", "after_tool")
MAX_HOOK_TIMEOUT = 600.0


class HookConfig(ConfigModel):
    """When the hook runs, the command it runs in the workspace, and how long it may take.

    `tools` narrows an `after_tool` hook to calls of those tools (by default every tool call).
    """

    event: HookEvent
    command: str | list[str]
    timeout: float = Field(default=30.0, gt=0, le=MAX_HOOK_TIMEOUT)
    tools: list[str] | None = None

    @field_validator("command", mode="before")
    @classmethod
    def _command(cls, value: Any) -> Any:
        return check_command(value)

    def argv(self) -> list[str]:
        """The process to start: a string runs in bash, a list as it stands."""
        return ["bash", "-c", self.command] if isinstance(self.command, str) else list(self.command)

    def wants(self, event: str, tool: str | None = None) -> bool:
        """Whether this hook runs at `event` (for `after_tool`, after a call of `tool`)."""
        if event != self.event:
            return False
        return event != "after_tool" or self.tools is None or tool in self.tools
