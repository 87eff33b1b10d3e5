"""A request's history row (T17), written once the reply has begun rather than on the way to it.

Storing a request packs it into parts (store/parts.py) and commits: a fraction of a millisecond that,
done before the request went out, every first token waited for. The row is written as soon as the reply
opens its first card, when the exchange ends or fails without one, or at the run's next heartbeat while
the reply is slow to begin — whichever comes first — with the time the request was sent.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from ...providers.base import ModelInfo, ModelRequest
from ...store import history as history_rows
from ...store.db import Database


class SentRequest:
    """One request that went out and the history row that keeps it, written once from whichever thread
    asks first (the turn's, or the heartbeat's)."""

    def __init__(
        self,
        db: Database,
        session_id: str,
        run_id: str,
        model: ModelInfo,
        body: dict[str, Any],
        request: ModelRequest | None = None,
    ) -> None:
        self.db = db
        self.session_id = session_id
        self.run_id = run_id
        self.model = model
        self.body = body
        self.request = request  # the neutral request the body was built from, kept beside it
        self.sent_at = time.time()
        self._entry: int | None = None
        self._lock = threading.Lock()

    @property
    def stored(self) -> bool:
        """Whether its history row is written."""
        return self._entry is not None

    def entry(self) -> int:
        """The history row's id, writing the row now if it is not yet."""
        with self._lock:
            if self._entry is None:
                with self.db.tx() as conn:
                    self._entry = history_rows.record_request(
                        conn,
                        self.session_id,
                        self.run_id,
                        self.model.name,
                        self.model.protocol,
                        self.body,
                        started_at=self.sent_at,
                        neutral=self.request.model_dump(mode="json") if self.request is not None else None,
                    )
            return self._entry
