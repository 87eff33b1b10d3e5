"""`preferences`: the configuration folder's preferences, as a sentence and a table."""

from __future__ import annotations

from ..config.preferences import PREFERENCES_FILE, allowed_values
from ..engine.settings.preferences import preferences_at
from ..engine.workspace import Workspace
from .base import Call, Result


def show(call: Call) -> Result:
    """`preferences`: each preference's value, what it may be, and how to change it."""
    workspace = call.session.workspace if call.session is not None else Workspace.at()
    found, notices = preferences_at(workspace.home)
    values = found.model_dump()
    written = {name: _written(value) for name, value in values.items()}
    where = workspace.home / PREFERENCES_FILE
    change = (
        "change them with `mw.set_preferences(name=value)`, e.g. `mw.set_preferences(confirm_delete=True)`"
    )
    said = "Preferences: " + ", ".join(f"{name} {text}" for name, text in written.items()) + f" — {change}."
    rows = "\n".join(f"| `{name}` | `{text}` | {allowed_values(name)} |" for name, text in written.items())
    markdown = (
        f"**Preferences** of `{where}` — {change}.\n\n| preference | value | allowed |\n|---|---|---|\n{rows}"
    )
    if notices:
        said = " ".join(notices) + " " + said
        markdown = "\n\n".join(notices) + "\n\n" + markdown
    return Result(said, markdown=markdown, data={"preferences": values})


def _written(value: object) -> str:
    """A value as the file writes it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return f"{value:,}" if isinstance(value, int) else f"{value:.2f}"
