"""`prompts/<profile>.yaml`: wording the engine uses, overridable key by key (e.g. C3's handoff texts)."""

from __future__ import annotations

from typing import Any

from pydantic import Field, model_validator

from .base import ConfigModel
from .problems import invalid


class PromptProfile(ConfigModel):
    """A flat mapping of prompt keys to text; a key left out keeps the engine's own wording."""

    handoff_armed_notice: str | None = Field(default=None, alias="handoff.armed_notice")
    handoff_start_message: str | None = Field(default=None, alias="handoff.start_message")
    # The question a summary compaction asks the model (C7); the person's instructions follow it.
    summary_instruction: str | None = Field(default=None, alias="summary.instruction")

    @model_validator(mode="before")
    @classmethod
    def _flatten(cls, value: Any) -> Any:
        # `handoff: {armed_notice: …}` and `handoff.armed_notice: …` are the same key.
        return _flat(value, "") if isinstance(value, dict) else value

    def get(self, key: str) -> str | None:
        """The text for a dotted key such as `handoff.armed_notice`, or None when the profile leaves it."""
        return self.as_mapping().get(key)

    def as_mapping(self) -> dict[str, str]:
        """The keys this profile sets, as a flat mapping."""
        return self.model_dump(by_alias=True, exclude_none=True)


PROMPT_KEYS: tuple[str, ...] = tuple(str(f.alias) for f in PromptProfile.model_fields.values())


def _flat(value: dict[Any, Any], prefix: str) -> dict[str, Any]:
    flat: dict[str, Any] = {}
    for key, item in value.items():
        name = f"{prefix}{key}"
        for inner, text in _flat(item, f"{name}.").items() if isinstance(item, dict) else [(name, item)]:
            if inner in flat:
                raise invalid(f"the key '{inner}' is written twice", inner)
            flat[inner] = text
    return flat
