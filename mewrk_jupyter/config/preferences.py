"""`preferences.yaml`: the person's choices for every session of the configuration folder."""

from __future__ import annotations

import math
from typing import Any

from pydantic import ValidationInfo, field_validator

from .base import ConfigModel
from .problems import invalid

PREFERENCES_FILE = "preferences.yaml"

# field -> (lowest, highest, whole numbers only, how the bounds are written in a sentence)
RANGES: dict[str, tuple[float, float, bool, str]] = {
    "handoff_threshold": (0.20, 0.97, False, "a number from 0.20 to 0.97"),
    "native_threshold": (0.20, 0.97, False, "a number from 0.20 to 0.97"),
    "keep_user_tokens": (0, 128_000, True, "a whole number from 0 to 128,000"),
}


class Preferences(ConfigModel):
    """Global preferences of a configuration folder; they apply to running sessions too.

    `confirm_delete`: the timeline asks before deleting a card. `auto_compaction` and the thresholds
    (shares of the model's window) govern compaction into a new session: at `handoff_threshold` the
    model is asked to hand off, at `native_threshold` the provider compacts; `keep_user_tokens` is the
    budget of the person's messages a native compaction keeps.
    """

    confirm_delete: bool = False
    auto_compaction: bool = True
    handoff_threshold: float = 0.80
    native_threshold: float = 0.90
    # The newest tokens of the person's own messages that a native compaction keeps.
    keep_user_tokens: int = 64_000

    @field_validator("*", mode="before")
    @classmethod
    def _in_range(cls, value: Any, info: ValidationInfo) -> Any:
        name = info.field_name or ""
        if name not in RANGES:
            if not isinstance(value, bool):  # strict: "yes" or 1 are not taken for true
                raise invalid(f"{name} must be true or false, not {_shown(value)}", name)
            return value
        low, high, whole, allowed = RANGES[name]
        number = isinstance(value, (int, float)) and not isinstance(value, bool)
        if whole and isinstance(value, float):
            number = False
        if not number or not math.isfinite(value) or not low <= value <= high:
            raise invalid(f"{name} must be {allowed}, not {_shown(value)}", name)
        return value


def allowed_values(name: str) -> str:
    """What a preference may be, in words (for the settings panel and refusals)."""
    return RANGES[name][3] if name in RANGES else "true or false"


def _shown(value: Any) -> str:
    """A short rendering of a refused value (a preference is never a secret, but may be long)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
