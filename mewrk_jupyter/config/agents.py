"""`agents/<name>.yaml`: an agent's model, tools, compaction threshold, safety level and system prompt."""

from __future__ import annotations

from pydantic import Field, field_validator

from .base import TOOL_NAME, ConfigModel
from .problems import invalid


class AgentConfig(ConfigModel):
    """One agent; its name is the file's stem."""

    model: str
    # 0 means the agent never compacts by itself; `/compact` still works (C6). Automatic compaction is
    # not built yet, so a file may only say 0; the default is the threshold it will have.
    summarize_at: float = Field(default=0.8, ge=0, le=1)
    # None: the engine's default tool set.
    tools: list[str] | None = None
    safety_level: str | None = None
    system_prompt: str | None = None

    @field_validator("model")
    @classmethod
    def _model(cls, value: str) -> str:
        vendor, _, name = value.partition("/")
        if not vendor or not name:
            raise invalid(f"model must be named `vendor/model`, e.g. `offline/echo`; got {value!r}", "model")
        return value

    @field_validator("summarize_at")
    @classmethod
    def _summarize_at(cls, value: float) -> float:
        # Accepting a threshold that nothing acts on would let a person believe the agent compacts.
        if value != 0:
            raise invalid(
                f"summarize_at: the engine does not compact a conversation by itself yet, so nothing "
                f"would happen at {value:g}; write 0 (never by itself) or leave the field out",
                "summarize_at",
            )
        return value

    @field_validator("tools")
    @classmethod
    def _tools(cls, value: list[str] | None) -> list[str] | None:
        return None if value is None else check_tool_list(value, "tools")


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
