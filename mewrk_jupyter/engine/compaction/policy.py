"""Auto-compaction into a new session (C1–C2), checked before each request of a turn.

It acts when the preference `auto_compaction` is on, the model's window is known and the session is
not a subagent's; the conversation's `compaction` setting picks the mode — native where the model
supports it, handoff otherwise — and the preferences `handoff_threshold` / `native_threshold` the percent
of the window the last request must have reached (the vendor's count, as the dashboard shows it). The
agent's own summary in place (`summarize_at`, auto.py) is asked first: when both are reached at the same
request, the summary acts and the conversation stays in one session.
"""

from __future__ import annotations

from typing import Literal

from ...config.preferences import Preferences
from ...config.preferences_file import read_preferences
from ...errors import MewrkError
from ...providers.base import ModelInfo
from ...store import sessions as session_rows
from ...store.history import last_answered
from ..assembly.context import request_size
from ..events import Notice
from ..turns.parts import SessionParts
from .auto import AutoSummary, TurnInProgress
from .handoff import arm
from .handover import Handed
from .native_handover import native_handover

Mode = Literal["handoff", "native"]


def auto_mode(parts: SessionParts, info: ModelInfo, preferences: Preferences) -> Mode | None:
    """The mode auto-compaction uses for this session and model, or None when it is off for them."""
    if not preferences.auto_compaction or not info.context_window:
        return None
    if session_rows.is_subagent(parts.timeline.db.conn(), parts.session_id):  # it ends with its task
        return None
    chosen = parts.settings.value.compaction
    if chosen == "native" and not info.native_compaction:
        return "handoff"  # the model cannot compact by itself: the other mode
    return chosen


def threshold_of(preferences: Preferences, mode: Mode) -> float:
    """The share of the window (0 to 1) at which `mode` acts, from the preferences' percent."""
    return (preferences.native_threshold if mode == "native" else preferences.handoff_threshold) / 100


def reached(parts: SessionParts, info: ModelInfo, share: float) -> bool:
    """Whether the last request's size reached `share` of the model's window."""
    last = last_answered(parts.timeline.db.conn(), parts.session_id)
    window = info.context_window or 0
    return last is not None and window > 0 and request_size(last[1]) >= share * window


class AutoCompaction:
    """The hook a turn calls before each request: the agent's summary in place, else auto-compaction."""

    def __init__(self, parts: SessionParts, session: Handed):
        self.parts = parts
        self.session = session
        self.summary = AutoSummary(parts)

    def __call__(self, run: TurnInProgress, info: ModelInfo) -> None:
        if self.summary.act(run, info):  # both reached at once: the summary in place acts
            return
        preferences, _ = read_preferences(self.parts.workspace.home)  # read once for the checks below
        mode = auto_mode(self.parts, info, preferences)
        if mode is None or not reached(self.parts, info, threshold_of(preferences, mode)):
            return
        if mode == "native":
            conn = self.parts.timeline.db.conn()
            if session_rows.handovers_of(conn, self.parts.session_id):  # went on here after a handover: once
                return
            if self.native(run):
                return
        arm(self.parts)  # once: the notice and the `handoff` tool, from this request on

    def native(self, run: TurnInProgress) -> bool:
        """Compact natively between two requests and go on in the new session; this turn stops here.
        False when the provider could not (its sentence is a notice): the model is asked to hand off."""
        sid = self.parts.session_id
        try:
            handover = native_handover(self.parts, self.session, run_id=run.id, run=True)
        except MewrkError as exc:
            said = f"{exc} The conversation goes on here, and the model is asked to hand off instead."
            self.parts.timeline.emit(Notice(sid, self.parts.secrets.redact(said), level="error"))
            return False
        said = f"Compacted natively into the new session “{handover.title}” ({handover.id}); this one stops here."
        self.parts.timeline.emit(Notice(sid, said))
        run.cancel()  # the turn goes on in the new session, which continues from the card
        return True
