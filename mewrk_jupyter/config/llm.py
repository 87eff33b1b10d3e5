"""`llm/<vendor>.yaml`: one vendor, its wire protocol, where and how to reach it, and its models."""

from __future__ import annotations

from typing import Any, Literal, get_args

from pydantic import Field, field_validator, model_validator

from .base import ConfigModel
from .problems import http_address, invalid
from .secrets import check_headers, check_reference, is_reference, resolve_secret

Protocol = Literal["anthropic-messages", "openai-chat", "openai-responses", "azure-openai", "offline"]
PROTOCOLS: tuple[str, ...] = get_args(Protocol)


class Prices(ConfigModel):
    """What a model costs, in the vendor's currency per million tokens."""

    input: float | None = Field(default=None, ge=0)
    output: float | None = Field(default=None, ge=0)
    cache_read: float | None = Field(default=None, ge=0)
    cache_write: float | None = Field(default=None, ge=0)


class ModelConfig(ConfigModel):
    """What the engine knows of one model: window, abilities, limits and prices."""

    context_window: int | None = Field(default=None, gt=0)
    vision: bool = False
    # Whether PDFs go as documents; unset, the protocol decides (Anthropic and Responses take them).
    pdf_input: bool | None = None
    thinking: Literal["signed", "plain", "none"] = "none"
    max_tokens: int = Field(default=4096, gt=0)
    native_compaction: bool = False
    # Whether a background result may become the output of the call that started it, later (T15).
    async_tools: bool = False
    prices: Prices | None = None
    # DeepSeek's thinking mode wants `reasoning_content` sent back on turns that made tool calls.
    reasoning_content_roundtrip: Literal["never", "tool_turns", "always"] = "never"
    # Whether a request may end with an assistant message that the model continues (Claude 4.6+ refuses).
    prefill: bool = False


class VendorConfig(ConfigModel):
    """One vendor file; the vendor's name is the file's stem and models are addressed `vendor/model`."""

    protocol: Protocol
    models: dict[str, ModelConfig]
    base_url: str | None = None
    api_key: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    api_version: str | None = None
    deployments: dict[str, str] = Field(default_factory=dict)

    @field_validator("models", mode="before")
    @classmethod
    def _models(cls, value: Any) -> Any:
        if isinstance(value, dict):
            if not value:
                raise invalid("models must declare at least one model", "models")
            # `name:` with nothing after it means a model with every default.
            return {name: {} if spec is None else spec for name, spec in value.items()}
        return value

    @field_validator("api_key", mode="before")
    @classmethod
    def _api_key(cls, value: Any) -> Any:
        return None if value is None else check_reference(value, "api_key")

    @field_validator("headers", mode="before")
    @classmethod
    def _headers(cls, value: Any) -> Any:
        return check_headers(value)

    @field_validator("base_url")
    @classmethod
    def _base_url(cls, value: str | None) -> str | None:
        return http_address(value, "base_url", "use api_key or headers")

    @model_validator(mode="after")
    def _azure(self) -> VendorConfig:
        if self.protocol != "azure-openai":
            for field in ("api_version", "deployments"):
                if getattr(self, field):
                    raise invalid(f"{field} is only for protocol azure-openai", field)
            return self
        if not self.base_url:
            raise invalid("protocol azure-openai needs base_url (the resource's endpoint)", "base_url")
        for model in self.deployments:
            if model not in self.models:
                raise invalid(f"deployments.{model}: no model '{model}' in models", "deployments", model)
        return self

    def deployment(self, model: str) -> str:
        """The Azure deployment serving `model` (its own name when the map has none)."""
        return self.deployments.get(model, model)

    def resolve_api_key(self) -> str | None:
        """The API key, read now from its reference (never stored); None when the vendor needs none."""
        return resolve_secret(self.api_key) if self.api_key else None

    def resolve_headers(self) -> dict[str, str]:
        """The extra headers, with references read now (never stored)."""
        return {name: resolve_secret(v) if is_reference(v) else v for name, v in self.headers.items()}
