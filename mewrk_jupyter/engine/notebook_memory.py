"""Which session a notebook used, kept in the workspace's store rather than in the kernel: after a kernel
restart (a new process, nothing in memory) re-running the cell that showed a session brings that session
back, and so does any `%mewrk` command acting on "the current session" — the one the notebook used last."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ..store import notebooks as notebook_rows
from ..store.db import database
from .workspace import Workspace


@dataclass(frozen=True)
class NotebookPlace:
    """Where a command ran: the notebook's path (as the Jupyter server names it) and the cell's id, when
    the front end sent one."""

    notebook: str
    cell: str | None = None


def remember(place: NotebookPlace, session_id: str, workspace: str | Path | None = None) -> None:
    """Record that the notebook, and the cell if known, use `session_id` now."""
    db = database(Workspace.at(workspace).store)
    now = time.time()
    with db.tx() as conn:
        notebook_rows.remember(conn, place.notebook, notebook_rows.WHOLE_NOTEBOOK, session_id, now)
        if place.cell:
            notebook_rows.remember(conn, place.notebook, place.cell, session_id, now)


def recall(place: NotebookPlace, *, cell: bool, workspace: str | Path | None = None) -> str | None:
    """The session this cell showed (`cell=True`), or the one the notebook used last; None when there is
    none, or it was deleted since."""
    name = place.cell if cell else notebook_rows.WHOLE_NOTEBOOK
    place_of_store = Workspace.at(workspace).store
    if name is None:
        return None
    if isinstance(place_of_store, Path) and not place_of_store.exists():  # no store yet: no sessions
        return None
    return notebook_rows.recall(database(place_of_store).conn(), place.notebook, name)
