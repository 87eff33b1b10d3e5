"""Two real `jupyter server`s, in two folders of the same name on one PostgreSQL database (#37): both see
and continue the same sessions, one turn runs per session whichever server is asked, a run started on one
is followed from the other, and when the server that runs a turn is SIGKILLed the other takes over."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator

import httpx
import pytest

from tests.conftest import wait_for
from tests.server.conftest import Server, events_of, start_server, stop_server
from tests.server.test_api import R1, cards_of, new_session, stream, text_of


@pytest.fixture(scope="module")
def servers(tmp_path_factory: pytest.TempPathFactory, postgres) -> Iterator[list[Server]]:
    """Two servers, each rooted in a folder called `root` of its own, on one fresh database."""
    url = postgres.new_database()
    started: list[Server] = []
    try:
        for name in ("machine-a", "machine-b"):
            started.append(start_server(tmp_path_factory.mktemp(name), MEWRK_STORE_URL=url))
        assert started[0].root.name == started[1].root.name and started[0].root != started[1].root
        yield started
    finally:
        for server in started:
            if server.proc.poll() is None:
                stop_server(server)


def restart(servers: list[Server], index: int) -> Server:
    """The server `index` started again on its folder (after it was killed)."""
    old = servers[index]
    base = old.root.parent
    servers[index] = start_server(base, MEWRK_STORE_URL=old.env["MEWRK_STORE_URL"], token=old.token)
    return servers[index]


def test_a_session_made_on_one_server_is_listed_read_and_continued_on_the_other(servers):
    a, b = servers
    with a.client() as on_a, b.client() as on_b:
        sid = new_session(on_a, model="offline/echo", title="made on a")["id"]
        stream(on_a, {"sessionId": sid, "question": "from a"})
        listed = {s["id"]: s["title"] for s in on_b.get("/sessions").json()["sessions"]}
        assert listed[sid] == "made on a"
        events = stream(on_b, {"sessionId": sid, "question": "and from b"})
        assert events[-1].data["state"] == "done"
        texts = [c.get("text") for c in cards_of(on_a, sid) if c["kind"] == "user_input"]
        assert texts == ["from a", "and from b"]
    assert not (a.root / ".mewrk" / "mewrk.db").exists() and not (b.root / ".mewrk" / "mewrk.db").exists()


def test_racing_sends_through_both_servers_run_one_turn_and_the_rest_get_409(servers):
    a, b = servers
    with a.client() as on_a:
        sid = new_session(on_a, model="offline/slow")["id"]
    statuses: list[int] = []
    barrier = threading.Barrier(6)

    def send(server: Server, n: int) -> None:
        with server.client() as client:
            barrier.wait()
            with client.stream(
                "POST", "/run", json={"sessionId": sid, "question": f"long: 30 ({n})"}
            ) as answer:
                statuses.append(answer.status_code)
                answer.read()

    threads = [threading.Thread(target=send, args=(servers[i % 2], i)) for i in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert sorted(statuses) == [200, 409, 409, 409, 409, 409]
    with b.client() as on_b:
        asked = [c["text"] for c in cards_of(on_b, sid) if c["kind"] == "user_input"]
        assert len(asked) == 1 and len(on_b.get(f"/sessions/{sid}/runs").json()["runs"]) == 1


def test_a_turn_running_on_one_server_is_refused_followed_and_stopped_on_the_other(servers):
    a, b = servers
    with a.client() as on_a, b.client() as on_b:
        sid = new_session(on_a, model="offline/slow")["id"]
        with on_a.stream("POST", "/run", json={"sessionId": sid, "question": "long: 1500"}) as answer:
            run_id = next(events_of(answer.iter_lines())).data["runId"]
        refused = on_b.post("/run", json={"sessionId": sid, "question": "a second machine speaks"})
        assert refused.status_code == 409 and refused.json() == {"error": R1}
        seen = []
        with on_b.stream("POST", "/run", json={"runId": run_id}) as answer:  # reattach on the other server
            for event in events_of(answer.iter_lines()):
                seen.append(event)
                if sum(e.event == "text" for e in seen) == 3:
                    break
        assert seen[0].data == {"runId": run_id, "sessionId": sid}
        assert on_b.post(f"/sessions/{sid}/stop", json={}).json() == {"stopped": True}
        rest = stream(on_b, {"runId": run_id, "after": seen[-1].id})
        assert rest[-1].data["state"] == "stopped"
        received = seen[1:] + rest[1:-1]
        assert [e.id for e in received] == list(range(1, len(received) + 1))
        reply = cards_of(on_a, sid)[-1]
        assert reply["interrupted"] and reply["text"] == text_of(received)


def test_the_other_server_takes_over_a_turn_whose_server_was_killed(servers):
    a, b = servers
    with a.client() as on_a:
        sid = new_session(on_a, model="offline/slow")["id"]
        stream(on_a, {"sessionId": sid, "question": "before"})
        with on_a.stream("POST", "/run", json={"sessionId": sid, "question": "long: 3000"}) as answer:
            events = events_of(answer.iter_lines())
            next(events)
            next(event for event in events if event.event == "text")
            os.kill(a.proc.pid, signal.SIGKILL)
            a.proc.wait(timeout=30)
            with pytest.raises(httpx.HTTPError):
                for _ in events:
                    pass
    try:
        with b.client() as on_b:
            ended = stream(on_b, {"sessionId": sid, "question": "after the crash"})
            assert ended[-1].data["state"] == "done"
            cards = cards_of(on_b, sid)
            crashed = next(c for c in cards if c["kind"] == "model_reply" and c.get("interrupted"))
            assert crashed["text"]  # what streamed before the kill is kept
            assert [c["text"] for c in cards if c["kind"] == "user_input"] == [
                "before",
                "long: 3000",
                "after the crash",
            ]
            states = [r["state"] for r in on_b.get(f"/sessions/{sid}/runs").json()["runs"]]
            assert states == ["done", "interrupted", "done"]
    finally:
        restart(servers, 0)


def test_an_approval_waiting_when_its_server_died_is_answered_from_the_other(servers):
    a, b = servers
    with a.client() as on_a:
        sid = new_session(on_a, model="offline/echo")["id"]
        paused = stream(on_a, {"sessionId": sid, "question": 'call: bash {"command": "echo from-b"}'})
        assert paused[-1].data["state"] == "awaiting_approval"
    os.kill(a.proc.pid, signal.SIGKILL)
    a.proc.wait(timeout=30)
    try:
        with b.client() as on_b:
            assert on_b.get(f"/sessions/{sid}").json()["state"] == "awaiting_approval"
            decided = on_b.post(f"/sessions/{sid}/approval", json={"decision": "approve"})
            assert decided.status_code == 200, decided.text
            events = stream(on_b, {"runId": decided.json()["runId"]})
            assert events[-1].data["state"] == "done"
            call = wait_for(lambda: next(c for c in cards_of(on_b, sid) if c["kind"] == "tool_call"))
            assert "from-b" in (call["result"] or "")
    finally:
        restart(servers, 0)
