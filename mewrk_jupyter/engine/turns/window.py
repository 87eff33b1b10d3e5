"""Before each request: one that would not fit the model's context window is refused, never sent blindly.

The size is the same estimate the context figure shows as the next request (`assembly.context.measure`):
the timeline as it stands plus what the last request carried beside it. A vendor would refuse such a
request anyway, or truncate it silently; refusing here costs nothing and says what to do.

An agent with a `summarize_at` threshold has compacted just before this check (engine/compaction), so
only a request that still does not fit is refused.
"""

from __future__ import annotations

import sqlite3

from ...cards.models import Card
from ...errors import ContextTooLarge
from ...providers.base import ModelInfo
from ..assembly.context import format_tokens, measure


def too_large(size: int, window: int, model: str) -> str:
    """The refusal: both sizes, that nothing was sent, and what the person can do."""
    return (
        f"This request is about {format_tokens(size)} tokens and `{model}`'s window is "
        f"{format_tokens(window)}, so it was not sent; delete or shorten cards, or compact the "
        "conversation, then send again."
    )


def check_window(conn: sqlite3.Connection, session_id: str, cards: list[Card], info: ModelInfo) -> None:
    """Raise ContextTooLarge when the next request's estimated size exceeds the model's declared window."""
    window = info.context_window
    if not window:  # without a declared window there is nothing to check against
        return
    size = measure(conn, session_id, cards).next_request
    if size > window:
        raise ContextTooLarge(too_large(size, window, info.name))
