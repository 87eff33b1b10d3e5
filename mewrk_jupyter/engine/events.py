"""Session events: what views (widget, magics) subscribe to, so every view stays in step."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from ..cards.models import Card

log = logging.getLogger("mewrk_jupyter")

EventKind = Literal["card_added", "card_changed", "card_removed", "text_delta", "state", "reloaded", "notice"]


@dataclass(frozen=True)
class SessionEvent:
    """One change of a session, small enough to send to a view as a patch."""

    kind: EventKind
    session_id: str
    card: Card | None = None
    card_id: str | None = None
    order_key: str | None = None
    text: str | None = None
    state: str | None = None
    data: dict[str, Any] = field(default_factory=dict)


Listener = Callable[[SessionEvent], None]


class EventHub:
    """Listeners of one session; a failing listener is logged and never breaks the engine."""

    def __init__(self) -> None:
        self._listeners: list[Listener] = []
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Add a listener; returns the function that removes it."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)

        return unsubscribe

    def emit(self, event: SessionEvent) -> None:
        """Tell every listener."""
        with self._lock:
            listeners = list(self._listeners)
        for listener in listeners:
            try:
                listener(event)
            except Exception:  # a broken view must not stop a turn
                log.exception("a session listener failed on %s", event.kind)
