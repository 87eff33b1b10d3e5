"""A replay's comparisons on its branch (#38): each turn's comparison is a card right after that turn's new
cards — read in this process or another, after the branch is opened again, in an exported notebook — and
no request ever carries it."""

from __future__ import annotations

import json

import mewrk_jupyter as mw
from tests.conftest import run_python

from .test_replay import recording


def _comparisons(s: mw.Session) -> list[mw.Comparison]:
    return [c for c in s.cards if isinstance(c, mw.Comparison)]


def test_each_turn_s_comparison_follows_its_new_cards_with_the_figures_of_the_replay(workspace):
    s = recording(workspace)
    replay = s.replay("offline/thinker").wait(60)
    cards = list(replay.branch.cards)
    messages = [i for i, c in enumerate(cards) if isinstance(c, mw.UserInput)]
    placed = [i for i, c in enumerate(cards) if isinstance(c, mw.Comparison)]
    # The first turn's comparison just above the second message; the second's ends the timeline.
    assert placed == [messages[1] - 1, len(cards) - 1]
    for card, turn, at, message in zip(
        _comparisons(replay.branch), replay.turns, placed, messages, strict=True
    ):
        assert (card.number, card.source_id, card.origin) == (turn.number, s.id, "engine")
        assert (card.same_text, card.same_tools) == (turn.same_text, turn.same_tools)
        assert (card.diff, card.tools_diff) == (turn.diff, turn.tools_diff)
        assert card.recorded.model == "offline/echo" and card.replayed.model == "offline/thinker"
        assert (card.recorded.tokens, card.replayed.tokens) == (turn.recorded.tokens, turn.replayed.tokens)
        assert card.replayed.latency == turn.replayed.latency and card.recorded.cost is None
        # The replayed side is exactly the cards between the message and its comparison.
        assert card.replayed.card_ids == [c.id for c in cards[message + 1 : at]] == turn.replayed.card_ids
        assert card.recorded.card_ids == turn.recorded.card_ids
        assert set(card.recorded.card_ids) <= {c.id for c in s.cards}
    first, second = _comparisons(replay.branch)
    assert first.title_line() == f"turn 1 · same · {first.recorded.tokens} → {first.replayed.tokens} tokens"
    assert second.title_line().startswith("turn 2 · same tools, other text · ")  # the call ids differ
    assert second.diff.startswith("--- recorded (offline/echo)\n+++ replayed (offline/thinker)")


def test_no_request_carries_a_comparison_and_a_person_may_delete_it_but_not_edit_it(workspace):
    s = recording(workspace)
    replay = s.replay("offline/thinker").wait(60)
    branch = replay.branch
    branch.send("and now?")  # the person goes on in the branch: the comparisons stay out
    first, second = _comparisons(branch)
    for entry in branch.history:
        sent = json.dumps(entry.request)
        assert "--- recorded (" not in sent and first.id not in sent and second.id not in sent
    assert branch.not_sent() == {}  # left out by kind, as approvals are, not by a reason of its own
    refused = None
    try:
        branch.edit(first.id, diff="")
    except mw.NotEditable as exc:
        refused = str(exc)
    assert (
        refused
        == "A replay's comparison is read-only; it shows how the turn above compares with the recording's."
    )
    branch.delete(first.id)
    assert [c.number for c in _comparisons(branch)] == [2]
    branch.undo()
    assert [c.number for c in _comparisons(branch)] == [1, 2]


def test_a_replayed_branch_replayed_again_compares_its_turns_without_the_old_comparisons(workspace):
    s = recording(workspace)
    branch = s.replay("offline/thinker").wait(60).branch
    again = branch.replay().wait(60)
    assert again.state == "done" and again.model == "offline/thinker"
    assert all(turn.same_text and turn.same_tools for turn in again.turns)  # the same model, deterministic
    old = {c.id for c in _comparisons(branch)}
    assert not old & {i for turn in again.turns for i in turn.recorded.card_ids}
    assert [c.number for c in _comparisons(again.branch)] == [1, 2]  # its own, not copies of the old


def test_the_comparisons_are_read_in_another_process_and_kept_by_an_exported_notebook(workspace):
    s = recording(workspace)
    replay = s.replay("offline/thinker").wait(60)
    mine = [c.model_dump() for c in _comparisons(replay.branch)]
    done = run_python(
        f"""
        import json, mewrk_jupyter as mw
        branch = mw.Session.open({replay.branch.id!r})
        print(json.dumps([c.model_dump() for c in branch.cards if c.kind == "comparison"]))
        """,
        workspace,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == mine
    path = replay.branch.export(workspace / "replayed.ipynb")
    cells = json.loads(path.read_text())["cells"]
    shown = [cell for cell in cells if cell["metadata"]["mewrk"]["kind"] == "comparison"]
    assert "".join(shown[0]["source"]).startswith("**Replay**\n\nturn 1 · same · ")
    assert "```diff" in "".join(shown[1]["source"])  # the diffs to read in the notebook
    imported = mw.Session.import_notebook(path)
    assert [c.model_dump(exclude={"created_at"}) for c in _comparisons(imported)] == [
        {k: v for k, v in card.items() if k != "created_at"} for card in mine
    ]
    markdown = replay.branch.export(workspace / "replayed.md").read_text()
    assert "### Replay\n\nturn 2 · " in markdown
