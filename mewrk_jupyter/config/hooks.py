"""`hooks/<name>.yaml`: a command the engine runs at a moment of the conversation; what it prints reaches
the model as a host message. `before_tool`, `before_send` and `before_compact` hooks read what they are
run for as JSON on stdin and can answer (A5): block a call or refuse a message (exit 2, or a JSON
decision), rewrite a call's input, add instructions to a summary."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from .base import ConfigModel
from .problems import invalid
from .tools import check_command

HookEvent = Literal[
    "session_start", "before_request", "before_tool", "after_tool", "before_send", "before_compact"
]
HOOK_EVENTS: tuple[str, ...] = (
    "session_start",
    "before_request",
    "before_tool",
    "after_tool",
    "before_send",
    "before_compact",
)
# The events whose hooks read JSON on stdin and may answer: they run at their moment, never on request.
ANSWERING_EVENTS = ("before_tool", "before_send", "before_compact")
# The events that concern one tool call, where `tools:` narrows a hook to calls of those tools.
TOOL_EVENTS = ("before_tool", "after_tool")
MAX_HOOK_TIMEOUT = 600.0


class HookConfig(ConfigModel):
    """When the hook runs, the command it runs in the workspace, and how long it may take.

    `tools` narrows a `before_tool` or `after_tool` hook to calls of those tools (by default every call).
    """

    event: HookEvent
    command: str | list[str]
    timeout: float = Field(default=30.0, gt=0, le=MAX_HOOK_TIMEOUT)
    tools: list[str] | None = None

    @field_validator("command", mode="before")
    @classmethod
    def _command(cls, value: Any) -> Any:
        return check_command(value)

    @model_validator(mode="after")
    def _tools_for_calls(self) -> HookConfig:
        if self.tools is not None and self.event not in TOOL_EVENTS:
            raise invalid(
                f"tools: only a before_tool or after_tool hook runs for calls of some tools; a "
                f"{self.event} hook runs for none, so remove `tools`",
                "tools",
            )
        return self

    def argv(self) -> list[str]:
        """The process to start: a string runs in bash, a list as it stands."""
        return ["bash", "-c", self.command] if isinstance(self.command, str) else list(self.command)

    def wants(self, event: str, tool: str | None = None) -> bool:
        """Whether this hook runs at `event` (before or after a call of `tool`, for the tool events)."""
        if event != self.event:
            return False
        return event not in TOOL_EVENTS or self.tools is None or tool in self.tools
