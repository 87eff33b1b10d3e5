"""Shrinking a conversation's context: the summary in place (C6), by hand and at the agent's
`summarize_at` threshold; handoff (C3) and native compaction (C4) into a new session, automatic (C1–C2)
or by hand (C5)."""

from .auto import AutoSummary, summary_due
from .handoff import HandoffTool
from .handover import open_handover, session_links
from .native import native_compaction
from .now import compact_now, compact_now_refusal
from .policy import AutoCompaction
from .prompt import compaction_instructions
from .summary import COMPACTING, Summary, compact_in_place, compacted, too_little

__all__ = [
    "COMPACTING",
    "AutoCompaction",
    "AutoSummary",
    "HandoffTool",
    "Summary",
    "compact_in_place",
    "compaction_instructions",
    "compact_now",
    "compact_now_refusal",
    "compacted",
    "native_compaction",
    "open_handover",
    "session_links",
    "summary_due",
    "too_little",
]
