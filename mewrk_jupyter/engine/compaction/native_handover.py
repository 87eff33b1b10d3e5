"""Native compaction into a new session (C4): the provider compacts, and `<title>-handover-<n>` goes on
from the original's system prompts and the native-compaction card — by hand (compact now) or at the
native threshold (auto-compaction)."""

from __future__ import annotations

from typing import Any

from ..events import StatusChanged
from ..turns.parts import SessionParts
from .handover import Handed, leading_system_prompts, open_handover
from .native import native_compaction, system_prompts
from .summary import COMPACTING


def native_handover(
    parts: SessionParts,
    session: Handed,
    *,
    run_id: str | None = None,
    run: bool = False,
    instructions: str | None = None,
) -> Any:
    """Compact `session` with its model's own compaction and open the session that continues it; with
    `run=True` that session goes on at once from the card (the model continues), otherwise it waits;
    `instructions` are the person's for the summary (C7).

    The original is left as it is. Raises what `native_compaction` raises, before anything is opened.
    """
    sid = parts.session_id
    parts.timeline.emit(StatusChanged(sid, COMPACTING))
    try:
        card = native_compaction(parts, run_id=run_id, instructions=instructions)
    finally:
        parts.timeline.emit(StatusChanged(sid, None))
    cards = parts.timeline.current().cards
    # The handover copies the top system prompts itself; those placed mid-conversation come with the card.
    later = system_prompts(cards[len(leading_system_prompts(cards)) :])
    return open_handover(session, [*later, card], run=run)
