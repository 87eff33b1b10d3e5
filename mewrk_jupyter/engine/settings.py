"""A session's settings: copied whole into branches and forks (T11, A4)."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from ..providers.registry import DEFAULT_MODEL
from .prefix import MEMORY_LEVELS


class SessionSettings(BaseModel):
    """Model, agent, safety level, memory levels and host-message container of one session."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    model: str = DEFAULT_MODEL
    agent: str = "main"
    safety_level: str = "default"
    memory: list[str] = Field(default_factory=lambda: list(MEMORY_LEVELS))
    host_container: Literal["user_message", "box_tool_result"] = "user_message"
    reasoning: str = "off"
    confirm_delete: bool = False
    # Tools the person chose "approve always" for (A1); a branch or fork starts without them.
    approved_always: list[str] = Field(default_factory=list)

    @field_validator("memory")
    @classmethod
    def _known_levels(cls, value: list[str]) -> list[str]:
        unknown = [v for v in value if v not in MEMORY_LEVELS]
        if unknown:
            raise ValueError(f"unknown memory level(s) {unknown}; levels: {', '.join(MEMORY_LEVELS)}")
        return value
