"""The models a session can switch to: the built-in offline models and each configured vendor's."""

from __future__ import annotations

from pathlib import Path

from .offline import MODELS as OFFLINE_MODELS
from .registry import config_for


def model_names(home: Path | None) -> list[str]:
    """Every `vendor/model` of the configuration folder `home` (the vendors of llm/, in file order), then
    the offline models; a vendor whose file is invalid is left out, as the engine leaves it out."""
    config = config_for(home)
    configured = [
        f"{vendor}/{model}"
        for vendor, spec in (config.vendors.items() if config is not None else ())
        for model in spec.models
    ]
    return configured + [f"offline/{name}" for name in OFFLINE_MODELS]
