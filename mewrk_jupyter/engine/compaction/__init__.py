"""Shrinking a conversation's context. Built so far: the summary in place (C6), by hand and at the
agent's `summarize_at` threshold, and the native compaction's card (C4, native.py); the handoff into a
new session belongs here too."""

from .auto import AutoSummary, summary_due
from .native import native_compaction
from .summary import COMPACTING, Summary, compact_in_place, compacted, too_little

__all__ = [
    "COMPACTING",
    "AutoSummary",
    "Summary",
    "compact_in_place",
    "compacted",
    "native_compaction",
    "summary_due",
    "too_little",
]
