"""A reply written to act in the notebook (script, handler, script link, remote image) is shown inert."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import mewrk_jupyter as mw

# The renderer check and the hostile replies live with the tests: the same ones judge both.
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))
from tests.markup import HOSTILE_MARKDOWN, live_in_markdown  # noqa: E402

ATTACK = "a reply's <script>, onerror= or javascript: link is inert in the notebook's Markdown"
TRIALS = 20


def trial(folder: Path) -> bool:
    """One turn whose reply carries a hostile Markdown; held when nothing in any Markdown view would act."""
    payload = random.choice(HOSTILE_MARKDOWN)
    session = mw.Session.new(title=payload.splitlines()[0])
    session.send(payload)  # the offline model repeats it in its reply
    reply = session.cards[-1]
    views = [session._repr_markdown_(), reply._repr_markdown_(), session.history._repr_markdown_()]
    return all(not live_in_markdown(view) for view in views)
