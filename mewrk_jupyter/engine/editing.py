"""A person's changes to a timeline (T4–T11): insert, edit, delete, undo, redo, branch and fork.

Mixed into `Session`; every surface (widget, magics, Python) goes through these methods and rules.
"""

from __future__ import annotations

from typing import Any

from ..cards import rules
from ..cards.models import Card, ModelReply
from ..cards.undo import UNDO, CardChange, CardState, UndoStep
from ..cards.words import cards_of, noun
from ..errors import InvalidInput, NotEditable, NothingToUndo, SessionBusy
from ..store import cards as card_rows
from . import approvals
from .events import CardAdded, CardChanged, CardRemoved
from .timeline import Timeline

EDIT_WHILE_RUNNING = (
    "The model is running: nothing on the timeline can change until the turn ends — stop it to edit now."
)
APPROVAL_WAITING = (
    "An approval is waiting: approve or reject it first — s.approve(), s.reject(reason) "
    "or %mewrk approve | reject [reason]."
)


class TimelineEdits:
    """The person's side of a session: changes on the shared undo stack, and new sessions from this one."""

    def _check_idle(self) -> None:
        if self.state == "running":
            raise SessionBusy(EDIT_WHILE_RUNNING)

    def _check_no_approval(self) -> None:
        if self.state == "awaiting_approval":
            raise SessionBusy(APPROVAL_WAITING)

    def insert(self, card: Card, before: str | Card | None = None, after: str | Card | None = None) -> Card:
        """Place a new card before or after another (default: at the end); nothing is sent (T4)."""
        if not isinstance(card, Card):
            raise InvalidInput(
                f"insert() takes a card such as mw.UserInput(text='…'); got {type(card).__name__}."
            )
        rules.check_insertable(card)
        self._check_idle()
        if card.id in self._loaded().key_of:
            raise InvalidInput(f"A card with id `{card.id}` is already on the timeline; insert a new card.")
        update: dict[str, Any] = {"origin": "person", "response_id": None}
        if isinstance(card, ModelReply):
            update.update(complete=True, interrupted=False)
        card = card.model_copy(update=update, deep=True)
        key = self._place(card, *self._anchor(before, after))
        UNDO.push(
            UndoStep(
                self.id, f"inserted {noun(card.kind)}", [CardChange(card.id, None, CardState(card, key))]
            )
        )
        return card

    def _anchor(self, before: str | Card | None, after: str | Card | None) -> tuple[str | None, str | None]:
        """The ids a new card goes before or after (neither: at the end)."""
        if before is not None and after is not None:
            raise InvalidInput("Give either before= or after=, not both.")
        return (
            self._resolve_id(before) if before is not None else None,
            self._resolve_id(after) if after is not None else None,
        )

    def edit(self, card_id: str | Card, **fields: Any) -> Card:
        """Change a card in place under the rules of T6; the model never sees that it was edited."""
        self._check_idle()
        cid = self._resolve_id(card_id)
        key, old = self._loaded().get(cid)
        new = rules.apply_edit(old, fields)
        self._commit(lambda conn: card_rows.put_card(conn, self.id, new, key), lambda t, _: t.put(new, key))
        UNDO.push(
            UndoStep(
                self.id,
                f"edited {noun(old.kind)}",
                [CardChange(cid, CardState(old, key), CardState(new, key))],
            )
        )
        self._events.emit(CardChanged(self.id, new, key))
        approvals.follow_edits(self, [cid])
        return new

    def delete(self, *card_ids: str | Card) -> list[Card]:
        """Delete cards at once; one undo brings them all back (T8, T10)."""
        if not card_ids:
            raise InvalidInput("delete() needs at least one card id.")
        self._check_idle()
        ids = list(dict.fromkeys(self._resolve_id(c) for c in card_ids))
        timeline = self._loaded()
        states = [(cid, *timeline.get(cid)) for cid in ids]
        waiting = approvals.waiting_approval(self)
        if waiting is not None and waiting.id in ids:
            raise NotEditable(
                "This approval is waiting for your decision: approve or reject it (a rejection can carry "
                "a reason); it cannot be deleted."
            )

        def write(conn):
            for cid in ids:
                card_rows.delete_card(conn, self.id, cid)

        def mirror(t: Timeline, _):
            for cid in ids:
                t.remove(cid)

        self._commit(write, mirror)
        label = "deleted " + cards_of([card.kind for _, _, card in states])
        UNDO.push(
            UndoStep(
                self.id, label, [CardChange(cid, CardState(card, key), None) for cid, key, card in states]
            )
        )
        for cid, _, _ in states:
            self._events.emit(CardRemoved(self.id, cid))
        return [card for _, _, card in states]

    def undo(self) -> str:
        """Revert this session's newest step, and only it (T9); returns what was undone."""
        self._check_idle()
        step = UNDO.take_undo(self.id)
        if step is None:
            raise NothingToUndo("Nothing to undo in this session.")
        try:
            self._apply_states([(c.card_id, c.before) for c in step.changes])
        except BaseException:
            UNDO.restore(step, undone=False)
            raise
        UNDO.mark_undone(step)
        return f"Undid: {step.label}"

    def redo(self) -> str:
        """Apply again the step this session undid last; returns what was redone."""
        self._check_idle()
        step = UNDO.take_redo(self.id)
        if step is None:
            raise NothingToUndo("Nothing to redo in this session.")
        try:
            self._apply_states([(c.card_id, c.after) for c in step.changes])
        except BaseException:
            UNDO.restore(step, undone=True)
            raise
        UNDO.mark_redone(step)
        return f"Redid: {step.label}"

    def _apply_states(self, states: list[tuple[str, CardState | None]]) -> None:
        placed: list[tuple[str, Card | None, str | None]] = []

        def write(conn):
            placed.clear()
            for cid, state in states:
                if state is None:
                    card_rows.delete_card(conn, self.id, cid)
                    placed.append((cid, None, None))
                    continue
                current = card_rows.order_key_of(conn, self.id, cid)
                key = (
                    current
                    if current == state.order_key
                    else card_rows.free_key(conn, self.id, state.order_key)
                )
                if current is not None and current != key:
                    card_rows.delete_card(conn, self.id, cid)
                card_rows.put_card(conn, self.id, state.card, key)
                placed.append((cid, state.card, key))

        def mirror(t: Timeline, _):
            for cid, card, key in placed:
                if card is None:
                    t.remove(cid)
                else:
                    t.put(card, key)

        existed = set(self._loaded().key_of)
        self._commit(write, mirror)
        for cid, card, key in placed:
            if card is None:
                self._events.emit(CardRemoved(self.id, cid))
            elif cid in existed:
                self._events.emit(CardChanged(self.id, card, key or ""))
            else:
                self._events.emit(CardAdded(self.id, card, key or ""))
        approvals.follow_edits(self, [cid for cid, _, _ in placed])

    # ---- branch and fork (T11) -----------------------------------------------------------------

    def branch(self, at: str | Card) -> Any:
        """A new session whose timeline is this one up to and including the card `at`."""
        return self._copy_until(at, inclusive=True, suffix="branch")

    def fork(self, at: str | Card) -> Any:
        """A new session with everything above the card `at`."""
        return self._copy_until(at, inclusive=False, suffix="fork")

    def _copy_until(self, at: str | Card, inclusive: bool, suffix: str) -> Any:
        self._check_idle()
        cid = self._resolve_id(at)
        timeline = self._loaded()
        end = timeline.index(cid) + (1 if inclusive else 0)
        rows = [(timeline.keys[i], timeline.cards[i].model_copy(deep=True)) for i in range(end)]
        settings = self.settings.model_copy(update={"approved_always": []}, deep=True)
        return type(self)._create(self.workspace, f"{self.title} ({suffix})", settings, self.id, rows)
