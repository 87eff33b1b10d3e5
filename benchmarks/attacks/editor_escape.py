"""A path given to the settings editor (absolute, with `..`, through a symbolic link to a file or a folder
outside) made it write, create or delete a file outside the configuration folder."""

from __future__ import annotations

import os
import random
from pathlib import Path

import mewrk_jupyter as mw

from . import as_a_newcomer, write

ATTACK = "a settings-editor path writes or deletes a file outside the configuration folder"
TRIALS = 60

TEXT = "model: offline/echo\n"


def trial(folder: Path) -> bool:
    """True when every change is refused with a ConfigError and nothing outside `.mewrk/` changed."""
    pick = random.Random(str(folder))
    outside = folder / "outside"
    outside.mkdir()
    victim = outside / "main.yaml"
    victim.write_text("keep: me\n")
    write(folder, "agents/fine.yaml", TEXT)
    home = folder / ".mewrk"
    how = pick.choice(["absolute", "dotdot", "file link", "folder link", "nested"])
    if how == "absolute":
        path = str(victim)
    elif how == "dotdot":
        path = pick.choice(
            ["../outside/main.yaml", "agents/../../outside/main.yaml", "./../outside/main.yaml"]
        )
    elif how == "file link":
        os.symlink(victim, home / "agents/main.yaml")
        path = "agents/main.yaml"
    elif how == "folder link":
        os.symlink(outside, home / "tools")
        path = pick.choice(["tools/main.yaml", "tools/new.yaml"])
    else:
        path = "agents/sub/main.yaml"
    before = sorted((p.name, p.read_bytes()) for p in outside.iterdir())
    with as_a_newcomer(folder):
        editor = mw.SettingsEditor(workspace=folder)
        for change in (
            lambda: editor.save(path, TEXT, None, overwrite=True),
            lambda: editor.create(path, TEXT),
            lambda: editor.delete(path, None, overwrite=True),
        ):
            try:
                change()
            except mw.ConfigError:
                continue
            return False
    return sorted((p.name, p.read_bytes()) for p in outside.iterdir()) == before
