"""Configuration the engine accepts but cannot act on yet, said in plain sentences rather than ignored.

These files and fields are valid (they describe features that are planned), so they are not refused;
a new session warns about each one that concerns it, with a `ConfigNotice`.
"""

from __future__ import annotations

import warnings

from ..config import AgentConfig, Config
from ..errors import ConfigNotice
from ..tools.notebook import NOTEBOOK_TOOLS, offered_bridge
from ..tools.notebook_bridge import NOT_IN_JUPYTERLAB
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


def notebook_notice(agent_name: str, agent: AgentConfig | None) -> str | None:
    """Why the notebook tools an agent file lists are not offered here (outside a kernel that a Jupyter
    server with this package started). A session of no such agent is not told at each start (a kernel in
    another front end would hear it every time): a call of one is answered with the same sentence."""
    if agent is None or offered_bridge() is not None:
        return None
    listed = [name for name in agent.tools or [] if name in NOTEBOOK_TOOLS]
    if not listed:
        return None
    return (
        f"agents/{agent_name}.yaml lists {', '.join(listed)}, which are not offered here. {NOT_IN_JUPYTERLAB}"
    )


def warn_unbuilt(notices: list[str]) -> None:
    """Show each notice as a `ConfigNotice` warning, pointing at the caller's line (a notebook cell)."""
    for text in notices:
        warnings.warn(text, ConfigNotice, stacklevel=3)
