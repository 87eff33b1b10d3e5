"""A handover session (C3–C5): the new session a conversation continues in after a handoff or a native
compaction, `<title>-handover-<n>`.

It starts from the original's settings (so the same model and tools) and its system-prompt cards, then
the seed cards that carry the conversation over (the handoff documents, or a native compaction's card):
no history, no runs, and so no prompt cache of the original's to lean on. The link is stored both ways
in one column: the handover's `handover_of` names its original, and the original's handovers are the
sessions that name it.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Protocol

from ...cards.models import Card, SystemPrompt
from ...cards.order import key_between
from ...store import cards as card_rows
from ...store import sessions as session_rows
from ..events import SessionLinked
from ..settings.model import SessionSettings
from ..timeline.mirror import Timeline
from ..timeline.stored import StoredTimeline
from ..workspace import Workspace


class Handed(Protocol):
    """The session a handover continues (`Session`, seen without importing it: it imports this module)."""

    id: str
    workspace: Workspace
    stored_timeline: StoredTimeline

    @property
    def title(self) -> str:
        """The session's title."""

    @property
    def settings(self) -> SessionSettings:
        """The conversation settings as stored."""

    def timeline(self) -> Timeline:
        """The timeline with its order keys."""

    @classmethod
    def open(cls, session_id: str, *, workspace: str | Path | None = None) -> Any:
        """Open a session of the workspace by id."""


def handover_title(title: str, number: int) -> str:
    """`<title>-handover-<n>`: the name of an original's n-th handover."""
    return f"{title}-handover-{number}"


def leading_system_prompts(cards: list[Card]) -> list[Card]:
    """The system-prompt cards at the top of a timeline: the agent's instructions a handover keeps."""
    found: list[Card] = []
    for card in cards:
        if not isinstance(card, SystemPrompt):
            break
        found.append(card)
    return found


def open_handover(
    original: Handed, seeds: list[Card], *, run: bool = False, start_message: str | None = None
) -> Any:
    """Open the session `<title>-handover-<n>` that continues `original` from the cards `seeds`.

    The new session has the original's settings and tools, its system-prompt cards, then `seeds` in
    order (the handoff documents or a native compaction's card), and nothing else: no history, no runs,
    no prompt cache. It is linked both ways (its `handover_of` is the original; the original's
    `handovers` list it) and numbered in the same transaction that creates it, so two handovers of one
    original never share a name. With `run=True` a turn starts at once in the background, with
    `start_message` as its first user message (None: the model continues from the seeds); otherwise
    the session waits for the next message. Returns the new session.
    """
    settings = original.settings.model_dump()
    kept = [*leading_system_prompts(original.timeline().cards), *seeds]
    new_id = uuid.uuid4().hex[:10]
    db = original.stored_timeline.db
    with db.tx() as conn:
        number = len(session_rows.handovers_of(conn, original.id)) + 1
        title = handover_title(original.title, number)
        session_rows.create_session(conn, new_id, title, settings, original.id, handover_of=original.id)
        key = None
        for card in kept:
            key = key_between(key, None)
            # A fresh copy: the handover's cards are its own, and a seed is never shared with the original.
            card_rows.put_card(conn, new_id, card.model_copy(deep=True), key)
    handover = type(original).open(new_id, workspace=original.workspace.root)
    original.stored_timeline.emit(SessionLinked(original.id, new_id))
    if run:
        handover.send(start_message, wait=False)
    return handover


Link = tuple[str, str]  # a session's id and title


def session_links(session: Handed) -> tuple[Link | None, list[Link]]:
    """The session `session` continues (id, title), if it is a handover, and the sessions continuing it."""
    conn = session.stored_timeline.db.conn()
    row = session_rows.get_session(conn, session.id)
    original = session_rows.get_session(conn, row["handover_of"]) if row and row["handover_of"] else None
    came = (original["id"], original["title"]) if original is not None else None
    return came, [(found["id"], found["title"]) for found in session_rows.handovers_of(conn, session.id)]
