"""Configuration the engine accepts but cannot act on yet, said in plain sentences rather than ignored.

These files and fields are valid (they describe features that are planned), so they are not refused;
a new session warns about each one that concerns it, with a `ConfigNotice`.
"""

from __future__ import annotations

import warnings

from ..config import AgentConfig, Config
from ..errors import ConfigNotice
from .toolbox.handoff_tool import HANDOFF

# The HTTP API is the Jupyter server's own extension: it listens where that server listens and accepts that
# server's token, so an address or token of its own could only mislead.
SERVER_NOTICE = (
    "server/: host, port and token have no effect: the HTTP API is served by the Jupyter server itself, "
    "at its address and under its own token (set those with `jupyter server --ServerApp.ip=… "
    "--ServerApp.port=… --IdentityProvider.token=…`)."
)
DEFAULT_PROFILE = "default"  # the prompt profile the engine reads (Config.prompt's default)


def unbuilt_notices(config: Config, agent_name: str, agent: AgentConfig | None, model: str) -> list[str]:
    """One sentence per file or field of the folder that the session will not act on."""
    notices = []
    for profile in config.prompts:
        if profile != DEFAULT_PROFILE:  # nothing chooses another profile yet
            notices.append(
                f"prompts/{profile}.yaml: the engine reads only the `{DEFAULT_PROFILE}` profile "
                f"(prompts/{DEFAULT_PROFILE}.yaml), so this file has no effect."
            )
    if config.server is not None:
        notices.append(SERVER_NOTICE)
    if agent is not None and agent.tools:
        if HANDOFF in agent.tools:
            notices.append(
                f"agents/{agent_name}.yaml: tools: handoff is offered by the engine itself when "
                "auto-compaction asks the model to hand off, so listing it has no effect."
            )
        if "box" in agent.tools:
            notices.append(
                f"agents/{agent_name}.yaml: tools: box is declared by the engine itself when the "
                "conversation's host-message container is box_tool_result, so listing it has no effect."
            )
    return notices


def warn_unbuilt(notices: list[str]) -> None:
    """Show each notice as a `ConfigNotice` warning, pointing at the caller's line (a notebook cell)."""
    for text in notices:
        warnings.warn(text, ConfigNotice, stacklevel=3)
