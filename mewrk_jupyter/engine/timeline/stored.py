"""The one owner of a session's stored timeline: its database rows, the in-memory mirror, the revision
that tells when another process wrote, and the events that keep every view in step.

Runs, approvals, hand-run tools and a person's edits all change cards through this object: each change
is one transaction, mirrored in memory, then announced.
"""

from __future__ import annotations

import re
import sqlite3
import threading
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from typing import TypeVar

from ...cards.models import Card
from ...cards.undo import CardState
from ...cards.words import count
from ...errors import CardNotFound, InvalidInput
from ...store import cards as card_rows
from ...store import sessions as session_rows
from ...store.db import Database
from ..events import CardAdded, CardChanged, CardRemoved, EventHub, Listener, Reloaded, SessionEvent
from .mirror import Timeline

T = TypeVar("T")


class StoredTimeline:
    """A session's cards in the store and in memory, changed in transactions and announced as events."""

    def __init__(self, db: Database, session_id: str) -> None:
        self.db = db
        self.session_id = session_id
        self.events = EventHub()
        self._lock = threading.RLock()
        self._mirror: Timeline | None = None
        self._rev = -1
        self._looking = threading.local()  # within one_look(): whether the store was asked already
        self.writes_seen = hasattr(db, "put_card_seen")  # a team store's server: save_seen writes there

    # ---- reading -------------------------------------------------------------------------------

    def current(self) -> Timeline:
        """The timeline, read again when another process changed the session since we last looked (once
        per one_look())."""
        with self._lock:
            looking = getattr(self._looking, "depth", 0) > 0
            if looking and self._looking.asked and self._mirror is not None:
                return self._mirror
            rev, self._looking.running = session_rows.rev_and_running(self.db.conn(), self.session_id)
            if self._mirror is None or rev != self._rev:
                reloaded = self._mirror is not None
                self._mirror = Timeline(card_rows.load_cards(self.db.conn(), self.session_id))
                self._rev = rev
                if reloaded:
                    self.events.emit(Reloaded(self.session_id))
            if looking:
                self._looking.asked = True
            return self._mirror

    def turn_marked(self) -> bool:
        """Whether the last look at the store (this thread's, made now if none was) found a run of the
        session marked running: only then does an edit ask whether it really runs (store/runs.py)."""
        self.current()
        return bool(getattr(self._looking, "running", True))

    @contextmanager
    def one_look(self, as_seen: bool = False) -> Iterator[None]:
        """One operation of a person (an edit: find the card, read it, save it) asks the store whether
        another process wrote once, at its first look, not at each: a round trip each on a team store's
        server. Its own writes keep the mirror in step (commit() finds another's by the revision).
        `as_seen`: the timeline as last seen, the store not asked at all (what save_seen writes on)."""
        depth = getattr(self._looking, "depth", 0)
        if depth == 0:
            self._looking.asked = as_seen and self._mirror is not None
        self._looking.depth = depth + 1
        try:
            yield
        finally:
            self._looking.depth = depth

    def find(self, card_id: str) -> Card | None:
        """The card with this exact id, or None."""
        found = self.current().get(card_id)
        return found[1] if found else None

    def resolve(self, ref: str | Card) -> str:
        """A card's id from its id, an unambiguous id prefix, or its position from the end (`"-1"`)."""
        card_id = ref.id if isinstance(ref, Card) else ref
        if not isinstance(card_id, str) or not card_id:
            raise InvalidInput(f"A card is named by its id (a string); got {ref!r}.")
        timeline = self.current()
        if card_id in timeline.key_of:
            return card_id
        if re.fullmatch(r"-\d+", card_id):  # a position from the end: `-1` is the last card
            if not 1 <= -int(card_id) <= len(timeline.cards):
                raise CardNotFound(
                    f"No card at position {card_id}: the timeline has {count(len(timeline.cards), 'card')}."
                )
            return timeline.cards[int(card_id)].id
        matches = [cid for cid in timeline.key_of if cid.startswith(card_id)]
        if len(matches) == 1:
            return matches[0]
        if matches:
            raise InvalidInput(f"`{card_id}` names {len(matches)} cards; give more of the id.")
        raise CardNotFound(f"No card `{card_id}` in session `{self.session_id}`.")

    def anchor(self, before: str | Card | None, after: str | Card | None) -> tuple[str | None, str | None]:
        """The ids a new card goes before or after (neither: at the end)."""
        if before is not None and after is not None:
            raise InvalidInput("Give either before= or after=, not both.")
        return (
            self.resolve(before) if before is not None else None,
            self.resolve(after) if after is not None else None,
        )

    # ---- changing ------------------------------------------------------------------------------

    def commit(self, write: Callable[[sqlite3.Connection], T], mirror: Callable[[Timeline, T], None]) -> T:
        """Write in one transaction, then mirror the change in memory (or reload if another process wrote)."""
        with self._lock:
            with self.db.tx() as conn:
                result = write(conn)
                revision = session_rows.bump_rev_later(conn, self.session_id)
            after = revision()
            # The transaction held the write lock from its start: the revision it found was one less,
            # and the mirror is up to date when that was the revision it mirrors. Checked here rather
            # than read before the write: one query less on every change, a streamed reply's included.
            if after - 1 == self._rev and self._mirror is not None:
                mirror(self._mirror, result)
                self._rev = after
            else:
                stale = self._mirror is not None  # another process wrote since we last looked
                self._mirror = None  # read again, this change with it, when next asked
                if stale:
                    self.events.emit(Reloaded(self.session_id))
            return result

    def place(
        self,
        card: Card,
        before_id: str | None = None,
        after_id: str | None = None,
        *,
        along: Callable[[sqlite3.Connection], None] | None = None,
        announce: bool = True,
    ) -> str:
        """Store a new card before or after another (default: at the end) and announce it; returns its key.

        `along` writes something else in the same transaction first (a turn's claim with its question):
        when it raises, nothing is stored. With `announce=False` the caller announces the card.
        """

        def write(conn: sqlite3.Connection) -> str:
            if along is not None:
                along(conn)
            return self._insert(conn, card, before_id, after_id)

        key = self.commit(write, lambda t, key: t.put(card, key))
        if announce:
            self.events.emit(CardAdded(self.session_id, card, key))
        return key

    def _insert(
        self, conn: sqlite3.Connection, card: Card, before_id: str | None = None, after_id: str | None = None
    ) -> str:
        """Store a new card before or after another (default: at the end) in this transaction; its key."""
        key = card_rows.key_for_insert(conn, self.session_id, before=before_id, after=after_id)
        card_rows.put_card(conn, self.session_id, card, key)
        return key

    def append(self, card: Card) -> str:
        """Add a card at the end of the timeline; returns its key."""
        return self.place(card)

    def append_after(self, write: Callable[[sqlite3.Connection], Card | None]) -> Card | None:
        """Run `write` in one transaction; the card it returns, if any, goes at the end of the timeline in
        that same transaction (what `write` found decides whether it is placed), and is announced."""

        def both(conn: sqlite3.Connection) -> tuple[Card, str] | None:
            card = write(conn)
            return None if card is None else (card, self._insert(conn, card))

        def mirror(timeline: Timeline, placed: tuple[Card, str] | None) -> None:
            if placed is not None:
                timeline.put(*placed)

        placed = self.commit(both, mirror)
        if placed is None:
            return None
        self.events.emit(CardAdded(self.session_id, *placed))
        return placed[0]

    def save(self, card: Card, announce: bool = True) -> None:
        """Store a card's new content in place; skipped if the card left the timeline (a person deleted it)."""
        key = self.current().key_of.get(card.id)
        if key is None:
            return
        self.commit(
            lambda conn: card_rows.put_card(conn, self.session_id, card, key), lambda t, _: t.put(card, key)
        )
        if announce:
            self.events.emit(CardChanged(self.session_id, card, key))

    @contextmanager
    def as_seen(self) -> Iterator[bool]:
        """The timeline as this process last saw it, the store not asked, and held still (no other thread
        of this process changes or reloads it) for an operation that save_seen writes in one call to a
        team store's server; yields whether there is one to use (a team store, a timeline seen before)."""
        self._looking.announce = None
        try:
            with self._lock, self.one_look(as_seen=True):
                yield self.writes_seen and self._mirror is not None
        finally:
            announce, self._looking.announce = self._looking.announce, None
            if announce is not None:  # told once the timeline is let go of, as commit()'s changes are
                self.events.emit(announce)

    def key_as_seen(self, before_id: str | None, after_id: str | None) -> str:
        """Within as_seen(): the key a new card before or after another (neither: at the end) takes, as
        key_for_insert finds it in the store."""
        assert self._mirror is not None
        keys, key_of = self._mirror.keys, self._mirror.key_of
        if before_id is not None:
            i = bisect_left(keys, key_of[before_id])
            return card_rows.key_between(keys[i - 1] if i else None, keys[i])
        if after_id is not None:
            i = bisect_left(keys, key_of[after_id])
            return card_rows.key_between(keys[i], keys[i + 1] if i + 1 < len(keys) else None)
        return card_rows.key_between(keys[-1] if keys else None, None)

    def save_seen(self, card: Card, key: str | None = None) -> bool:
        """Within as_seen(): store a card's new content in place (with `key`, a new card there) in one call
        to the team store's server, which writes it only if the session is still as this process saw it
        and no run of it is marked running; announced when as_seen() ends (#37: a person's edit or insert in
        one round trip). False, with nothing written, where it cannot: then the change goes the long way."""
        put = getattr(self.db, "put_card_seen", None)
        data = card_rows.plain_row(card)
        mirror = self._mirror
        held = mirror.key_of.get(card.id) if mirror is not None else None
        key = key if held is None else held
        if put is None or mirror is None or key is None or data is None:
            return False
        rev = put(self.session_id, card.id, key, card.kind, data, self._rev)
        if rev is None:
            return False
        mirror.put(card, key)
        self._rev = rev
        self._looking.announce = (CardAdded if held is None else CardChanged)(self.session_id, card, key)
        return True

    def remove(self, card_ids: Iterable[str]) -> None:
        """Take cards off the timeline in one transaction and announce each."""
        ids = list(card_ids)

        def write(conn: sqlite3.Connection) -> None:
            for cid in ids:
                card_rows.delete_card(conn, self.session_id, cid)

        def mirror(t: Timeline, _: None) -> None:
            for cid in ids:
                t.remove(cid)

        self.commit(write, mirror)
        for cid in ids:
            self.events.emit(CardRemoved(self.session_id, cid))

    def restore(self, states: list[tuple[str, CardState | None]]) -> list[str]:
        """Put cards back as they were (None: absent) for undo and redo; returns the ids it changed."""
        placed: list[tuple[str, Card | None, str]] = []

        def write(conn: sqlite3.Connection) -> None:
            placed.clear()  # a retried transaction starts again
            for cid, state in states:
                if state is None:
                    card_rows.delete_card(conn, self.session_id, cid)
                    placed.append((cid, None, ""))
                    continue
                current = card_rows.order_key_of(conn, self.session_id, cid)
                key = (
                    current
                    if current == state.order_key
                    else card_rows.free_key(conn, self.session_id, state.order_key)
                )
                if current is not None and current != key:
                    card_rows.delete_card(conn, self.session_id, cid)
                card_rows.put_card(conn, self.session_id, state.card, key)
                placed.append((cid, state.card, key))

        def mirror(t: Timeline, _: None) -> None:
            for cid, card, key in placed:
                if card is None:
                    t.remove(cid)
                else:
                    t.put(card, key)

        existed = set(self.current().key_of)
        self.commit(write, mirror)
        for cid, card, key in placed:
            if card is None:
                self.events.emit(CardRemoved(self.session_id, cid))
            elif cid in existed:
                self.events.emit(CardChanged(self.session_id, card, key))
            else:
                self.events.emit(CardAdded(self.session_id, card, key))
        return [cid for cid, _, _ in placed]

    # ---- events --------------------------------------------------------------------------------

    def emit(self, event: SessionEvent) -> None:
        """Tell every view of the session."""
        self.events.emit(event)

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener` with every change of the session; returns the function that unsubscribes."""
        return self.events.subscribe(listener)
