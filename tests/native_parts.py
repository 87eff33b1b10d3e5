"""The engine's parts of a session, built from what a `Session` shows (its workspace, stored timeline and
settings), as the handover builds them for a session it compacts: native compaction's tests call the
engine function through them."""

from __future__ import annotations

import mewrk_jupyter as mw
from mewrk_jupyter.engine.settings.model import StoredSettings
from mewrk_jupyter.engine.toolbox.box import ToolBox
from mewrk_jupyter.engine.turns.approvals import Approvals
from mewrk_jupyter.engine.turns.parts import SessionParts
from mewrk_jupyter.engine.turns.status import TurnStatus


def parts_of(session: mw.Session) -> SessionParts:
    """The parts a session's turns work with, over the same store."""
    timeline = session.stored_timeline
    settings = StoredSettings(timeline.db, session.id, session.settings)
    toolbox = ToolBox(session.workspace, settings, timeline)
    return SessionParts(
        session.workspace,
        settings,
        timeline,
        TurnStatus(timeline),
        toolbox,
        Approvals(timeline, settings, toolbox),
    )
