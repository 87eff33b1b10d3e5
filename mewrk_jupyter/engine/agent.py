"""What an agent file (`agents/<name>.yaml`) gives a new session: its model, safety level and system prompt."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..cards.models import SystemPrompt
from ..config import AgentConfig, Config, policy_for
from ..errors import ConfigError
from ..providers.registry import DEFAULT_MODEL

# The agent a session has when none is named; it may go without a file (the offline default, P4).
DEFAULT_AGENT = "main"


@dataclass(frozen=True)
class AgentStart:
    """The settings a new session takes from its agent, and the system-prompt card its timeline starts with."""

    settings: dict[str, Any]
    system_prompt: SystemPrompt | None


def agent_of(config: Config, name: str) -> AgentConfig | None:
    """The agent `name`; None for the default agent without a file; a ConfigError for any other missing one."""
    if name == DEFAULT_AGENT and name not in config.agents and not config.broken("agents", name):
        return None
    return config.agent(name)


def agent_start(config: Config, model: str | None, settings: dict[str, Any]) -> AgentStart:
    """Fill in what the caller left out from the agent's file: model, safety level, system-prompt card.

    The caller's own `model` and `safety_level` win; an unknown safety level is refused either way.
    """
    values = dict(settings)
    name = values.get("agent", DEFAULT_AGENT)
    agent = agent_of(config, name) if isinstance(name, str) else None
    values["model"] = model if model is not None else (agent.model if agent else DEFAULT_MODEL)
    if agent is not None and agent.safety_level is not None and "safety_level" not in values:
        try:
            policy_for(config, agent.safety_level)
        except ConfigError as exc:
            raise ConfigError(f"agents/{name}.yaml: safety_level: {exc}") from None
        values["safety_level"] = agent.safety_level
    if agent is not None and agent.skills and "skills" not in values:
        values["skills"] = list(agent.skills)
    card = None
    if agent is not None and agent.system_prompt and agent.system_prompt.strip():
        # The timeline is the context (T1): the agent's prompt is a card a person can read, edit or delete,
        # and a handoff carries it into the next conversation (C3), which a hidden prefix would not allow.
        card = SystemPrompt(text=agent.system_prompt.strip(), origin="engine")
    return AgentStart(settings=values, system_prompt=card)
