"""Changing a session's conversation settings: what may change, and the checks a new value passes first."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Protocol

from ...config import policy_for
from ...errors import InvalidInput
from ...providers.base import MESSAGES_PROTOCOLS, ModelInfo
from ...providers.registry import check_trusted, config_for, resolve
from .model import CONFIGURABLE, SessionSettings, parse_settings, stored_names

# Fields of the settings that `configure` does not change, and why, in the person's words.
NOT_HERE = {
    "agent": "the agent is chosen when a session is made (its system prompt is the first card): "
    "start a new session with Session.new(agent=…)",
    "approved_always": "tools are approved for the rest of a session at an approval (approve always)",
    "approved_where": "a tool's approval records the folder it was given in, at the approval itself",
    "skills": "the skills a session starts with are part of every request's prefix, chosen when it is made; "
    "give one now with s.use_skill(name)",
    "confirm_delete": "it is a preference of the configuration folder, shared by every session: "
    "mw.set_preferences(confirm_delete=True)",
}


def changed_settings(current: SessionSettings, changes: dict[str, Any], home: Path | None) -> SessionSettings:
    """The settings after `changes`, each checked as the engine will use it; InvalidInput or ConfigError
    (a sentence naming the field and what it may be) when one cannot act, and nothing changes."""
    changes = stored_names(changes)  # `compaction_mode`, DESIGN §2's name, is `compaction`
    for name in changes:
        if name in NOT_HERE:
            raise InvalidInput(f"{name} cannot be changed here: {NOT_HERE[name]}.")
        if name not in CONFIGURABLE:
            raise InvalidInput(
                f"There is no conversation setting {name!r}; the settings are: {', '.join(CONFIGURABLE)}."
            )
    new = parse_settings({**current.model_dump(), **changes})
    if new.model != current.model:
        check_trusted(new.model, home)  # a vendor of a folder not trusted yet is refused by name
    _, info = resolve(new.model, home)  # an unknown model: the sentence says which file to write
    if new.safety_level != current.safety_level:
        policy_for(config_for(home), new.safety_level)  # an unknown level says which exist
    if new.compaction == "native" and not info.native_compaction and "compaction" not in changes:
        # A new model that cannot compact by itself: the conversation uses the other mode, and says so
        # (the change's description names both settings).
        new = new.model_copy(update={"compaction": "handoff"})
    if new.reasoning != "off" and why_reasoning_cannot_act(info) and "reasoning" not in changes:
        new = new.model_copy(update={"reasoning": "off"})  # a new model that cannot think: the same way
    check_async_tools(new, info)
    check_compaction(new, info)
    check_reasoning(new, info)
    return new


def why_reasoning_cannot_act(info: ModelInfo) -> str | None:
    """Why a reasoning level would change nothing on this model, or None when it sets how hard it thinks.
    The adapters send it where their protocol takes it: Anthropic's thinking budget on a model with signed
    thinking, a Responses reasoning effort on a model that thinks; Chat Completions sends none."""
    if info.thinking == "none":
        return "which does not think"
    if info.protocol == "openai-chat":
        return "openai-chat requests carry no reasoning level (the model thinks as it does)"
    if info.protocol in MESSAGES_PROTOCOLS and info.thinking != "signed":
        return f"{info.protocol} sets a thinking budget only on a model with `thinking: signed`"
    return None


def check_reasoning(settings: SessionSettings, info: ModelInfo) -> None:
    """Refuse a reasoning level on a model where it cannot act (it would be stored and change nothing)."""
    why = why_reasoning_cannot_act(info) if settings.reasoning != "off" else None
    if why is not None:
        joint = ", " if why.startswith("which") else ": "
        raise InvalidInput(
            f"reasoning {settings.reasoning!r} cannot act on `{settings.model}`{joint}{why}. Keep 'off', or "
            "choose a model that thinks (`thinking: signed` under it in llm/<vendor>.yaml for "
            "anthropic-messages, `plain` or `signed` for openai-responses; offline: offline/thinker)."
        )


def check_compaction(settings: SessionSettings, info: ModelInfo) -> None:
    """Refuse the compaction mode native on a model without a compaction of its own."""
    if settings.compaction == "native" and not info.native_compaction:
        raise InvalidInput(
            f"compaction 'native' needs a model with a compaction of its own, and `{settings.model}` has "
            "none; keep 'handoff' (a summary handed to a new session) or choose such a model."
        )


def check_async_tools(settings: SessionSettings, info: ModelInfo) -> None:
    """Refuse async tool calls on a model that does not take them (a result that changes later)."""
    if settings.async_tools and not info.async_tools:
        raise InvalidInput(
            f"async_tools needs a model that takes async tool calls (a background result becomes the output "
            f"of the call that started it, later), and `{settings.model}` does not: choose such a model "
            "(`async_tools: true` under it in llm/<vendor>.yaml; offline: offline/big), or keep it off."
        )


class HeldChange(Protocol):
    """What a change says of the tool lock it left held (the session's `tool_lock`)."""

    @property
    def text(self) -> str:
        """The sentence that says what waits for the prompt cache to cool."""
        ...


def changed_fields(before: SessionSettings, after: SessionSettings) -> tuple[str, ...]:
    """The conversation settings whose values differ between `before` and `after`."""
    return tuple(name for name in CONFIGURABLE if getattr(before, name) != getattr(after, name))


def describe_change(before: SessionSettings, after: SessionSettings, lock: HeldChange | None = None) -> str:
    """One sentence: what changed, from what to what; with the tool lock the change left held (the
    session's `tool_lock` after it), what waits for the prompt cache to cool."""
    parts = [
        f"{name} {getattr(before, name)!r} → {getattr(after, name)!r}"
        for name in changed_fields(before, after)
    ]
    if not parts:
        return "Nothing changed: the settings already had those values."
    said = "Changed " + "; ".join(parts) + "."
    if lock is not None and {"plan_mode", "host_container"} & set(changed_fields(before, after)):
        said += " " + lock.text  # the change is held while the prompt cache is warm
    elif before.host_container != after.host_container:
        said += (
            " Every earlier host message goes in the new container from the next request on, so the "
            "prompt cache starts over."
        )
    return said
