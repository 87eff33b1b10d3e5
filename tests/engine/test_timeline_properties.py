"""Property-based tests of the timeline (T4–T11): random insert, edit, delete, undo, redo and branch on
real sessions in a real store keep the invariants, checked against a small model of the undo stack.

Invariants: every session shows what the model says after each step; undo of everything restores the
start (within the 64-step bound, past it the oldest steps are gone); a branch never changes its source,
nor its source the branch; the store read by a new process equals the timeline in memory.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

import mewrk_jupyter as mw
from mewrk_jupyter.cards.undo import UNDO, UNDO_LIMIT
from tests.conftest import forget_process_state

Card = tuple[str, str, str]  # id, kind, text: what a step must put back
Snapshot = tuple[Card, ...]

# Deterministic: the same examples on every run and machine, no example database between runs.
PROFILE = settings(
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
TEXTS = st.text(alphabet="abc xyzé\n{}$\"'", min_size=1, max_size=12)
KINDS = st.sampled_from(["user", "reply"])


def snapshot(session: mw.Session) -> Snapshot:
    return tuple((c.id, c.kind, c.text) for c in session.cards)


def new_card(kind: str, text: str) -> mw.Card:
    return mw.UserInput(text=text) if kind == "user" else mw.ModelReply(text=text)


class UndoModel:
    """The undo stack as DESIGN states it: one process-wide list of at most 64 steps, newest per session."""

    def __init__(self) -> None:
        self.done: list[tuple[str, Snapshot, Snapshot]] = []
        self.undone: list[tuple[str, Snapshot, Snapshot]] = []

    def push(self, sid: str, before: Snapshot, after: Snapshot) -> None:
        self.done.append((sid, before, after))
        self.undone = [step for step in self.undone if step[0] != sid]
        del self.done[: max(0, len(self.done) - UNDO_LIMIT)]

    def take(self, steps: list[tuple[str, Snapshot, Snapshot]], sid: str) -> tuple | None:
        for i in range(len(steps) - 1, -1, -1):
            if steps[i][0] == sid:
                return steps.pop(i)
        return None

    def undo(self, sid: str) -> Snapshot | None:
        step = self.take(self.done, sid)
        if step is not None:
            self.undone.append(step)
        return step[1] if step else None

    def redo(self, sid: str) -> Snapshot | None:
        step = self.take(self.undone, sid)
        if step is not None:
            self.done.append(step)
            del self.done[: max(0, len(self.done) - UNDO_LIMIT)]
        return step[2] if step else None


class TimelineMachine(RuleBasedStateMachine):
    """Sessions of one workspace, changed at random through the public API."""

    def __init__(self) -> None:
        super().__init__()
        self.folder = tempfile.TemporaryDirectory()
        self.previous = (os.getcwd(), os.environ.get("HOME"), os.environ.pop("MEWRK_HOME", None))
        os.chdir(self.folder.name)
        os.environ["HOME"] = self.folder.name
        UNDO.clear()
        forget_process_state()
        first = mw.Session.new(title="source")
        self.sessions: list[mw.Session] = [first]
        self.expected: dict[str, Snapshot] = {first.id: ()}
        self.model = UndoModel()

    def teardown(self) -> None:
        UNDO.clear()
        forget_process_state()
        cwd, home, mewrk_home = self.previous
        os.chdir(cwd)
        os.environ["HOME"] = home or ""
        if mewrk_home is not None:
            os.environ["MEWRK_HOME"] = mewrk_home
        self.folder.cleanup()

    def pick(self, n: int) -> mw.Session:
        return self.sessions[n % len(self.sessions)]

    def change(self, session: mw.Session, act) -> None:
        """Apply one undoable change and record the step the model expects."""
        before = snapshot(session)
        act()
        after = snapshot(session)
        self.model.push(session.id, before, after)
        self.expected[session.id] = after

    @rule(
        n=st.integers(0, 9),
        kind=KINDS,
        text=TEXTS,
        at=st.integers(0, 99),
        where=st.sampled_from(["before", "after", "end"]),
    )
    def insert(self, n: int, kind: str, text: str, at: int, where: str) -> None:
        s = self.pick(n)
        card = new_card(kind, text)
        cards = self.expected[s.id]
        if where == "end" or not cards:
            self.change(s, lambda: s.insert(card))
            position = len(cards)
        else:
            anchor = cards[at % len(cards)][0]
            self.change(s, lambda: s.insert(card, **{where: anchor}))
            position = at % len(cards) + (where == "after")
        placed = self.expected[s.id]
        assert placed[position] == (card.id, card.kind, text)
        assert placed[:position] + placed[position + 1 :] == cards

    @precondition(lambda self: any(self.expected.values()))
    @rule(n=st.integers(0, 9), at=st.integers(0, 99), text=TEXTS)
    def edit(self, n: int, at: int, text: str) -> None:
        s = self.pick(n)
        cards = self.expected[s.id]
        if not cards:
            return
        i = at % len(cards)
        self.change(s, lambda: s.edit(cards[i][0], text=text))
        assert self.expected[s.id] == (*cards[:i], (cards[i][0], cards[i][1], text), *cards[i + 1 :])

    @precondition(lambda self: any(self.expected.values()))
    @rule(n=st.integers(0, 9), picks=st.lists(st.integers(0, 99), min_size=1, max_size=3))
    def delete(self, n: int, picks: list[int]) -> None:
        s = self.pick(n)
        cards = self.expected[s.id]
        if not cards:
            return
        gone = {cards[p % len(cards)][0] for p in picks}
        self.change(s, lambda: s.delete(*gone))
        assert self.expected[s.id] == tuple(c for c in cards if c[0] not in gone)

    @rule(n=st.integers(0, 9))
    def undo(self, n: int) -> None:
        s = self.pick(n)
        want = self.model.undo(s.id)
        if want is None:
            try:
                s.undo()
            except mw.NothingToUndo:
                return
            raise AssertionError("undo went through where the 64-step stack holds no step of this session")
        s.undo()
        self.expected[s.id] = want

    @rule(n=st.integers(0, 9))
    def redo(self, n: int) -> None:
        s = self.pick(n)
        want = self.model.redo(s.id)
        if want is None:
            try:
                s.redo()
            except mw.NothingToUndo:
                return
            raise AssertionError("redo went through where nothing of this session was undone")
        s.redo()
        self.expected[s.id] = want

    @precondition(lambda self: len(self.sessions) < 4 and any(self.expected.values()))
    @rule(n=st.integers(0, 9), at=st.integers(0, 99))
    def branch(self, n: int, at: int) -> None:
        s = self.pick(n)
        cards = self.expected[s.id]
        if not cards:
            return
        i = at % len(cards)
        new = s.branch(cards[i][0])
        assert snapshot(s) == cards  # branching leaves its source as it was
        self.sessions.append(new)
        self.expected[new.id] = cards[: i + 1]

    @rule()
    def new_process(self) -> None:
        """The store read again as a new process reads it (the undo stack lives on in this one)."""
        forget_process_state()
        self.sessions = [mw.Session.open(s.id) for s in self.sessions]

    @rule(n=st.integers(0, 9))
    def undo_everything(self, n: int) -> None:
        s = self.pick(n)
        while (before := self.model.undo(s.id)) is not None:
            s.undo()
            self.expected[s.id] = before
        try:
            s.undo()
        except mw.NothingToUndo:
            pass
        else:
            raise AssertionError("undo went on past the steps the stack holds")

    @invariant()
    def every_session_shows_what_it_should(self) -> None:
        for s in self.sessions:
            assert snapshot(s) == self.expected[s.id], s.title

    @invariant()
    def the_stack_holds_at_most_64_steps(self) -> None:
        assert len(UNDO.steps()) == len(self.model.done) <= UNDO_LIMIT


TimelineMachine.TestCase.settings = settings(PROFILE, max_examples=30, stateful_step_count=80)
test_random_changes_keep_the_timeline_invariants = TimelineMachine.TestCase


@settings(PROFILE, max_examples=10)
@given(
    steps=st.lists(
        st.tuples(st.sampled_from(["insert", "edit", "delete"]), KINDS, TEXTS, st.integers(0, 99)),
        min_size=UNDO_LIMIT - 4,
        max_size=UNDO_LIMIT + 12,
    )
)
def test_undo_of_everything_restores_the_start_within_the_64_step_bound(workspace: Path, steps) -> None:
    UNDO.clear()
    s = mw.Session.new()
    for i in range(5):
        s.insert(new_card("user" if i % 2 == 0 else "reply", f"start {i}"))
    start, states = snapshot(s), []
    UNDO.clear()  # the start: what undo of everything must come back to, if the stack holds every step
    for action, kind, text, at in steps:
        states.append(snapshot(s))
        cards = s.cards
        if action == "insert" or not cards:
            s.insert(new_card(kind, text), after=cards[at % len(cards)].id if cards else None)
        elif action == "edit":
            s.edit(cards[at % len(cards)].id, text=text)
        else:
            s.delete(cards[at % len(cards)].id)
    undone = 0
    while True:
        try:
            s.undo()
        except mw.NothingToUndo:
            break
        undone += 1
    assert undone == min(len(steps), UNDO_LIMIT)
    assert snapshot(s) == (start if len(steps) <= UNDO_LIMIT else states[len(steps) - UNDO_LIMIT])
    forget_process_state()
    assert snapshot(mw.Session.open(s.id)) == snapshot(s)
