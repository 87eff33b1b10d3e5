"""The conversation settings from a cell or the composer: `set` shows them, `set KEY VALUE` changes one."""

from __future__ import annotations

from typing import Any

from ..cards.inert import inert_inline
from ..engine.configure import describe_change
from ..engine.settings import CONFIGURABLE
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
    return Result(describe_change(before, after), data={"settings": after.model_dump()})
