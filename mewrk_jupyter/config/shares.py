"""Shares of the model's window — the compaction thresholds — written, read, shown and refused in percent.

Files written before thresholds were percent hold fractions (`handoff_threshold: 0.8`). No percent a
threshold may be is that small, so such a value cannot mean a percent: a file that is read takes it as
the percent it meant (80), with a note saying how to write it now, so that its meaning never changes
silently. A new value given as a fraction (`mw.set_preferences`, a save in the settings editor) is
refused with the same advice.
"""

from __future__ import annotations

from typing import Any

from .problems import Problem

# The fields, in any configuration file, that are a share of the model's window.
PERCENT_FIELDS = ("handoff_threshold", "native_threshold", "summarize_at")


def whole_number(value: Any) -> int | None:
    """`value` as a whole number (3 or 3.0), or None when it is none (a fraction, text, true or false)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    if isinstance(value, float) and not value.is_integer():
        return None
    return int(value)


def as_percent(value: Any) -> int | None:
    """The whole percent an older file's fraction meant (0.8 → 80), or None when `value` is not one."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value <= 1:
        return None
    percent = value * 100
    return round(percent) if abs(percent - round(percent)) < 1e-6 else None


def fraction_advice(name: str, value: Any, low: int, high: int) -> str:
    """What to write instead of a fraction for the field `name` (from `low` to `high` percent), as the end
    of a refusal; "" when it is no share of the window or `value` no fraction of an allowed percent."""
    percent = as_percent(value) if name in PERCENT_FIELDS else None
    if percent is None or not low <= percent <= high:
        return ""
    return f" (in percent: for {percent} % of the window write {percent})"


def read_fractions(data: dict[str, Any], rel: str, line_of: Any) -> tuple[dict[str, Any], list[Problem]]:
    """`data` with each older fraction read as its percent, and a note per value so read."""
    notes = []
    read = dict(data)
    for name in PERCENT_FIELDS:
        percent = as_percent(data.get(name))
        if percent is None:
            continue
        read[name] = percent
        notes.append(
            Problem(
                rel,
                name,
                f"{name}: {data[name]} is read as {percent} % of the window, as before; thresholds are "
                f"written in percent now — write `{name}: {percent}`",
                line_of((name,)),
            )
        )
    return read, notes
