"""`mcp/<name>.yaml`: an MCP server whose tools join the conversation — a command started over stdio, or a
streamable HTTP address. Secrets are references, read when the server starts and never stored."""

from __future__ import annotations

import re
from typing import Any

from pydantic import Field, field_validator, model_validator

from .base import ConfigModel
from .problems import http_address, invalid
from .secrets import check_headers, check_reference, is_reference, resolve_secret

_ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
# Names whose values are credentials (as the environment filter sees them): a literal there is refused.
_SECRET_ENV = re.compile(r"KEY|SECRET|TOKEN|PASSW|CREDENTIAL|(?:^|_)AUTH(?:_|$)", re.IGNORECASE)
MAX_TIMEOUT = 600.0


class McpServerConfig(ConfigModel):
    """One MCP server; its name is the file's stem, and its tools reach the model as `mcp__<name>__<tool>`.

    Either `command` (with `args`) starts the server as a process speaking MCP over stdio, with no
    environment but the basic one (PATH, HOME, …) and the variables `env` names; or `url` reaches a
    server over streamable HTTP, with `headers`. A value that is a credential is a reference
    (`${ENV_VAR}` or `@file:/path`), resolved when the server starts; so is an argument that is one.
    """

    command: str | None = None
    args: list[str] = []
    env: dict[str, str] = Field(default_factory=dict)
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    # Seconds the server has to start and list its tools, and each call to return.
    startup_timeout: float = Field(default=30.0, gt=0, le=MAX_TIMEOUT)
    timeout: float = Field(default=60.0, gt=0, le=MAX_TIMEOUT)

    @field_validator("command")
    @classmethod
    def _command(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise invalid("command must name the program that starts the server", "command")
        return value

    @field_validator("env", mode="before")
    @classmethod
    def _env(cls, value: Any) -> Any:
        if isinstance(value, dict):
            for name, text in value.items():
                if not _ENV_NAME.match(str(name)):
                    raise invalid(f"env: {name!r} is not an environment variable name", "env", str(name))
                if not isinstance(text, str):
                    raise invalid(f"env.{name} must be text (quote numbers)", "env", str(name))
                if _SECRET_ENV.search(str(name)) or text.startswith(("${", "@file:")):
                    check_reference(text, "env", str(name))
        return value

    @field_validator("headers", mode="before")
    @classmethod
    def _headers(cls, value: Any) -> Any:
        return check_headers(value)

    @field_validator("url")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        return http_address(value, "url", "use headers with a reference")

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerConfig:
        if self.command is not None and self.url is not None:
            raise invalid("an MCP server has either command or url, not both", "url")
        if self.command is None and self.url is None:
            raise invalid(
                "an MCP server needs command (a program speaking MCP over stdio) or url (a streamable "
                "HTTP address)",
                "command",
            )
        if self.url is not None:
            for field in ("args", "env"):
                if getattr(self, field):
                    raise invalid(f"{field} is only for a server started by command", field)
        elif self.headers:
            raise invalid("headers are only for a server reached by url", "headers")
        return self

    @property
    def transport(self) -> str:
        """ "stdio" or "http"."""
        return "stdio" if self.command is not None else "http"

    @property
    def where(self) -> str:
        """The command line or the address, as a person reads it (references stay references)."""
        if self.command is not None:
            return " ".join([self.command, *self.args])
        return str(self.url)

    def references(self) -> list[tuple[str, str]]:
        """The secret references of this server's env and headers, each with its field."""
        found = [(v, f"args.{i}") for i, v in enumerate(self.args) if is_reference(v)]
        found += [(v, f"env.{k}") for k, v in self.env.items() if is_reference(v)]
        return found + [(v, f"headers.{k}") for k, v in self.headers.items() if is_reference(v)]

    def resolve_args(self) -> list[str]:
        """The arguments of the server's command, with references read now (never stored)."""
        return [resolve_secret(v) if is_reference(v) else v for v in self.args]

    def resolve_env(self) -> dict[str, str]:
        """The variables the server's process is given, with references read now (never stored)."""
        return {name: resolve_secret(v) if is_reference(v) else v for name, v in self.env.items()}

    def resolve_headers(self) -> dict[str, str]:
        """The headers sent to the server, with references read now (never stored)."""
        return {name: resolve_secret(v) if is_reference(v) else v for name, v in self.headers.items()}
