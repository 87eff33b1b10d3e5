"""The agent's automatic summary (C6): at its `summarize_at` percent of the window, the engine compacts.

Checked before each request of a turn from the last request's size (the vendor's count, as the dashboard
shows it): when that reached the threshold, the conversation is summarised in place — the same call and
divider as `s.compact()` — and the request that was about to go carries the summary. `summarize_at: 0`
(the built-in agent's default) never compacts by itself; a model without a declared window neither.
A conversation too short to be worth a summary is left as it is, and the window check that follows
says what to do if it does not fit.
"""

from __future__ import annotations

from typing import Protocol

from ...errors import ConfigError
from ...providers.base import Exchange, ModelInfo
from ...providers.registry import config_for
from ...store.history import last_answered
from ..agent import agent_of
from ..assembly.context import measure, request_size
from ..turns.parts import SessionParts
from .summary import Summary, too_little


class TurnInProgress(Protocol):
    """What the automatic summary needs of the turn it happens in."""

    id: str

    def watch(self, exchange: Exchange) -> None:
        """Follow an exchange, so that Stop closes it."""

    @property
    def cancelled(self) -> bool:
        """Whether the turn was asked to stop."""

    def cancel(self) -> None:
        """Stop the turn before its next request."""


def summarize_at(parts: SessionParts) -> float:
    """The session's agent's threshold: a share of the window, 0 for never (and for an agent not found)."""
    config = config_for(parts.workspace.home)
    if config is None:
        return 0.0
    try:
        agent = agent_of(config, parts.settings.value.agent)
    except ConfigError:  # the agent's file went missing or broke: the turn says so elsewhere, if it must
        return 0.0
    return agent.summarize_at / 100 if agent is not None else 0.0  # the file writes a percent


def summary_due(parts: SessionParts, info: ModelInfo) -> bool:
    """Whether the last request reached the agent's threshold of the model's window."""
    share = summarize_at(parts)
    if share <= 0 or not info.context_window:
        return False
    last = last_answered(parts.timeline.db.conn(), parts.session_id)
    return last is not None and request_size(last[1]) >= share * info.context_window


class AutoSummary:
    """The hook a turn calls before each request: compacts in place when the threshold is reached."""

    def __init__(self, parts: SessionParts):
        self.parts = parts

    def __call__(self, run: TurnInProgress, info: ModelInfo) -> None:
        self.act(run, info)

    def act(self, run: TurnInProgress, info: ModelInfo) -> bool:
        """Compact in place if the threshold is reached; False when it was not, or there was too little."""
        parts = self.parts
        if not summary_due(parts, info):
            return False
        cards = parts.timeline.current().cards
        if too_little(cards, measure(parts.timeline.db.conn(), parts.session_id, cards).next_request):
            return False
        Summary(parts, run_id=run.id).compact(run.watch, lambda: run.cancelled)
        return True
