"""Session events: what views (widget, magics) subscribe to, so every view stays in step.

One frozen class per kind, like the providers' stream events; a subscriber matches on the class.
Each class also names its kind in `kind` (the word the widget's wire uses for the same patch).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import ClassVar, Literal

from ..cards.models import Card
from ..frozen import quick_init

log = logging.getLogger("mewrk_jupyter")

# `subagent_awaiting_approval`: no turn of the session runs or waits, but a subagent's approval waits on its
# timeline (answered there); the person may go on writing meanwhile.
SessionState = Literal["idle", "running", "awaiting_approval", "subagent_awaiting_approval"]


@dataclass(frozen=True, slots=True)
class CardAdded:
    """A card was placed on the timeline at `order_key`."""

    kind: ClassVar[Literal["card_added"]] = "card_added"
    session_id: str
    card: Card
    order_key: str

    @property
    def card_id(self) -> str:
        """The id of the card."""
        return self.card.id


@dataclass(frozen=True, slots=True)
class CardChanged:
    """A card on the timeline changed (an edit, a result, a finished reply); it stays at `order_key`."""

    kind: ClassVar[Literal["card_changed"]] = "card_changed"
    session_id: str
    card: Card
    order_key: str

    @property
    def card_id(self) -> str:
        """The id of the card."""
        return self.card.id


@dataclass(frozen=True, slots=True)
class CardRemoved:
    """A card left the timeline."""

    kind: ClassVar[Literal["card_removed"]] = "card_removed"
    session_id: str
    card_id: str


@quick_init  # built once per streamed token
@dataclass(frozen=True, slots=True)
class TextDelta:
    """More streamed text at the end of a card's `text` (a reply or a thinking block being written)."""

    kind: ClassVar[Literal["text_delta"]] = "text_delta"
    session_id: str
    card_id: str
    text: str


@dataclass(frozen=True, slots=True)
class StateChanged:
    """The session's state changed; `run_id` names the run that changed it, `result` how that run ended."""

    kind: ClassVar[Literal["state"]] = "state"
    session_id: str
    state: SessionState
    run_id: str | None = None
    result: str | None = None


@dataclass(frozen=True, slots=True)
class Notice:
    """A sentence for the person: an error that ended a turn, an approval that can no longer resume."""

    kind: ClassVar[Literal["notice"]] = "notice"
    session_id: str
    text: str
    level: Literal["info", "error"] = "info"


@dataclass(frozen=True, slots=True)
class Reloaded:
    """Another process changed the session: the timeline was read again from the store."""

    kind: ClassVar[Literal["reloaded"]] = "reloaded"
    session_id: str


@dataclass(frozen=True, slots=True)
class SettingsChanged:
    """The session's conversation settings changed (`s.configure`): views show the new model and figure."""

    kind: ClassVar[Literal["settings_changed"]] = "settings_changed"
    session_id: str
    changed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class StatusChanged:
    """What the engine is doing beside a turn's cards, for the composer (`Compacting the conversation…`);
    None: it is done."""

    kind: ClassVar[Literal["status"]] = "status"
    session_id: str
    text: str | None


@dataclass(frozen=True, slots=True)
class SessionLinked:
    """A new session continues this one after a compaction (`handover_id`): views show the link."""

    kind: ClassVar[Literal["session_linked"]] = "session_linked"
    session_id: str
    handover_id: str


SessionEvent = (
    CardAdded
    | CardChanged
    | CardRemoved
    | TextDelta
    | StateChanged
    | Notice
    | Reloaded
    | SettingsChanged
    | StatusChanged
    | SessionLinked
)

Listener = Callable[[SessionEvent], None]


class EventHub:
    """Listeners of one session; a failing listener is logged and never breaks the engine."""

    def __init__(self) -> None:
        self._listeners: tuple[Listener, ...] = ()
        self._lock = threading.Lock()

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Add a listener; returns the function that removes it."""
        with self._lock:
            self._listeners = (*self._listeners, listener)

        def unsubscribe() -> None:
            with self._lock:
                remaining = list(self._listeners)
                if listener in remaining:
                    remaining.remove(listener)
                self._listeners = tuple(remaining)

        return unsubscribe

    def emit(self, event: SessionEvent) -> None:
        """Tell every listener."""
        # The tuple is replaced, never changed: reading it needs no lock on the per-token path.
        for listener in self._listeners:
            try:
                listener(event)
            except Exception:  # a broken view must not stop a turn
                log.exception("a session listener failed on %s", event.kind)
