"""An "approve always" kept in the safety level's policy file (A5): the rules join its `allow` list
through the settings editor, whose checks refuse what the file cannot hold (a rule another tier lists)."""

from __future__ import annotations

from ...config import trust_state
from ...config.editor import ConfigEditor
from ...config.policy import with_allowed
from ...config.trust import trust_folder
from ...errors import ConfigError
from ...providers.registry import config_for
from ..workspace import Workspace


def allow_in_policy(workspace: Workspace, level: str, entries: list[str]) -> str:
    """Add `entries` to `policy/<level>.yaml`'s allow list (made from the built-in level when the file
    does not exist); returns the file's path in the configuration folder. The person's own change keeps
    a trust they had given: the folder stays trusted when it was trusted before, and only then."""
    home = workspace.home
    config = config_for(home)
    trusted = config is None or trust_state(config).trusted
    editor = ConfigEditor(home)
    rel = f"policy/{level}.yaml"
    try:
        found = editor.read(rel)
        text, version = found.text, found.version
    except ConfigError:
        text, version = None, None
    new = with_allowed(text, level, entries)
    if text is None:
        written = editor.create(rel, new)
    else:
        written = editor.save(rel, new, version)
    if trusted:
        trust_folder(home)
    return written.path
