"""Tool calls answered from a recording instead of run (a replay with tools="recorded", engine/replay):
while a replay drives a session, its calls go to the answers the replay registered for it here, and
nothing runs, asks or is approved."""

from __future__ import annotations

import threading
from typing import Protocol

from ...cards.models import ToolCall


class RecordedAnswers(Protocol):
    """What answers a session's tool calls while it is replayed."""

    def answer(self, call: ToolCall) -> None:
        """Fill in the call's result, error flag, images and status from the recording (or say it is not
        in it), running nothing."""


_ANSWERS: dict[str, RecordedAnswers] = {}
_LOCK = threading.Lock()


def answer_from(session_id: str, answers: RecordedAnswers | None) -> None:
    """Answer the session's tool calls with `answers` from now on; None ends it."""
    with _LOCK:
        if answers is None:
            _ANSWERS.pop(session_id, None)
        else:
            _ANSWERS[session_id] = answers


def recorded_answers(session_id: str) -> RecordedAnswers | None:
    """The answers a replay registered for the session, if one drives it now."""
    with _LOCK:
        return _ANSWERS.get(session_id)
