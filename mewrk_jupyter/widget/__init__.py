"""The timeline widget (N3): an anywidget view of one session, kept in step by small patches.

The session holds the truth; the widget is a view. On render each front-end view asks for a
snapshot (a `hello` message); after that it receives patches built from `Session.subscribe` —
card added / changed / removed, text deltas coalesced to a few messages per second, the session
state, notices and the dashboard line. Actions from the front end (edit, insert, delete, undo,
redo, send, stop, branch, fork, slash commands, tool calls, approvals) call the session's public
methods, so a change made in the widget follows the same rules as one made from Python or a magic
(DESIGN §2); a refusal comes back as a plain sentence for the card or the composer.

The wire messages are defined once, as pydantic models, in `protocol/` (kernel → view in
`protocol/kernel.py`, view → kernel in `protocol/view.py`); the front end's types are generated from
their JSON Schema. In short: a view says `hello` (and gets a `snapshot`), `alive` every few seconds,
`bye`, `upload` (a file chunk) and `action` (answered by one `result`); the kernel sends patches —
`card_added`, `card_changed`, `card_removed`, `text_delta`, `state`, `notice`, `context`.

`for` names the view that asked; other views ignore the message. Patches go to every view.
A branch or fork answers with `data.offer_open`; the `open_session` action then shows that session in
this widget, in place (every view of it follows, with a fresh snapshot whose `came_from` names the
session shown before), and `back` returns to it.
Changes made by other processes (another kernel, a script) are found by looking at the store every
WATCH_EVERY seconds while a view is alive, and sent as the same patches.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .payloads import card_payload, context_payload
from .timeline import BUNDLE, STATIC, STYLES, TimelineWidget

if TYPE_CHECKING:
    from ..engine.session import Session

__all__ = [
    "BUNDLE",
    "STATIC",
    "STYLES",
    "TimelineWidget",
    "card_payload",
    "context_payload",
    "session_widget",
]


def session_widget(session: Session) -> TimelineWidget:
    """`s.widget()`: a new timeline widget of the session."""
    return TimelineWidget(session)
