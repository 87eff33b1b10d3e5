"""What an action answers before it becomes the view's `result` message: a sentence and what it made."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from .protocol import ResultData

if TYPE_CHECKING:
    from ..engine.session import Session
    from .uploads import Uploads


@dataclass(frozen=True)
class Answer:
    """A handler's answer: the sentence for the card or the composer, the data the view acts on, and
    the state the sentence stays true in (a refusal while a turn runs)."""

    message: str = ""
    data: ResultData = field(default_factory=ResultData)
    while_state: str | None = None


class WidgetHost(Protocol):
    """What the action handlers ask of the widget they serve: the session it shows (which changes when
    it switches), the files views are sending, and the switch itself."""

    @property
    def session(self) -> Session: ...

    @property
    def uploads(self) -> Uploads: ...

    def switch_to(self, session_id: str) -> Session: ...

    def go_back(self) -> Session: ...
