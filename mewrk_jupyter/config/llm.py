"""`llm/<vendor>.yaml`: one vendor, its wire protocol, where and how to reach it, and its models."""

from __future__ import annotations

import re
from typing import Any, Literal, get_args

from pydantic import (
    Field,
    ModelWrapValidatorHandler,
    PrivateAttr,
    ValidationInfo,
    field_validator,
    model_validator,
)

from .base import ConfigModel
from .problems import http_address, invalid
from .secrets import check_headers, check_reference, is_reference, resolve_secret

Protocol = Literal[
    "anthropic-messages",
    "openai-chat",
    "openai-responses",
    "azure-openai",
    "bedrock",
    "vertex",
    "openai-codex",
    "claude-agent",
    "offline",
]
PROTOCOLS: tuple[str, ...] = get_args(Protocol)
DISCOVER = "discover"
# The protocols whose servers answer the list of their models (GET /v1/models) in a shape known here.
DISCOVERING = ("openai-chat",)
# The fields of Amazon Bedrock (protocol bedrock); the three credentials are references.
AWS_SECRETS = ("aws_access_key", "aws_secret_key", "aws_session_token")
AWS_FIELDS = ("aws_region", *AWS_SECRETS, "aws_profile")
_AWS_REGION = re.compile(r"^[a-z]{2}(-[a-z]+)+-[0-9]{1,2}$")
_AWS_PROFILE = re.compile(r"^[A-Za-z0-9_.@+-]{1,64}$")
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
    # Empty when the file says `models: discover`: the server lists them (`discovers`).
    models: dict[str, ModelConfig]
    base_url: str | None = None
    api_key: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    api_version: str | None = None
    deployments: dict[str, str] = Field(default_factory=dict)
    # Amazon Bedrock: the region whose runtime serves the models, and the credentials (references) or a
    # profile's name; with none of them the standard AWS chain finds them (environment, profile, role).
    aws_region: str | None = None
    aws_access_key: str | None = None
    aws_secret_key: str | None = None
    aws_session_token: str | None = None
    aws_profile: str | None = None
    # Google Vertex AI (protocol vertex): the project and location the models run in; credentials are
    # an access token's or a service-account key file's reference, else Google's default chain (ADC).
    project_id: str | None = None
    region: str | None = None
    access_token: str | None = None
    service_account: str | None = None
    # OpenAI Codex (protocol openai-codex): `codex-cli` reads the Codex CLI's own login file.
    credentials: Literal["codex-cli"] | None = None
    # Claude Code (protocol claude-agent): the CLI to run; unset, the Claude Agent SDK's own or `claude` on PATH.
    cli_path: str | None = None
    _discovers: bool = PrivateAttr(default=False)

    @field_validator("models", mode="before")
    @classmethod
    def _models(cls, value: Any) -> Any:
        if isinstance(value, str):
            raise invalid(
                f"models must map each model's name to its settings, or be `{DISCOVER}` (the server lists "
                f"them); got {value!r}",
                "models",
            )
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

    @field_validator(*AWS_SECRETS, mode="before")
    @classmethod
    def _aws_secret(cls, value: Any, info: ValidationInfo) -> Any:
        return None if value is None else check_reference(value, str(info.field_name))

    @field_validator("aws_region")
    @classmethod
    def _aws_region(cls, value: str | None) -> str | None:
        if value is not None and not _AWS_REGION.match(value):
            raise invalid(f"aws_region: {value!r} is not an AWS region's name (e.g. us-east-1)", "aws_region")
        return value

    @field_validator("aws_profile")
    @classmethod
    def _aws_profile(cls, value: str | None) -> str | None:
        if value is not None and not _AWS_PROFILE.match(value):
            raise invalid("aws_profile: the name of a profile of ~/.aws/config (e.g. work)", "aws_profile")
        return value

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

    @model_validator(mode="wrap")
    @classmethod
    def _discover(cls, data: Any, handler: ModelWrapValidatorHandler[VendorConfig]) -> VendorConfig:
        """`models: discover`: the models are the ones the server lists, which only openai-chat servers do."""
        if not isinstance(data, dict) or data.get("models") != DISCOVER:
            return handler(data)
        protocol = data.get("protocol")
        if isinstance(protocol, str) and protocol in PROTOCOLS and protocol not in DISCOVERING:
            raise invalid(
                f"models: {DISCOVER} is only for protocol openai-chat, whose servers list their models "
                f"(GET /v1/models); protocol {protocol} has no such list, so name its models under models:",
                "models",
            )
        if not data.get("base_url"):
            # OpenAI's own list holds embedding, speech and image models too, none of them for chat.
            raise invalid(
                f"models: {DISCOVER} lists the models of the server at base_url (a local Ollama, llama.cpp "
                "or vLLM server); give its base_url, or name the models under models:",
                "models",
            )
        # The other checks see one model of every default, as each listed model will be.
        return cls._listed_by_server(handler({**data, "models": {DISCOVER: {}}}))

    def _listed_by_server(self) -> VendorConfig:
        """This vendor, its models left to its server's list."""
        object.__setattr__(self, "models", {})  # frozen once built, as it is now
        self._discovers = True
        return self

    @model_validator(mode="after")
    def _bedrock(self) -> VendorConfig:
        if self.protocol != "bedrock":
            for field in AWS_FIELDS:
                if getattr(self, field):
                    raise invalid(f"{field} is only for protocol bedrock", field)
            return self
        if not self.aws_region:
            raise invalid(
                "protocol bedrock needs aws_region, the region whose Bedrock runtime serves the models "
                "(e.g. us-east-1)",
                "aws_region",
            )
        if bool(self.aws_access_key) != bool(self.aws_secret_key):
            field = "aws_secret_key" if self.aws_access_key else "aws_access_key"
            raise invalid(
                "aws_access_key and aws_secret_key go together: give both, or neither for the standard "
                "AWS chain (environment, profile, role)",
                field,
            )
        if self.aws_session_token and not self.aws_access_key:
            raise invalid(
                "aws_session_token goes with aws_access_key and aws_secret_key", "aws_session_token"
            )
        ways = [f for f in ("api_key", "aws_access_key", "aws_profile") if getattr(self, f)]
        if len(ways) > 1:
            raise invalid(
                f"{' and '.join(ways)} are two ways to sign the requests; keep one "
                "(api_key is a Bedrock API key, aws_profile a profile of ~/.aws/config)",
                ways[1],
            )
        for name, model in self.models.items():
            if model.thinking == "plain":
                raise invalid(
                    f"models.{name}.thinking: Claude on Bedrock signs its thinking; write signed or none",
                    "models",
                    name,
                    "thinking",
                )
            if model.native_compaction:
                raise invalid(
                    f"models.{name}.native_compaction: protocol bedrock offers no compaction of its own "
                    "(Anthropic's is a beta of its own API); leave it out and the handoff compacts",
                    "models",
                    name,
                    "native_compaction",
                )
        return self

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

    @model_validator(mode="after")
    def _claude_agent(self) -> VendorConfig:
        if self.protocol != "claude-agent":
            if self.cli_path:
                raise invalid("cli_path is only for protocol claude-agent", "cli_path")
            return self
        for name, model in self.models.items():
            if model.native_compaction:
                raise invalid(
                    f"models.{name}.native_compaction: protocol claude-agent offers no compaction of its "
                    "own here (Claude Code compacts its own transcript, not the timeline); leave it out and "
                    "the handoff compacts",
                    "models",
                    name,
                    "native_compaction",
                )
            if model.prefill:
                raise invalid(
                    f"models.{name}.prefill: Claude Code answers a person's or a tool's message, never "
                    "continues its own; leave prefill out",
                    "models",
                    name,
                    "prefill",
                )
            if model.thinking == "plain":
                raise invalid(
                    f"models.{name}.thinking: Claude signs its thinking; write signed or none",
                    "models",
                    name,
                    "thinking",
                )
        return self

    @property
    def discovers(self) -> bool:
        """Whether the server lists the models (`models: discover`) rather than the file."""
        return self._discovers

    def deployment(self, model: str) -> str:
        """The Azure deployment serving `model` (its own name when the map has none)."""
        return self.deployments.get(model, model)

    def resolve_api_key(self) -> str | None:
        """The API key, read now from its reference (never stored); None when the vendor needs none."""
        return resolve_secret(self.api_key) if self.api_key else None

    def bedrock_runtime(self) -> str:
        """The Bedrock runtime endpoint of the vendor's region, where it goes when it names no base_url."""
        return f"https://bedrock-runtime.{self.aws_region}.amazonaws.com"

    def resolve_aws_credentials(self) -> dict[str, str | None]:
        """Bedrock's credentials as `anthropic.AnthropicBedrock` takes them, read now from their references
        (never stored); all None: the standard AWS chain finds them."""
        found: dict[str, str | None] = {
            field: resolve_secret(ref) if (ref := getattr(self, field)) else None for field in AWS_SECRETS
        }
        return {**found, "aws_profile": self.aws_profile}

    def resolve_headers(self) -> dict[str, str]:
        """The extra headers, with references read now (never stored)."""
        return {name: resolve_secret(v) if is_reference(v) else v for name, v in self.headers.items()}
