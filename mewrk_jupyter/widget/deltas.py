"""Streamed text for the views, coalesced: a few `text_delta` messages a second, never one per token."""

from __future__ import annotations

import threading
from collections.abc import Callable

from . import protocol

# Seconds between two text_delta messages for the streaming cards.
DELTA_EVERY = 0.25


class DeltaBuffer:
    """The text each streaming card gained since the last flush, and how long each card's text is in the views.

    The widget calls every method while holding its own lock; the timer calls `on_timer`, which takes it.
    """

    def __init__(self, send: Callable[[protocol.TextDeltaMsg], None], on_timer: Callable[[], None]) -> None:
        self._send = send
        self._on_timer = on_timer
        self._pending: dict[str, tuple[int, list[str]]] = {}  # card id -> (offset, texts) not yet sent
        self._lengths: dict[str, int] = {}  # card id -> length of its text as the views know it
        self._timer: threading.Timer | None = None

    def knows(self, card_id: str, length: int) -> None:
        """The views now hold the whole card with text of `length`: whatever was pending for it is in it."""
        self._pending.pop(card_id, None)
        self._lengths[card_id] = length

    def forget(self, card_id: str) -> None:
        """The card left the views."""
        self._pending.pop(card_id, None)
        self._lengths.pop(card_id, None)

    def clear(self) -> None:
        """Forget every card (the widget shows another session now); nothing pending is sent."""
        self.cancel()
        self._pending.clear()
        self._lengths.clear()

    def length(self, card_id: str) -> int | None:
        """How long the card's text is in the views, or None if this buffer has not seen it."""
        return self._lengths.get(card_id)

    def queue(self, card_id: str, text: str, known: int) -> None:
        """Add streamed text to a card whose text the views hold `known` characters of; start the timer."""
        pending = self._pending.get(card_id)
        if pending is None:
            self._pending[card_id] = (known, [text])
        else:
            pending[1].append(text)
        self._lengths[card_id] = known + len(text)
        if self._timer is None:
            self._timer = threading.Timer(DELTA_EVERY, self._on_timer)
            self._timer.daemon = True
            self._timer.start()

    def cancel(self) -> None:
        """Stop the timer, if it runs."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def flush(self) -> None:
        """Send what is pending, one message per card."""
        self.cancel()
        pending, self._pending = self._pending, {}
        for card_id, (offset, parts) in pending.items():
            self._send(protocol.TextDeltaMsg(card_id=card_id, offset=offset, text="".join(parts)))
