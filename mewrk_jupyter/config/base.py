"""What every configuration file model shares: unknown fields refused, values frozen once loaded."""

from __future__ import annotations

import re

from pydantic import BaseModel, ConfigDict, ValidationInfo

FILE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*$")
TOOL_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


class ConfigModel(BaseModel):
    """A validated piece of a configuration file."""

    model_config = ConfigDict(extra="forbid", frozen=True)


def file_stem(info: ValidationInfo) -> str | None:
    """The stem of the file being validated (the vendor, agent, level or tool name), when known."""
    context = info.context or {}
    return context.get("name")
