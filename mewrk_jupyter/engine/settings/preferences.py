"""`mw.preferences()` and `mw.set_preferences()`: the folder's preferences, read fresh by running sessions."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

from ...config.preferences import PREFERENCES_FILE, Preferences
from ...config.preferences_file import preference_notes, read_preferences, write_preferences
from ...errors import ConfigNotice
from ..workspace import Workspace


def preferences(*, workspace: str | Path | None = None) -> Preferences:
    """The preferences of the workspace's configuration folder (default: the current directory's).

    An invalid `preferences.yaml` is left out with a ConfigNotice saying what is wrong; the defaults act.
    An older file's threshold written as a fraction (0.8) is read as the percent it meant (80), with a
    ConfigNotice saying how to write it now.
    """
    found, notices = preferences_at(Workspace.at(workspace).home)
    for text in notices:
        warnings.warn(text, ConfigNotice, stacklevel=2)
    return found


def set_preferences(*, workspace: str | Path | None = None, **changes: Any) -> Preferences:
    """Validate and save preferences, e.g. `mw.set_preferences(confirm_delete=True)`; returns them all.

    A bad value or an unknown name is refused (InvalidInput) and the file is left byte-identical. Open
    sessions and widgets see the change the next time they read the preferences.
    """
    return write_preferences(Workspace.at(workspace).home, changes)


def preferences_at(home: Path) -> tuple[Preferences, list[str]]:
    """The preferences of the folder `home`, and one notice per problem of its file, or per value read
    otherwise than it is written now (no warning shown)."""
    found, problems = read_preferences(home)
    if not problems:
        return found, [f"{note.file}: {note.message}." for note in preference_notes(home)]
    messages = "; ".join(p.message for p in problems)
    return found, [
        f"{PREFERENCES_FILE}: {messages} — this file is left out until it is fixed; the default "
        "preferences are used."
    ]
