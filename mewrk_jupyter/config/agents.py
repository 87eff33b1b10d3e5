"""`agents/<name>.yaml`: an agent's model, tools, compaction threshold, safety level and system prompt."""

from __future__ import annotations

from pydantic import field_validator

from .base import TOOL_NAME, ConfigModel
from .problems import invalid
from .shares import fraction_advice, whole_number


class AgentConfig(ConfigModel):
    """One agent; its name is the file's stem."""

    model: str
    # The percent of the model's window at which the agent summarises its conversation in place by
    # itself; 0 (the default): never by itself, leaving it to auto-compaction into a new session;
    # `/compact` works anyway (C6).
    summarize_at: int = 0
    # None: the engine's default tool set.
    tools: list[str] | None = None
    safety_level: str | None = None
    system_prompt: str | None = None
    # Skills (`skills/<name>/SKILL.md`) whose instructions the agent's sessions start with.
    skills: list[str] | None = None

    @field_validator("model")
    @classmethod
    def _model(cls, value: str) -> str:
        vendor, _, name = value.partition("/")
        if not vendor or not name:
            raise invalid(f"model must be named `vendor/model`, e.g. `offline/echo`; got {value!r}", "model")
        return value

    @field_validator("summarize_at", mode="before")
    @classmethod
    def _summarize_at(cls, value: object) -> int:
        percent = whole_number(value)
        if percent is None or not (percent == 0 or 5 <= percent <= 100):
            raise invalid(
                "summarize_at must be 0 (never by itself) or a whole number from 5 to 100 (percent of the "
                f"window), not {value!r}{fraction_advice('summarize_at', value, 5, 100)}",
                "summarize_at",
            )
        return percent

    @field_validator("tools")
    @classmethod
    def _tools(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else check_tool_list(value, "tools")

    @field_validator("skills")
    @classmethod
    def _skills(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else check_tool_list(value, "skills")


def check_tool_list(names: list[str], field: str) -> list[str]:
    """Refuse malformed or repeated tool names in a list."""
    seen: set[str] = set()
    for index, name in enumerate(names):
        if not TOOL_NAME.match(name):
            raise invalid(
                f"{field}: {name!r} is not a tool name (letters, digits, '_' or '-')", field, str(index)
            )
        if name in seen:
            raise invalid(f"{field} lists '{name}' twice", field, str(index))
        seen.add(name)
    return names
