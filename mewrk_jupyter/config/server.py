"""`server/*.yaml`: the HTTP API's address and token; read at start only, never edited by the settings editor."""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from .base import ConfigModel
from .secrets import check_reference


class ServerConfig(ConfigModel):
    """Where the HTTP API listens and the token clients present (a reference, like every secret)."""

    host: str | None = None
    port: int | None = Field(default=None, ge=1, le=65535)
    token: str | None = None

    @field_validator("token", mode="before")
    @classmethod
    def _token(cls, value: Any) -> Any:
        return None if value is None else check_reference(value, "token")
