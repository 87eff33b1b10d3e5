"""Trusting a workspace's configuration folder (`mw.trust()`, `%mewrk trust`, the widget's Trust button)."""

from __future__ import annotations

import os
from pathlib import Path

from ..config import TrustState, trust_folder, trust_state
from ..providers.registry import CONFIG_FOLDERS, config_for
from .workspace import Workspace


def trust(workspace: str | os.PathLike | None = None) -> str:
    """Trust the configuration folder of `workspace` (default: the current directory; a configuration
    folder itself is taken as it is) as its files stand now.

    Until a folder that names a server, a secret, a header or a command is trusted, sessions there send
    nothing to its servers and run none of its commands. Editing one of those files ends the trust.
    Returns a sentence saying what is now trusted.
    """
    given = Path(workspace).expanduser() if workspace is not None else None
    if (
        given is not None
        and not (given / ".mewrk").exists()
        and any((given / f).is_dir() for f in CONFIG_FOLDERS)
    ):
        home = given  # the configuration folder itself (`mw.trust(".mewrk")`), not a workspace holding one
    else:
        home = Workspace.at(workspace).home
    return trusted_sentence(trust_folder(home))


def workspace_trust(home: Path) -> TrustState | None:
    """The trust state of a configuration folder, or None when it cannot be read."""
    config = config_for(home)
    return trust_state(config) if config is not None else None


def untrusted_sentence(home: Path) -> str | None:
    """What the folder would use and how to trust it, or None when nothing in it waits for trust."""
    state = workspace_trust(home)
    return state.sentence if state is not None and not state.trusted else None


def trusted_sentence(state: TrustState) -> str:
    """What trusting the folder allowed, in one sentence."""
    if not state.exposure.needs_trust:
        return (
            f"Trusted {state.home}; nothing in it needs trust today (it names no server, secret or command)."
        )
    return (
        f"Trusted {state.home}: sessions started here may now {state.exposure.summary()}. Editing a file "
        "under llm/, tools/, hooks/, mcp/, server/ or policy/ ends this trust until you give it again."
    )
