"""Shrinking a conversation's context. Built so far: the summary in place (C6), by hand and at the
agent's `summarize_at` threshold; handoff and native compaction into a new session belong here too."""

from .auto import AutoSummary, summary_due
from .summary import COMPACTING, Summary, compact_in_place, compacted, too_little

__all__ = [
    "COMPACTING",
    "AutoSummary",
    "Summary",
    "compact_in_place",
    "compacted",
    "summary_due",
    "too_little",
]
