"""`sandbox:` of a safety level: whether the commands the engine starts run confined, and what they see.

A command (bash, a command tool, a hook, the language server, a stdio MCP server) runs where the kernel's
and the Jupyter server's processes, and so their environment, are out of its sight. Written as one word
(`sandbox: required`) or as a mapping:

    sandbox:
      mode: auto          # auto: confined where this machine can; required: refused where it cannot;
                          # off: not confined
      read: [~/data]      # more folders the command may read (the system's and Python's always)
      write: [~/.cache]   # more folders it may change (the workspace always)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Literal

from pydantic import ValidationInfo, field_validator, model_validator

from .base import ConfigModel
from .problems import invalid

SandboxMode = Literal["auto", "required", "off"]
_BOOLEAN: dict[bool, SandboxMode] = {False: "off", True: "auto"}


class SandboxPolicy(ConfigModel):
    """How the commands of a safety level are confined (see the module's docstring)."""

    mode: SandboxMode = "auto"
    read: list[str] = []
    write: list[str] = []

    @model_validator(mode="before")
    @classmethod
    def _one_word(cls, value: Any) -> Any:
        # `sandbox: required` is the mode alone; YAML reads a bare `off` (and `on`) as a boolean.
        if isinstance(value, dict) and isinstance(value.get("mode"), bool):
            return {**value, "mode": _BOOLEAN[value["mode"]]}
        if isinstance(value, bool):
            return {"mode": _BOOLEAN[value]}
        return {"mode": value} if isinstance(value, str) else value

    @field_validator("read", "write")
    @classmethod
    def _absolute(cls, value: list[str], info: ValidationInfo) -> list[str]:
        field = str(info.field_name)
        for index, raw in enumerate(value):
            if not Path(raw).expanduser().is_absolute():
                raise invalid(
                    f"sandbox.{field}: {raw!r} is not an absolute path (write it from / or from ~); "
                    "the workspace itself is always writable",
                    "sandbox",
                    field,
                    str(index),
                )
        return value

    def paths(self, field: Literal["read", "write"]) -> tuple[Path, ...]:
        """The folders of `read` or `write`, `~` expanded."""
        return tuple(Path(raw).expanduser() for raw in getattr(self, field))

    def untrusted(self) -> SandboxPolicy:
        """What a folder not trusted yet may ask: to be confined where possible or to require it, never to
        run unconfined nor to show a command anything outside the workspace."""
        return SandboxPolicy(mode="required" if self.mode == "required" else "auto")
