"""`POST /mewrk/v2/sessions/{id}/replay` (#38) against a real jupyter server: the branch first, a comparison
per turn, then the end with the report, as Server-Sent Events like a run; the rest of a replay again by
its branch's id; Stop on the branch; bad bodies and unknown ids refused with one sentence, nothing made."""

from __future__ import annotations

import httpx
import pytest

import mewrk_jupyter as mw
from tests.conftest import wait_for
from tests.server.conftest import Event, Server, events_of


def replay_stream(client: httpx.Client, session_id: str, body: dict) -> list[Event]:
    """The whole event stream of a replay."""
    with client.stream("POST", f"/sessions/{session_id}/replay", json=body) as answer:
        assert answer.status_code == 200, answer.read()
        assert answer.headers["content-type"].startswith("text/event-stream")
        return list(events_of(answer.iter_lines()))


def recording(server: Server) -> mw.Session:
    """A session on offline/echo in the server's workspace: a greeting, then a command, approved."""
    s = mw.Session.new(title="recorded", workspace=server.root)
    s.send("hello there")
    s.send('call: bash {"command": "echo ran >> ran.txt; cat ran.txt"}')
    s.approve()
    return s


def test_a_replay_streams_its_branch_then_each_turn_s_comparison_then_the_report(server: Server):
    s = recording(server)
    (server.root / "ran.txt").unlink()
    before = [c.model_dump(mode="json") for c in s.cards]
    with server.client() as client:
        events = replay_stream(client, s.id, {"model": "offline/thinker"})
        head, *turns, end = events
        assert head.event == "replay" and head.id is None
        branch = head.data["branchId"]
        assert head.data == {
            "branchId": branch,
            "sessionId": s.id,
            "model": "offline/thinker",
            "recordedModel": "offline/echo",
            "tools": "recorded",
            "messages": 2,
        }
        assert [(e.event, e.id) for e in turns] == [("turn", 1), ("turn", 2)]
        first, second = (e.data for e in turns)
        assert (first["number"], first["message"], first["sameTools"]) == (1, "hello there", True)
        assert second["sameTools"] and not second["sameText"] and second["toolsDiff"] == ""
        assert second["diff"].startswith("--- recorded (offline/echo)\n+++ replayed (offline/thinker)")
        assert (
            second["recorded"]["tools"]
            == second["replayed"]["tools"]
            == [{"name": "bash", "params": {"command": "echo ran >> ran.txt; cat ran.txt"}}]
        )
        for side, model in (("recorded", "offline/echo"), ("replayed", "offline/thinker")):
            figures = second[side]
            assert figures["model"] == model and figures["tokens"] == sum(figures["usage"].values()) > 0
            assert figures["cost"] is None and figures["latency"] is not None and figures["cardIds"]
        assert end.event == "end" and end.data["state"] == "done" and end.data["error"] is None
        assert end.data["lastEvent"] == 2 and end.data["branchId"] == branch
        assert "recorded on `offline/echo`, replayed on `offline/thinker`" in end.data["report"]
        # The branch is a session of the workspace, the recording exactly as it was; nothing ran again.
        shown = client.get(f"/sessions/{branch}").json()
        assert shown["parent"] == s.id and shown["model"] == "offline/thinker"
        assert set(second["replayed"]["cardIds"]) <= {c["id"] for c in shown["cards"]}
        assert client.get(f"/sessions/{s.id}").json()["cards"] == before
        assert not (server.root / "ran.txt").exists()
        # The same replay read again by its branch: everything, or the rest after a turn.
        again = replay_stream(client, s.id, {"branchId": branch})
        assert [e.data for e in again[1:-1]] == [e.data for e in turns] and again[-1].data == end.data
        rest = replay_stream(client, s.id, {"branchId": branch, "after": 1})
        assert [e.id for e in rest[1:-1]] == [2] and rest[0].data == head.data


def test_a_client_that_drops_comes_back_by_the_branch_and_stop_on_the_branch_stops_the_replay(server: Server):
    s = mw.Session.new(workspace=server.root)
    s.send("long: 2000")  # quick on offline/echo, about 100 s on offline/slow
    s.send("and then?")
    with server.client() as client:
        with client.stream("POST", f"/sessions/{s.id}/replay", json={"model": "offline/slow"}) as answer:
            head = next(events_of(answer.iter_lines()))  # the client drops the connection after the head
        branch = head.data["branchId"]

        def streams() -> bool:
            return any(c["kind"] == "model_reply" for c in client.get(f"/sessions/{branch}").json()["cards"])

        wait_for(streams)  # the replay is the server's: it went on without the client
        assert client.post(f"/sessions/{branch}/stop").json() == {"stopped": True}
        rest = replay_stream(client, s.id, {"branchId": branch})
        assert rest[0].data == head.data and rest[-1].event == "end"
        assert rest[-1].data["state"] == "stopped" and "stopped" in rest[-1].data["report"]
        assert client.post(f"/sessions/{branch}/stop").json() == {"stopped": False}


@pytest.mark.parametrize(
    ("body", "status", "sentence"),
    [
        ({"model": "offline/nothing"}, 400, "offline/nothing"),
        ({"agent": "nobody"}, 400, "nobody"),
        ({"upto": 0}, 400, "upto must be 1 or more messages (this session has 2), not 0."),
        ({"upto": "c_nope"}, 400, "upto names no card of this session: 'c_nope'."),
        ({"tools": "sometimes"}, 400, "The field `tools` is invalid"),
        (
            {"colour": "red"},
            400,
            "Unknown field `colour`; this route takes `model`, `agent`, `upto`, `tools`",
        ),
        ({"after": 1}, 400, "`after` reads the rest of a replay, with its `branchId`"),
        ({"branchId": "b", "model": "offline/echo"}, 400, "A replay's `branchId` reads one already started"),
        ({"branchId": "nope"}, 404, "No replay of session"),
    ],
)
def test_bad_bodies_get_one_sentence_and_make_nothing(server: Server, body, status, sentence):
    s = recording(server)
    with server.client() as client:
        count = len(client.get("/sessions").json()["sessions"])
        answer = client.post(f"/sessions/{s.id}/replay", json=body)
        assert answer.status_code == status, answer.text
        error = answer.json()["error"]
        assert sentence in error and "\n" not in error
        assert len(client.get("/sessions").json()["sessions"]) == count


def test_an_unknown_session_gets_404(server: Server):
    with server.client() as client:
        answer = client.post("/sessions/no-such-session/replay", json={})
    assert answer.status_code == 404 and "No session" in answer.json()["error"]
