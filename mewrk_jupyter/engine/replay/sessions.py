"""What a replay reads and does of the sessions it compares: the recording and its branch (a Session, which
sits above the replay and opens it), and what its report reads of a replay."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Protocol

from ...cards.models import Card
from ..settings.model import SessionSettings
from ..timeline.stored import StoredTimeline
from ..workspace import Workspace
from .compare import ReplayTurn


class ReplayedSession(Protocol):
    """A session as a replay uses it."""

    id: str
    title: str
    workspace: Workspace
    parent_id: str | None
    stored_timeline: StoredTimeline  # where the engine's cards go (a turn's comparison), its history's times

    @property
    def cards(self) -> Sequence[Card]: ...

    @property
    def settings(self) -> SessionSettings: ...

    @property
    def state(self) -> str: ...

    def insert(self, card: Card) -> Card: ...

    def send(self, text: str | None = None, *, wait: bool | None = None) -> Any: ...

    def stop(self) -> bool: ...


class Reported(Protocol):
    """A replay as its report reads it."""

    source: ReplayedSession
    branch: ReplayedSession
    recorded_model: str
    model: str
    error: str | None
    messages: int
    turns: list[ReplayTurn]

    @property
    def tools(self) -> str: ...

    @property
    def state(self) -> str: ...
