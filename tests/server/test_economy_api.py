"""Context economy over HTTP (#39) against a real jupyter server: `GET …/stale` lists the stale tool results,
`POST …/prune` turns them (or the cards named) into stubs as one undo step, `GET …/cards/{card}/cache`
previews what a card's change spends of the prompt cache; unknown ids 404, bad input 400 with the
engine's sentence, a prune while a turn runs 409, and nothing changed by a refusal."""

from __future__ import annotations

import json

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.cards.models import ToolCall
from mewrk_jupyter.engine.turns.status import EDIT_WHILE_RUNNING
from tests.conftest import wait_for
from tests.server.conftest import Server


def read_twice(server: Server) -> mw.Session:
    """A session in the server's workspace that read notes.md twice: the first read is stale."""
    (server.root / "notes.md").write_text("the plan: ship it\n" * 40)
    s = mw.Session.new(title="economy", workspace=server.root)
    for _ in range(2):
        s.send(f"call: read {json.dumps({'path': 'notes.md'})}")
    return s


def calls(s: mw.Session) -> list[ToolCall]:
    return [c for c in s.cards if isinstance(c, ToolCall)]


def test_stale_lists_what_prune_turns_into_stubs(server: Server):
    s = read_twice(server)
    first, second = calls(s)
    found = s.stale()
    with server.client() as client:
        listed = client.get(f"/sessions/{s.id}/stale")
        assert listed.status_code == 200, listed.text
        assert listed.json() == {
            "stale": [
                {
                    "cardId": first.id,
                    "name": "read",
                    "params": {"path": "notes.md"},
                    "why": found[0].why,
                    "tokens": found[0].tokens,
                }
            ],
            "tokens": found.tokens,
            "result": str(found),
        }
        pruned = client.post(f"/sessions/{s.id}/prune", json={})
        assert pruned.status_code == 200, pruned.text
        done = pruned.json()
        assert (done["pruned"], done["deleted"], done["first"]) == ([first.id], [], first.id)
        assert done["tokensSaved"] > 0 and done["result"].startswith("Pruned 1 card: ≈")
        shown = {c["id"]: c for c in client.get(f"/sessions/{s.id}").json()["cards"]}
        assert shown[first.id]["result"].startswith("[pruned: read of notes.md — 40 lines")
        assert shown[second.id]["result"] == second.result
        assert client.get(f"/sessions/{s.id}/stale").json() == {
            "stale": [],
            "tokens": 0,
            "result": "No stale tool results.",
        }
        again = client.post(f"/sessions/{s.id}/prune", json={"cards": "stale", "thinking": True}).json()
        assert again == {
            "pruned": [],
            "deleted": [],
            "tokensSaved": 0,
            "first": None,
            "result": "Nothing to prune.",
        }
        # Cards named by id or prefix, in the timeline's order; the undo step is the server's (its process).
        other = read_twice(server)
        one, two = calls(other)
        named = client.post(f"/sessions/{other.id}/prune", json={"cards": [two.id[:6], one.id]}).json()
        assert named["pruned"] == [one.id, two.id] and named["first"] == one.id


def test_the_cache_preview_gives_both_sides_figures(server: Server):
    s = read_twice(server)
    first = calls(s)[0]
    preview = s.cache_preview(first.id)
    with server.client() as client:
        answer = client.get(f"/sessions/{s.id}/cards/{first.id}/cache")
        assert answer.status_code == 200, answer.text
        assert answer.json() == {
            "cardId": first.id,
            "sent": True,
            "changed": {
                "cachedTokens": preview.cached_tokens,
                "uncachedTokens": preview.uncached_tokens,
                "cost": 0.0,  # the offline models are free
            },
            "unchanged": {
                "cachedTokens": preview.unchanged.cached_tokens,
                "uncachedTokens": preview.unchanged.uncached_tokens,
                "cost": 0.0,
            },
            "extraTokens": preview.extra_tokens,
            "result": str(preview),
        }
        assert preview.extra_tokens > 0
        by_position = client.get(f"/sessions/{s.id}/cards/-1/cache").json()
        assert by_position["cardId"] == s.cards[-1].id


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "said"),
    [
        ("GET", "/sessions/nope/stale", None, 404, "No session"),
        ("POST", "/sessions/nope/prune", {}, 404, "No session"),
        ("GET", "/sessions/nope/cards/-1/cache", None, 404, "No session"),
        ("GET", "/sessions/{sid}/cards/c_nope/cache", None, 404, "No card `c_nope` in session"),
        ("POST", "/sessions/{sid}/prune", {"cards": ["c_nope"]}, 404, "No card `c_nope` in session"),
        ("POST", "/sessions/{sid}/prune", {"cards": ["{message}"]}, 400, "Only tool results and thinking"),
        ("POST", "/sessions/{sid}/prune", {"cards": []}, 400, 'prune() needs card ids, or "stale".'),
        ("POST", "/sessions/{sid}/prune", {"cards": "all"}, 400, "The field `cards"),
        ("POST", "/sessions/{sid}/prune", {"thinking": "yes"}, 400, "The field `thinking` is invalid"),
        (
            "POST",
            "/sessions/{sid}/prune",
            {"colour": 1},
            400,
            "Unknown field `colour`; this route takes `cards`",
        ),
    ],
)
def test_bad_input_is_refused_with_one_sentence_and_changes_nothing(
    server: Server, method, path, body, status, said
):
    s = read_twice(server)
    message = next(c for c in s.cards if c.kind == "user_input")
    before = [c.model_dump(mode="json") for c in s.cards]
    if body is not None and isinstance(body.get("cards"), list):
        body = {"cards": [message.id if c == "{message}" else c for c in body["cards"]]}
    with server.client() as client:
        answer = client.request(method, path.format(sid=s.id), json=body)
    assert answer.status_code == status, answer.text
    assert said in answer.json()["error"]
    assert [c.model_dump(mode="json") for c in s.cards] == before


def test_a_prune_while_a_turn_runs_gets_409_and_changes_nothing(server: Server):
    s = read_twice(server)
    s.configure(model="offline/slow")
    run = s.send("long: 1500", wait=False)
    wait_for(lambda: s.state == "running")
    try:
        with server.client() as client:
            refused = client.post(f"/sessions/{s.id}/prune", json={})
            assert refused.status_code == 409, refused.text
            assert refused.json() == {"error": EDIT_WHILE_RUNNING}
            assert client.get(f"/sessions/{s.id}/stale").status_code == 200  # reading is not refused
    finally:
        s.stop()
        run.wait(60)
    assert all(not (c.result or "").startswith("[pruned:") for c in calls(s))
