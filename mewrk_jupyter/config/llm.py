"""`llm/<vendor>.yaml`: one vendor, its wire protocol, where and how to reach it, and its models."""

from __future__ import annotations

import re
from typing import Any, Literal, get_args

from pydantic import Field, ValidationInfo, field_validator, model_validator

from .base import ConfigModel
from .problems import http_address, invalid
from .secrets import check_headers, check_reference, is_reference, resolve_secret

Protocol = Literal[
    "anthropic-messages",
    "openai-chat",
    "openai-responses",
    "azure-openai",
    "vertex",
    "openai-codex",
    "offline",
]
PROTOCOLS: tuple[str, ...] = get_args(Protocol)
VERTEX_FIELDS = ("project_id", "region", "access_token", "service_account")
# A project id (a legacy one has a `domain:` prefix) and a location become part of the request's address.
_GOOGLE_NAMES = {
    "project_id": re.compile(r"^[A-Za-z0-9][A-Za-z0-9.:_-]{0,62}$"),
    "region": re.compile(r"^[a-z0-9][a-z0-9-]{0,62}$"),
}


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
    # Google Vertex AI (protocol vertex): the project and location the models run in; credentials are
    # an access token's or a service-account key file's reference, else Google's default chain (ADC).
    project_id: str | None = None
    region: str | None = None
    access_token: str | None = None
    service_account: str | None = None
    # OpenAI Codex (protocol openai-codex): `codex-cli` reads the Codex CLI's own login file.
    credentials: Literal["codex-cli"] | None = None

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

    @field_validator("access_token", "service_account", mode="before")
    @classmethod
    def _google_reference(cls, value: Any, info: ValidationInfo) -> Any:
        return None if value is None else check_reference(value, str(info.field_name))

    @field_validator("project_id", "region")
    @classmethod
    def _google_name(cls, value: str | None, info: ValidationInfo) -> str | None:
        field = str(info.field_name)
        if value is not None and not _GOOGLE_NAMES[field].match(value):
            kind = "project's id" if field == "project_id" else "location (lower case letters, digits, '-')"
            raise invalid(f"{field} must be a Google Cloud {kind}", field)
        return value

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

    @model_validator(mode="before")
    @classmethod
    def _codex_compacts(cls, data: Any) -> Any:
        """Codex models compact natively, as the Codex CLI does: on unless a model's entry says otherwise."""
        models = data.get("models") if isinstance(data, dict) else None
        if not isinstance(models, dict) or data.get("protocol") != "openai-codex":
            return data
        on = {"native_compaction": True}
        compacting = {
            name: on if spec is None else {**on, **spec} if isinstance(spec, dict) else spec
            for name, spec in models.items()
        }
        return {**data, "models": compacting}

    @model_validator(mode="after")
    def _vertex(self) -> VendorConfig:
        if self.protocol != "vertex":
            for field in VERTEX_FIELDS:
                if getattr(self, field):
                    raise invalid(f"{field} is only for protocol vertex", field)
            return self
        if not self.project_id:
            raise invalid(
                "protocol vertex needs project_id (the Google Cloud project of the models)", "project_id"
            )
        if not self.region:
            raise invalid(
                "protocol vertex needs region (the Vertex AI location, e.g. us-east5 or global)", "region"
            )
        if self.api_key:
            raise invalid(
                "protocol vertex signs in with Google: write access_token or service_account, or neither for "
                "Google's application default credentials, not api_key",
                "api_key",
            )
        if self.access_token and self.service_account:
            raise invalid("write access_token or service_account, not both", "service_account")
        return self

    @model_validator(mode="after")
    def _codex(self) -> VendorConfig:
        if self.protocol != "openai-codex":
            if self.credentials:
                raise invalid("credentials is only for protocol openai-codex", "credentials")
            return self
        if self.credentials and self.api_key:
            raise invalid("write credentials: codex-cli or api_key, not both", "credentials")
        if not self.credentials and not self.api_key:
            raise invalid(
                "protocol openai-codex needs credentials: codex-cli (the Codex CLI's login, ~/.codex/auth.json) "
                "or api_key (a reference)",
                "credentials",
            )
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
