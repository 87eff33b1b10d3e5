"""The models a session can switch to: the built-in offline models and each configured vendor's."""

from __future__ import annotations

from pathlib import Path

from .offline import MODELS as OFFLINE_MODELS
from .registry import config_for, vendor_models


def model_names(home: Path | None) -> list[str]:
    """Every `vendor/model` of the configuration folder `home` (the vendors of llm/, in file order), then
    the offline models; a vendor whose file is invalid is left out, as the engine leaves it out, and a
    server that lists its models gives the ones it lists now."""
    config = config_for(home)
    configured = []
    if config is not None:
        configured = [
            f"{vendor}/{model}" for vendor in config.vendors for model in vendor_models(config, vendor)
        ]
    return configured + [f"offline/{name}" for name in OFFLINE_MODELS]
