"""Undo and redo (T9): one process-wide stack of at most 64 steps, shared by every session.

A step is a list of card changes, each the card's state (card and order key) before and after.
Undo puts the "before" states back, redo the "after" states; cards the step did not touch — model
replies added since, for instance — stay as they are. The stack lives in memory only, so it is
cleared when the process exits, and a branch or fork (a new session id) starts with no steps.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field

from .models import Card

UNDO_LIMIT = 64


@dataclass(frozen=True)
class CardState:
    """A card as it stood, with its place on the timeline."""

    card: Card
    order_key: str


@dataclass(frozen=True)
class CardChange:
    """One card's state before and after a step; None means the card did not exist."""

    card_id: str
    before: CardState | None
    after: CardState | None


@dataclass
class UndoStep:
    """One undoable action of a person: an insert, an edit, or a (box) deletion."""

    session_id: str
    label: str
    changes: list[CardChange] = field(default_factory=list)


class UndoStack:
    """Done and undone steps of all sessions; undo and redo pick the newest step of the asking session."""

    def __init__(self, limit: int = UNDO_LIMIT):
        self.limit = limit
        self._done: list[UndoStep] = []
        self._undone: list[UndoStep] = []
        self._lock = threading.Lock()

    def push(self, step: UndoStep) -> None:
        """Record a new step; it clears that session's redo steps and evicts the oldest past the limit."""
        with self._lock:
            self._done.append(step)
            self._undone = [s for s in self._undone if s.session_id != step.session_id]
            del self._done[: max(0, len(self._done) - self.limit)]

    def take_undo(self, session_id: str) -> UndoStep | None:
        """Remove and return the newest done step of a session."""
        with self._lock:
            return _take_newest(self._done, session_id)

    def take_redo(self, session_id: str) -> UndoStep | None:
        """Remove and return the newest undone step of a session."""
        with self._lock:
            return _take_newest(self._undone, session_id)

    def mark_undone(self, step: UndoStep) -> None:
        """Keep an undone step so that redo can apply it again."""
        with self._lock:
            self._undone.append(step)

    def mark_redone(self, step: UndoStep) -> None:
        """Put a redone step back among the done ones, still under the limit."""
        with self._lock:
            self._done.append(step)
            del self._done[: max(0, len(self._done) - self.limit)]

    def restore(self, step: UndoStep, undone: bool) -> None:
        """Put back a step that could not be applied (e.g. its session was busy), where it was taken."""
        with self._lock:
            (self._undone if undone else self._done).append(step)

    def steps(self, session_id: str | None = None) -> list[UndoStep]:
        """The done steps, oldest first, optionally of one session."""
        with self._lock:
            return [s for s in self._done if session_id is None or s.session_id == session_id]

    def clear(self) -> None:
        """Forget every step (as when the process exits)."""
        with self._lock:
            self._done.clear()
            self._undone.clear()


def _take_newest(steps: list[UndoStep], session_id: str) -> UndoStep | None:
    for i in range(len(steps) - 1, -1, -1):
        if steps[i].session_id == session_id:
            return steps.pop(i)
    return None


UNDO = UndoStack()
