"""The timeline widget (N3): an anywidget view of one session, kept in step by small patches.

The session holds the truth; the widget is a view. On render each front-end view asks for a
snapshot (a `hello` message); after that it receives patches built from `Session.subscribe` —
card added / changed / removed, text deltas coalesced to a few messages per second, the session
state, notices and the dashboard line. Actions from the front end (edit, insert, delete, undo,
redo, send, stop, branch, fork, slash commands, tool calls, approvals) call the session's public
methods, so a change made in the widget follows the same rules as one made from Python or a magic
(DESIGN §2); a refusal comes back as a plain sentence for the card or the composer.

Wire messages (all JSON objects with a `type`):

    front end → kernel   {type: "hello", view}   {type: "alive", view} (every few seconds)
                         {type: "bye", view}     (the view was removed)
                         {type: "upload", view, upload_id, name, media_type, size, offset} + one binary chunk
                         {type: "action", view, req, action, ...arguments}
    kernel → front end   {type: "snapshot", for, session, came_from, cards: [{card, order_key}], state,
                          context, kinds, editable, confirm_delete, commands, tools, vision, chunk, heartbeat}
                         {type: "card_added" | "card_changed", card, order_key}
                         {type: "card_removed", card_id}
                         {type: "text_delta", card_id, offset, text}   text replaces card.text[offset:]
                         {type: "state", state}
                         {type: "notice", level, text}
                         {type: "context", line, level, percent, used, window, estimated, by_kind, cost_line}
                         {type: "result", for, req, ok, message, card_id, data}

`for` names the view that asked; other views ignore the message. Patches go to every view.
A branch or fork answers with `data.offer_open`; the `open_session` action then shows that session in
this widget, in place (every view of it follows, with a fresh snapshot whose `came_from` names the
session shown before), and `back` returns to it.
Changes made by other processes (another kernel, a script) are found by looking at the store every
WATCH_EVERY seconds while a view is alive, and sent as the same patches.
"""

from __future__ import annotations

from typing import Any

from .payloads import card_payload, context_payload
from .timeline import BUNDLE, STATIC, STYLES, TimelineWidget

__all__ = [
    "BUNDLE",
    "STATIC",
    "STYLES",
    "TimelineWidget",
    "attach_to_session",
    "card_payload",
    "context_payload",
    "session_mimebundle",
    "session_widget",
]


def session_widget(session: Any) -> TimelineWidget:
    """`s.widget()`: a new timeline widget of the session."""
    return TimelineWidget(session)


def session_mimebundle(
    session: Any, include: Any = None, exclude: Any = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """`display(s)`: the widget, with the Markdown timeline for front ends without widgets."""
    from ..engine.render import timeline_markdown

    data, metadata = session_widget(session)._repr_mimebundle_()
    return {**data, "text/plain": repr(session), "text/markdown": timeline_markdown(session)}, metadata


def attach_to_session(session_cls: type) -> None:
    """Give `Session` its `widget()` method and notebook display; call once, e.g. from `__init__`."""
    session_cls.widget = session_widget
    session_cls._repr_mimebundle_ = session_mimebundle
