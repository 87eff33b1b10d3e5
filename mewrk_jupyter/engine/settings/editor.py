"""`mw.SettingsEditor()`: the settings editor of a workspace's configuration folder."""

from __future__ import annotations

import os

from ...config.editor import ConfigEditor
from ..workspace import Workspace


class SettingsEditor(ConfigEditor):
    """Lists, reads and changes the configuration files of `workspace` (default: the current directory),
    each change checked before it is written; a saved file is used from the next request on."""

    def __init__(self, workspace: str | os.PathLike[str] | None = None):
        self.workspace = Workspace.at(workspace)
        super().__init__(self.workspace.home)
