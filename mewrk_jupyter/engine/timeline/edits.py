"""A person's changes to a timeline (T4–T11): insert, edit, delete, undo, redo, and the cards a branch or
fork copies. Every surface (widget, magics, Python) goes through these methods and rules.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol, TypeVar

from ...cards import rules
from ...cards.models import Approval, Card, ModelReply
from ...cards.undo import UNDO, CardChange, CardState, UndoStep
from ...cards.words import cards_of, noun
from ...errors import InvalidInput, MewrkError, NotEditable, NothingToUndo
from .stored import StoredTimeline

C = TypeVar("C", bound=Card)

WAITING_CANNOT_BE_DELETED = (
    "This approval is waiting for your decision: approve or reject it (a rejection can carry "
    "a reason); it cannot be deleted."
)


class ApprovalWatch(Protocol):
    """What edits need to know of approvals: the one waiting, and keeping it in step with its call."""

    def waiting_approval(self) -> Approval | None:
        """The approval a paused turn waits on, if any."""

    def follow_edits(self, card_ids: list[str]) -> None:
        """Show a waiting approval the input that will run after its tool call changed."""


class TimelineEdits:
    """The person's side of a timeline: changes on the shared undo stack, refused while a turn runs."""

    def __init__(self, timeline: StoredTimeline, check_idle: Callable[[], None], approvals: ApprovalWatch):
        self.timeline = timeline
        self.check_idle = check_idle
        self.approvals = approvals

    @property
    def session_id(self) -> str:
        """The session whose timeline this edits."""
        return self.timeline.session_id

    def insert(self, card: C, before: str | Card | None = None, after: str | Card | None = None) -> C:
        """Place a new card before or after another (default: at the end); nothing is sent (T4)."""
        if not isinstance(card, Card):
            raise InvalidInput(
                f"insert() takes a card such as mw.UserInput(text='…'); got {type(card).__name__}."
            )
        rules.check_insertable(card)
        update: dict[str, Any] = {"origin": "person", "response_id": None}
        if isinstance(card, ModelReply):
            update.update(complete=True, interrupted=False)
        placed = card.model_copy(update=update, deep=True)
        key = self._insert_as_seen(placed, before, after)
        if key is None:
            with self.timeline.one_look():
                self._check_idle()
                if card.id in self.timeline.current().key_of:
                    raise InvalidInput(
                        f"A card with id `{card.id}` is already on the timeline; insert a new card."
                    )
                key = self.timeline.place(placed, *self.timeline.anchor(before, after))
        card = placed
        change = CardChange(card.id, None, CardState(card, key))
        UNDO.push(UndoStep(self.session_id, f"inserted {noun(card.kind)}", [change]))
        return card

    def edit(self, card_id: str | Card, **fields: Any) -> Card:
        """Change a card in place under the rules of T6; the model never sees that it was edited."""
        done = self._edit_as_seen(card_id, fields)
        if done is not None:
            return done
        with self.timeline.one_look():
            self._check_idle()
            cid = self.timeline.resolve(card_id)
            key, old = self.timeline.current().get(cid) or ("", None)
            assert old is not None  # resolve() found it
            new = rules.apply_edit(old, fields)
            self.timeline.save(new)
            return self._edited(cid, key, old, new)

    def _edit_as_seen(self, card_id: str | Card, fields: dict[str, Any]) -> Card | None:
        """On a team store, the edit made on the timeline as last seen and written in one call to the
        server, which writes it only if the session is still so and no turn runs (#37); None where it was
        not written: the edit then looks at the store and is checked as always, errors included."""
        if not self.timeline.writes_seen:
            return None
        with self.timeline.one_look(as_seen=True):  # what follows the write reads the timeline as written
            with self.timeline.as_seen() as usable:
                if not usable:
                    return None
                try:
                    cid = self.timeline.resolve(card_id)
                    key, old = self.timeline.current().get(cid) or ("", None)
                    assert old is not None  # resolve() found it
                    new = rules.apply_edit(old, fields)
                except MewrkError:
                    return None  # said again, on the store's timeline, by the long way
                if not self.timeline.save_seen(new):
                    return None
            return self._edited(cid, key, old, new)  # the timeline let go of, its change announced

    def _insert_as_seen(self, card: Card, before: str | Card | None, after: str | Card | None) -> str | None:
        """On a team store, the card placed on the timeline as last seen, in one call to the server, which
        writes it only if the session is still so and no turn runs (#37); its key, or None where it was
        not written: the insert then looks at the store and is checked as always."""
        if not self.timeline.writes_seen:
            return None
        with self.timeline.as_seen() as usable:
            if not usable:
                return None
            try:
                if card.id in self.timeline.current().key_of:
                    return None
                key = self.timeline.key_as_seen(*self.timeline.anchor(before, after))
            except MewrkError:
                return None
            return key if self.timeline.save_seen(card, key) else None

    def _edited(self, cid: str, key: str, old: Card, new: Card) -> Card:
        """After an edit is stored: its undo step, and a waiting approval shown the input that changed."""
        change = CardChange(cid, CardState(old, key), CardState(new, key))
        UNDO.push(UndoStep(self.session_id, f"edited {noun(old.kind)}", [change]))
        self.approvals.follow_edits([cid])
        return new

    def delete(self, *card_ids: str | Card) -> list[Card]:
        """Delete cards at once; one undo brings them all back (T8, T10)."""
        if not card_ids:
            raise InvalidInput("delete() needs at least one card id.")
        self.check_idle()
        ids = list(dict.fromkeys(self.timeline.resolve(c) for c in card_ids))
        timeline = self.timeline.current()
        states = [(cid, *found) for cid in ids if (found := timeline.get(cid))]
        waiting = self.approvals.waiting_approval()
        if waiting is not None and waiting.id in ids:
            raise NotEditable(WAITING_CANNOT_BE_DELETED)
        self.timeline.remove(ids)
        label = "deleted " + cards_of([card.kind for _, _, card in states])
        changes = [CardChange(cid, CardState(card, key), None) for cid, key, card in states]
        UNDO.push(UndoStep(self.session_id, label, changes))
        return [card for _, _, card in states]

    def change_all(self, changes: list[tuple[str, Card | None]], label: str) -> None:
        """Put several cards as given (a new content, or None to delete one) in one transaction and one
        undo step named `label` (a prune)."""
        self.check_idle()
        with self.timeline.one_look():
            timeline = self.timeline.current()
            undo: list[CardChange] = []
            states: list[tuple[str, CardState | None]] = []
            for cid, new in changes:
                key, old = timeline.get(cid) or ("", None)
                if old is None:
                    continue  # gone since it was chosen
                after = CardState(new, key) if new is not None else None
                undo.append(CardChange(cid, CardState(old, key), after))
                states.append((cid, after))
            if states:
                self._apply(states)
                UNDO.push(UndoStep(self.session_id, label, undo))

    def _check_idle(self) -> None:
        """Refuse the change while a turn runs: the revision's look says whether a run is marked running
        (one query for both), and only then is it asked whether that run is alive."""
        if self.timeline.turn_marked():
            self.check_idle()

    def undo(self) -> str:
        """Revert this session's newest step, and only it (T9); returns what was undone."""
        self.check_idle()
        step = UNDO.take_undo(self.session_id)
        if step is None:
            raise NothingToUndo("Nothing to undo in this session.")
        try:
            self._apply([(c.card_id, c.before) for c in step.changes])
        except BaseException:
            UNDO.restore(step, undone=False)
            raise
        UNDO.mark_undone(step)
        return f"Undid: {step.label}"

    def redo(self) -> str:
        """Apply again the step this session undid last; returns what was redone."""
        self.check_idle()
        step = UNDO.take_redo(self.session_id)
        if step is None:
            raise NothingToUndo("Nothing to redo in this session.")
        try:
            self._apply([(c.card_id, c.after) for c in step.changes])
        except BaseException:
            UNDO.restore(step, undone=True)
            raise
        UNDO.mark_redone(step)
        return f"Redid: {step.label}"

    def _apply(self, states: list[tuple[str, CardState | None]]) -> None:
        self.approvals.follow_edits(self.timeline.restore(states))

    def rows_until(self, at: str | Card, inclusive: bool) -> list[tuple[str, Card]]:
        """Copies of the cards (with their keys) above the card `at`, and `at` itself if `inclusive` (T11)."""
        self.check_idle()
        cid = self.timeline.resolve(at)
        timeline = self.timeline.current()
        end = timeline.index(cid) + (1 if inclusive else 0)
        return [(timeline.keys[i], timeline.cards[i].model_copy(deep=True)) for i in range(end)]
