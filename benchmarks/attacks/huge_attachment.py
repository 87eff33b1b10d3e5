"""A 200 MB file attached to a message: refused by its size on disk, before it is read into memory."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

import mewrk_jupyter as mw
from mewrk_jupyter.engine.session import forget_open_sessions
from mewrk_jupyter.store.db import forget_databases

ATTACK = (
    "A 200 MB (sparse) attachment is refused with the 32 MB limit's sentence, using under 50 MB of memory"
)
TRIALS = 5
BOUND = 50 * 1024 * 1024


def trial(folder: Path) -> bool:
    """Attach the file; held when the send is refused, nothing is stored, and the peak stayed under the bound."""
    huge = folder / "huge.bin"
    with huge.open("wb") as file:
        file.truncate(200 * 1024 * 1024)
    try:
        s = mw.Session.new(workspace=folder)
        tracemalloc.start()
        try:
            s.send("read this", attachments=[huge], wait=True)
            return False
        except mw.InvalidInput as exc:
            refused = "a message takes at most 32 MB" in str(exc)
        finally:
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        return refused and peak < BOUND and not s.cards and not s.history
    finally:
        forget_open_sessions()
        forget_databases()
