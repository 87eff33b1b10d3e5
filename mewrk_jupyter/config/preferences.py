"""`preferences.yaml`: the person's choices for every session of the configuration folder."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationInfo, field_validator

from .base import ConfigModel
from .problems import invalid
from .shares import fraction_advice, whole_number

PREFERENCES_FILE = "preferences.yaml"

# field -> (lowest, highest, step of a number box, how the bounds are written in a sentence); each is a
# whole number. The thresholds are shares of the model's window, in percent, as the ring shows them.
RANGES: dict[str, tuple[int, int, int, str]] = {
    "handoff_threshold": (20, 97, 1, "a whole number from 20 to 97 (percent of the window)"),
    "native_threshold": (20, 97, 1, "a whole number from 20 to 97 (percent of the window)"),
    "keep_user_tokens": (0, 128_000, 1000, "a whole number from 0 to 128,000"),
}


class Preferences(ConfigModel):
    """Global preferences of a configuration folder; they apply to running sessions too.

    `confirm_delete`: the timeline asks before deleting a card. `auto_compaction` and the thresholds
    (percent of the model's window) govern compaction into a new session: at `handoff_threshold` the
    model is asked to hand off, at `native_threshold` the provider compacts; `keep_user_tokens` is the
    budget of the person's messages a native compaction keeps.
    """

    confirm_delete: bool = False
    auto_compaction: bool = True
    handoff_threshold: int = 80
    native_threshold: int = 90
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
        low, high, _, allowed = RANGES[name]
        number = whole_number(value)
        if number is None or not low <= number <= high:
            refused = (
                f"{name} must be {allowed}, not {_shown(value)}{fraction_advice(name, value, low, high)}"
            )
            raise invalid(refused, name)
        return number


def allowed_values(name: str) -> str:
    """What a preference may be, in words (for the settings panel and refusals)."""
    return RANGES[name][3] if name in RANGES else "true or false"


def _shown(value: Any) -> str:
    """A short rendering of a refused value (a preference is never a secret, but may be long)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."
