"""Find the provider that serves a `vendor/model` name."""

from __future__ import annotations

from ..errors import ConfigError
from .base import ModelInfo, Provider
from .offline import OfflineProvider

DEFAULT_MODEL = "offline/echo"

_OFFLINE = OfflineProvider()


def resolve(model: str) -> tuple[Provider, ModelInfo]:
    """The provider and model facts for a model name, or a ConfigError that says what to fix."""
    if not isinstance(model, str) or "/" not in model or model.startswith("/") or model.endswith("/"):
        raise ConfigError(f"A model is named `vendor/model`, e.g. `offline/echo`; got {model!r}.")
    vendor = model.split("/", 1)[0]
    if vendor == "offline":
        return _OFFLINE, _OFFLINE.model_info(model)
    raise ConfigError(
        f"The model `{model}` is not configured: there is no `.mewrk/llm/{vendor}.yaml` declaring it."
    )
