"""`tools/<name>.yaml`: a tool declared as a command, with the JSON schema of its parameters."""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, StrictBool, ValidationInfo, field_validator, model_validator

from .base import TOOL_NAME, ConfigModel, file_stem
from .problems import invalid

# The tools the engine declares itself (the built-ins, the kernel's, the engine's own): a file of the same
# name would take the place of one of them, so it is left out; a test keeps this list in step with theirs.
ENGINE_DECLARED = (
    *("ls", "read", "grep", "find", "write", "edit", "bash", "lsp"),
    *("python", "inspect"),
    *("box", "handoff", "agent_spawn", "task_wait", "workflow"),
)
# `{name}` in the command stands for a parameter; `${NAME}` stays the shell's own variable.
_PLACEHOLDER = re.compile(r"(?<!\$)\{([A-Za-z_][A-Za-z0-9_]*)\}")


def check_command(value: Any) -> Any:
    """A command as a configuration file may give it: a non-empty string (run by bash) or a list of strings."""
    if isinstance(value, str) and value.strip():
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return value
    raise invalid("command must be a non-empty string or a list of strings", "command")


class ToolConfig(ConfigModel):
    """A command-line tool the model may call; its name is also the file's stem."""

    name: str
    description: str
    command: str | list[str]
    parameters: dict[str, Any]
    timeout: float | None = Field(default=None, gt=0)
    # The person's word that the command only reads: plan mode still offers the tool.
    read_only: StrictBool = False

    @field_validator("name")
    @classmethod
    def _name(cls, value: str, info: ValidationInfo) -> str:
        if not TOOL_NAME.match(value):
            raise invalid("name must be 1–64 letters, digits, '_' or '-'", "name")
        if value in ENGINE_DECLARED:
            raise invalid(
                f"name '{value}' is a built-in tool's; name the tool and its file otherwise (e.g. {value}2)",
                "name",
            )
        stem = file_stem(info)
        if stem is not None and value != stem:
            raise invalid(f"name '{value}' must match the file name (tools/{stem}.yaml)", "name")
        return value

    @field_validator("description")
    @classmethod
    def _description(cls, value: str) -> str:
        if not value.strip():
            raise invalid("description must say what the tool does", "description")
        return value

    @field_validator("command", mode="before")
    @classmethod
    def _command(cls, value: Any) -> Any:
        return check_command(value)

    @field_validator("parameters")
    @classmethod
    def _parameters(cls, value: dict[str, Any]) -> dict[str, Any]:
        if value.get("type") != "object":
            raise invalid("parameters must be a JSON schema with `type: object`", "parameters", "type")
        properties = value.get("properties", {})
        if not isinstance(properties, dict) or not all(isinstance(p, dict) for p in properties.values()):
            raise invalid("parameters.properties must map each parameter to its schema", "parameters")
        required = value.get("required", [])
        if not isinstance(required, list):
            raise invalid("parameters.required must be a list of parameter names", "parameters", "required")
        missing = [name for name in required if name not in properties]
        if missing:
            raise invalid(
                f"parameters.required names '{missing[0]}', which is not in parameters.properties",
                "parameters",
                "required",
            )
        return value

    @model_validator(mode="after")
    def _placeholders_known(self) -> ToolConfig:
        known = self.parameters.get("properties", {})
        for name in self.placeholders():
            if name not in known:
                listed = ", ".join(known) or "none"
                raise invalid(
                    f"command uses {{{name}}}, which is not among the parameters ({listed})", "command"
                )
        return self

    def placeholders(self) -> list[str]:
        """The parameter names the command refers to as `{name}`, in order of first use."""
        parts = [self.command] if isinstance(self.command, str) else self.command
        found: list[str] = []
        for part in parts:
            for name in _PLACEHOLDER.findall(part):
                if name not in found:
                    found.append(name)
        return found
