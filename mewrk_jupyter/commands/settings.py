"""The conversation settings from a cell or the composer: `set` shows them, `set KEY VALUE` changes one,
and `settings` opens the settings panel (in a terminal: the three layers as tables)."""

from __future__ import annotations

from typing import Any

from ..cards.inert import inert_inline
from ..engine.session import Session
from ..engine.settings.change import describe_change
from ..engine.settings.editor import SettingsEditor
from ..engine.settings.model import CONFIGURABLE
from . import preferences
from .base import Call, Result, refuse

# Words a person types for a yes/no setting.
_BOOLEANS = {"on": True, "true": True, "yes": True, "off": False, "false": False, "no": False}


def value_of(name: str, text: str) -> Any:
    """The value a typed word stands for: on/off for a switch, a comma list for memory, else the text."""
    if name in ("async_tools", "plan_mode"):
        if text.lower() not in _BOOLEANS:
            refuse(f"{name} is on or off")
        return _BOOLEANS[text.lower()]
    if name == "memory":
        return [level.strip() for level in text.split(",") if level.strip()]
    return text


def set_(call: Call) -> Result:
    """`set [KEY VALUE]`: the session's conversation settings, or one of them changed."""
    session = call.current
    if not call.args:
        current = session.settings  # read once: each read looks at the store for another process's change
        values = [(name, repr(getattr(current, name))) for name in CONFIGURABLE]
        rows = "\n".join(f"| `{name}` | {inert_inline(value)} |" for name, value in values)
        said = f"Settings of `{session.id}`: " + ", ".join(f"{name} {value}" for name, value in values)
        return Result(said, markdown="| setting | value |\n|---|---|\n" + rows)
    if len(call.args) < 2:
        refuse("set takes a setting and its value, e.g. `set model offline/thinker`")
    name, text = call.args[0], " ".join(call.args[1:])
    before = session.settings
    after = session.configure(**{name: value_of(name, text)})
    # No data: the views see the change through the session's own events, and a widget's answer's
    # `settings` is the settings panel's (what it shows), not the conversation settings.
    return Result(describe_change(before, after, session.tool_lock))


def panel(_call: Call) -> Result:
    """`settings`: the settings panel (in a terminal: the three layers as tables)."""
    return Result(show="settings")


def settings_markdown(session: Session) -> str:
    """The three layers of settings as Markdown: the conversation settings, the preferences, the files."""
    conversation = set_(Call("set", session, []))
    prefs = preferences.show(Call("preferences", session))
    editor = SettingsEditor(session.workspace.root)
    rows = [
        f"| `{f.path}` | {'read-only: ' + inert_inline(f.reason or '') if f.read_only else 'editable'} |"
        for f in editor.files()
    ]
    files = (
        f"**Configuration files** of `{editor.home}` — change them with `mw.SettingsEditor()` "
        "(read, then save with the version read)."
    )
    if rows:
        files += "\n\n| file | |\n|---|---|\n" + "\n".join(rows)
    else:
        files += " None yet: the built-in offline models and the default safety level are used."
    return "\n\n".join(
        [f"**Conversation settings** of `{session.id}`\n\n{conversation.markdown}", prefs.markdown, files]
    )
