"""The HTTP API against a real `jupyter server`: its authentication, each route and its errors, and
runs that belong to the server (R1–R5)."""

from __future__ import annotations

import subprocess
import sys

import httpx
import pytest

import mewrk_jupyter as mw
from tests.conftest import wait_for
from tests.server.conftest import REPO, Event, Server, events_of

R1 = "This session is running in another window — stop it to take over"


def new_session(client: httpx.Client, **body: str) -> dict:
    answer = client.post("/sessions", json=body)
    assert answer.status_code == 201, answer.text
    return answer.json()


def stream(client: httpx.Client, body: dict) -> list[Event]:
    """The whole event stream of `POST /run`."""
    with client.stream("POST", "/run", json=body) as answer:
        assert answer.status_code == 200, answer.read()
        assert answer.headers["content-type"].startswith("text/event-stream")
        return list(events_of(answer.iter_lines()))


def text_of(events: list[Event]) -> str:
    return "".join(e.data["text"] for e in events if e.event == "text")


def cards_of(client: httpx.Client, session_id: str) -> list[dict]:
    return client.get(f"/sessions/{session_id}").json()["cards"]


def test_a_request_without_the_token_is_refused_and_learns_nothing(server: Server):
    with server.client() as client:
        made = new_session(client, title="a private title", model="offline/echo")
    before = server.client().get("/sessions").json()["sessions"]
    for client in (server.client(token=False), server.client(token=False, params={"token": "wrong"})):
        with client:
            for method, path, body in [
                ("GET", "/sessions", None),
                ("POST", "/sessions", {"title": "intruder"}),
                ("GET", f"/sessions/{made['id']}", None),
                ("GET", "/sessions/no-such-session", None),
                ("GET", f"/sessions/{made['id']}/runs", None),
                ("POST", "/run", {"sessionId": made["id"], "question": "hello"}),
                ("POST", f"/sessions/{made['id']}/stop", {}),
            ]:
                answer = client.request(method, path, json=body)
                assert answer.status_code == 403, (method, path, answer.text)
                # The same answer for a session that exists and one that does not: nothing is learned.
                assert "private" not in answer.text and made["id"] not in answer.text
    with server.client(token=False, headers={"Authorization": "token wrong"}) as client:
        assert client.get("/sessions").status_code == 403
    assert server.client().get("/sessions").json()["sessions"] == before
    assert cards_of(server.client(), made["id"]) == []


def test_a_cookie_post_needs_the_xsrf_token(server: Server):
    with httpx.Client(base_url=server.url, timeout=60) as browser:
        # The token in the URL logs the browser in: the server sets its login cookie.
        assert browser.get("/lab", params={"token": server.token}).status_code == 200
        assert "_xsrf" in browser.cookies
        assert browser.get("/mewrk/v2/sessions").status_code == 200  # a GET with the cookie alone
        refused = browser.post("/mewrk/v2/sessions", json={"title": "forged"})
        assert refused.status_code == 403
        titles = [s["title"] for s in browser.get("/mewrk/v2/sessions").json()["sessions"]]
        assert "forged" not in titles
        made = browser.post(
            "/mewrk/v2/sessions",
            json={"title": "from the page", "model": "offline/echo"},
            headers={"X-XSRFToken": browser.cookies["_xsrf"]},
        )
        assert made.status_code == 201, made.text
        assert made.json()["title"] == "from the page"


def test_sessions_are_listed_created_and_read_with_their_cards(server: Server):
    with server.client() as client:
        made = new_session(client, title="routes", model="offline/echo")
        assert made == {
            "id": made["id"],
            "title": "routes",
            "state": "idle",
            "parent": None,
            "model": "offline/echo",
        }
        listed = {s["id"]: s for s in client.get("/sessions").json()["sessions"]}
        assert listed[made["id"]] == made
        events = stream(client, {"sessionId": made["id"], "question": "hello there"})
        assert events[-1].event == "end" and events[-1].data["state"] == "done"
        one = client.get(f"/sessions/{made['id']}").json()
        assert (
            one["id"] == made["id"] and one["state"] == "idle" and one["settings"]["model"] == "offline/echo"
        )
        assert [c["kind"] for c in one["cards"]] == ["user_input", "model_reply"]
        assert one["cards"][0]["text"] == "hello there"
        assert one["cards"][1]["text"] == text_of(events)
        default = new_session(client)  # no body: the workspace's default model and an untitled session
        assert default["title"] == "untitled" and default["model"]


DEEP = b"[" * 100_000 + b"]" * 100_000  # deeper than Python's stack allows json to read


@pytest.mark.parametrize(
    ("method", "path", "body", "status", "sentence"),
    [
        ("GET", "/sessions/no-such-session", None, 404, "No session `no-such-session`"),
        ("GET", "/sessions/no-such-session/runs", None, 404, "No session `no-such-session`"),
        ("POST", "/sessions/no-such-session/stop", {}, 404, "No session `no-such-session`"),
        ("POST", "/sessions", b"{not json", 400, "The body is not valid JSON"),
        ("POST", "/sessions", b"[1, 2]", 400, "The body must be a JSON object"),
        pytest.param(
            "POST", "/sessions", DEEP, 400, "The body nests values too deeply", id="POST-/sessions-100k-deep"
        ),
        ("POST", "/sessions", b'{"title": "\\ud800"}', 400, "The field `title` holds a lone surrogate"),
        ("POST", "/sessions", b'{"\\udc00": 1}', 400, "The body holds a lone surrogate"),
        ("POST", "/sessions", {"title": 5}, 400, "The field `title` is invalid"),
        (
            "POST",
            "/sessions",
            {"colour": "red"},
            400,
            "Unknown field `colour`; this route takes `model`, `title`.",
        ),
        ("POST", "/sessions", {"model": "nowhere/nothing"}, 400, "nowhere"),
        ("POST", "/run", {}, 400, "Send `sessionId` and `question` to start a turn"),
        ("POST", "/run", {"sessionId": "x"}, 400, "Send `sessionId` and `question`"),
        ("POST", "/run", {"runId": "run_x", "question": "hi"}, 400, "A question starts a new turn"),
        ("POST", "/run", {"runId": "run_nope"}, 404, "No run `run_nope`"),
        ("POST", "/run", {"runId": "run_nope", "after": -1}, 400, "The field `after` is invalid"),
        ("POST", "/run", {"sessionId": "no-such-session", "question": "hi"}, 404, "No session"),
        ("POST", "/sessions/no-such-session/approval", {"decision": "approve"}, 404, "No session"),
        ("POST", "/sessions/x/approval", {"decision": "maybe"}, 400, "The field `decision` is invalid"),
        ("POST", "/sessions/x/approval", {}, 400, "The field `decision` is missing."),
    ],
)
def test_bad_requests_get_one_sentence(server: Server, method, path, body, status, sentence):
    with server.client() as client:
        if isinstance(body, bytes):
            answer = client.request(method, path, content=body)
        else:
            answer = client.request(method, path, json=body)
    assert answer.status_code == status, answer.text
    error = answer.json()["error"]
    assert sentence in error and "\n" not in error


def test_a_question_holding_a_lone_surrogate_gets_400_with_a_sentence_and_nothing_is_stored(server: Server):
    with server.client() as client:
        sid = new_session(client, model="offline/echo")["id"]
        stream(client, {"sessionId": sid, "question": "hi"})
        before = cards_of(client, sid)
        body = b'{"sessionId": "%s", "question": "half a pair: \\ud800"}' % sid.encode()
        refused = client.post("/run", content=body)
        assert refused.status_code == 400, refused.text
        error = refused.json()["error"]
        assert error.startswith("The field `question` holds a lone surrogate") and "\n" not in error
        assert cards_of(client, sid) == before


def test_a_turn_streams_its_run_id_first_then_every_event_in_order(server: Server):
    with server.client() as client:
        sid = new_session(client, model="offline/echo")["id"]
        events = stream(client, {"sessionId": sid, "question": "long: 60"})
        first, *middle, last = events
        assert first.event == "run" and first.data["sessionId"] == sid
        run_id = first.data["runId"]
        assert [e.id for e in middle] == list(range(1, len(middle) + 1))
        assert last.event == "end" and last.data == {
            "runId": run_id,
            "state": "done",
            "error": None,
            "lastEvent": len(middle),
        }
        reply = cards_of(client, sid)[-1]
        assert reply["kind"] == "model_reply" and reply["text"] == text_of(events)
        runs = client.get(f"/sessions/{sid}/runs").json()["runs"]
        assert [(r["id"], r["state"], r["running"]) for r in runs] == [(run_id, "done", False)]
        assert runs[0]["startedAt"] <= runs[0]["endedAt"]
        # The same from Python, in another process than the server's.
        s = mw.Session.open(sid, workspace=server.root)
        assert [r.id for r in s.runs()] == [run_id]
        assert [(e.seq, e.kind, e.data) for e in s.run_events(run_id)] == [
            (e.id, e.event, e.data) for e in middle
        ]
        # A finished run read again by its id: everything, or the rest after an event.
        again = stream(client, {"runId": run_id})
        assert [(e.id, e.data) for e in again[1:-1]] == [(e.id, e.data) for e in middle]
        rest = stream(client, {"runId": run_id, "after": 2})
        assert [e.id for e in rest[1:-1]] == [e.id for e in middle[2:]]


def test_a_client_that_disconnects_mid_stream_reattaches_and_gets_every_event_once_in_order(server: Server):
    with server.client() as client:
        sid = new_session(client, model="offline/slow")["id"]
        seen: list[Event] = []
        with client.stream("POST", "/run", json={"sessionId": sid, "question": "long: 160"}) as answer:
            for event in events_of(answer.iter_lines()):
                seen.append(event)
                if sum(e.event == "text" for e in seen) == 3:
                    break  # the client drops the connection mid-turn
        run_id = seen[0].data["runId"]
        # The run is the server's: it goes on without the client.
        runs = client.get(f"/sessions/{sid}/runs").json()["runs"]
        assert runs[-1]["id"] == run_id and runs[-1]["running"] is True
        rest = stream(client, {"runId": run_id, "after": seen[-1].id})
        assert rest[0].event == "run" and rest[0].data["runId"] == run_id
        assert rest[-1].event == "end" and rest[-1].data["state"] == "done"
        received = [e for e in seen[1:] + rest[1:-1]]
        assert [e.id for e in received] == list(range(1, len(received) + 1))
        assert len(rest) > 3  # most of the turn came after the reattach
        reply = cards_of(client, sid)[-1]
        assert reply["text"] == text_of(received) and not reply["interrupted"]


def test_a_send_while_a_turn_runs_gets_409_and_nothing_is_stored(server: Server):
    with server.client() as client:
        sid = new_session(client, model="offline/slow")["id"]
        with client.stream("POST", "/run", json={"sessionId": sid, "question": "long: 1500"}) as answer:
            stream_of_run = events_of(answer.iter_lines())
            first = next(stream_of_run)
            # The running turn's reply card exists once its first text arrived: the cards read from then
            # on are those the turn has, and a second send must add none.
            reply_text = next(event for event in stream_of_run if event.event == "text")
        assert (
            client.get("/sessions").json()["sessions"]
            and client.get(f"/sessions/{sid}").json()["state"] == "running"
        )
        before = cards_of(client, sid)
        assert before[-1]["id"] == reply_text.data["card_id"]
        refused = client.post("/run", json={"sessionId": sid, "question": "a second window speaks"})
        assert refused.status_code == 409
        assert refused.json() == {"error": R1}
        assert R1 in refused.text  # as written, not escaped: what curl shows
        after = cards_of(client, sid)
        assert all(c.get("text") != "a second window speaks" for c in after)
        assert [c["id"] for c in after] == [c["id"] for c in before]
        # Stop is the takeover (R3); then the session takes a message again.
        assert client.post(f"/sessions/{sid}/stop", json={}).json() == {"stopped": True}
        ended = stream(client, {"runId": first.data["runId"]})[-1]
        assert ended.event == "end" and ended.data["state"] == "stopped"
        assert client.post(f"/sessions/{sid}/stop").json() == {"stopped": False}
        events = stream(client, {"sessionId": sid, "question": "now it is my turn"})
        assert events[-1].data["state"] == "done"
        assert cards_of(client, sid)[-2]["text"] == "now it is my turn"


KERNEL = """
import sys
import mewrk_jupyter as mw
s = mw.Session.open(sys.argv[1])
run = s.send("long: 2000", wait=False)
print(run.id, flush=True)
run.wait()
print(run.state, flush=True)
"""


def test_a_turn_started_in_a_kernel_is_visible_reattachable_and_stoppable_over_http(server: Server):
    with server.client() as client:
        sid = new_session(client, model="offline/slow")["id"]
        kernel = server.python(KERNEL.replace("sys.argv[1]", repr(sid)))
        try:
            run_id = kernel.stdout.readline().strip()
            assert run_id.startswith("run_"), kernel.stderr.read()
            runs = client.get(f"/sessions/{sid}/runs").json()["runs"]
            assert [(r["id"], r["running"]) for r in runs] == [(run_id, True)]
            assert client.get(f"/sessions/{sid}").json()["state"] == "running"
            seen: list[Event] = []
            with client.stream("POST", "/run", json={"runId": run_id}) as answer:
                for event in events_of(answer.iter_lines()):
                    seen.append(event)
                    if sum(e.event == "text" for e in seen) == 2:
                        break
            assert seen[0].data == {"runId": run_id, "sessionId": sid}
            assert client.post(f"/sessions/{sid}/stop", json={}).json() == {"stopped": True}
            assert kernel.stdout.readline().strip() == "stopped"  # the owning process saw it stop
            kernel.wait(timeout=30)
        finally:
            kernel.kill()
        rest = stream(client, {"runId": run_id, "after": seen[-1].id})
        assert rest[-1].data["state"] == "stopped"
        assert [e.id for e in seen[1:] + rest[1:-1]] == list(range(1, len(seen) + len(rest) - 2))
        reply = cards_of(client, sid)[-1]
        assert reply["interrupted"] and reply["text"] == text_of(seen + rest)


def test_an_approval_is_decided_over_http_and_the_turn_goes_on(server: Server):
    with server.client() as client:
        sid = new_session(client, model="offline/echo")["id"]
        nothing = client.post(f"/sessions/{sid}/approval", json={"decision": "approve"})
        assert nothing.status_code == 409 and nothing.json() == {
            "error": "No approval is waiting in this session."
        }
        paused = stream(client, {"sessionId": sid, "question": 'call: bash {"command": "echo hi"}'})
        assert paused[-1].data["state"] == "awaiting_approval"
        assert client.get(f"/sessions/{sid}").json()["state"] == "awaiting_approval"
        decided = client.post(f"/sessions/{sid}/approval", json={"decision": "reject", "reason": "not now"})
        assert decided.status_code == 200, decided.text
        events = stream(client, {"runId": decided.json()["runId"]})
        assert events[-1].data["state"] == "done"
        assert "not now" in text_of(events)
        call = next(c for c in cards_of(client, sid) if c["kind"] == "tool_call")
        assert call["status"] == "rejected"


def test_approve_always_by_command_over_http(server: Server):
    with server.client() as client:
        sid = new_session(client, model="offline/echo")["id"]
        stream(client, {"sessionId": sid, "question": 'call: bash {"command": "echo same && echo x"}'})
        approval = next(c for c in cards_of(client, sid) if c["kind"] == "approval")
        assert approval["rules_like"] == ["bash(echo *)"]
        wrong = client.post(
            f"/sessions/{sid}/approval", json={"decision": "reject", "always": "like", "reason": "no"}
        )
        assert wrong.status_code == 400 and "go with an approval" in wrong.json()["error"]
        foreign = client.post(f"/sessions/{sid}/approval", json={"decision": "approve", "always": "ls(*)"})
        assert foreign.status_code == 400 and "does not allow this call" in foreign.json()["error"]
        decided = client.post(f"/sessions/{sid}/approval", json={"decision": "approve", "always": "like"})
        assert decided.status_code == 200, decided.text
        stream(client, {"runId": decided.json()["runId"]})
        approval = next(c for c in cards_of(client, sid) if c["kind"] == "approval")
        assert (approval["granted"], approval["granted_in"]) == (["bash(echo *)"], "session")
        again = stream(client, {"sessionId": sid, "question": 'call: bash {"command": "echo other"}'})
        assert again[-1].data["state"] == "done"  # ran without asking


def test_compact_refuses_with_the_notebooks_sentence_then_compacts(server: Server):
    with server.client() as client:
        sid = new_session(client, model="offline/echo")["id"]
        refused = client.post(f"/sessions/{sid}/compact", json={})
        assert refused.status_code == 409
        assert refused.json()["error"].startswith("Nothing worth compacting")
        assert cards_of(client, sid) == []  # nothing was added, nothing was sent
        for _ in range(3):  # enough to compact: 6 messages, several thousand tokens
            events = stream(client, {"sessionId": sid, "question": "long: 1500"})
            assert events[-1].event == "end" and events[-1].data["state"] == "done"
        done = client.post(f"/sessions/{sid}/compact", json={"instructions": "keep the numbers"})
        assert done.status_code == 200, done.text
        assert done.json()["result"].startswith("Compacted: 6 earlier messages · compacted into a summary")
        assert done.json()["result"].endswith("· with instructions.")
        divider = cards_of(client, sid)[-1]
        assert divider["kind"] == "summary_divider" and divider["instructions"] == "keep the numbers"


def test_a_workflow_starts_over_http_and_its_card_follows_its_steps(server: Server):
    folder = server.root / ".mewrk" / "workflows"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "twice.yaml").write_text("steps:\n  - prompt: First {input}.\n  - prompt: Then {previous}\n")
    with server.client() as client:
        sid = new_session(client, model="offline/echo")["id"]
        refused = client.post(f"/sessions/{sid}/workflows", json={"name": "nope"})
        assert refused.status_code == 409
        assert refused.json()["error"].startswith("No workflow was started: There is no workflow `nope`")
        assert client.post(f"/sessions/{sid}/workflows", json={"input": "x"}).status_code == 400
        assert cards_of(client, sid) == []
        started = client.post(f"/sessions/{sid}/workflows", json={"name": "twice", "input": "the parser"})
        assert started.status_code == 202, started.text
        card = started.json()["card"]
        assert started.json()["taskId"] == card["task_id"] and card["kind"] == "workflow"
        assert [step["name"] for step in card["steps"]] == ["step1", "step2"]

        def ended() -> dict | None:
            found = next(c for c in cards_of(client, sid) if c["kind"] == "workflow")
            return found if found["state"] == "completed" else None

        done = wait_for(ended)
        assert [step["state"] for step in done["steps"]] == ["completed", "completed"]
        assert "First the parser." in done["result"]  # the second step read the first one's result
        first = client.get(f"/sessions/{done['steps'][0]['session_id']}").json()
        assert [c["kind"] for c in first["cards"]] == ["user_input", "model_reply"]


def readme_script() -> str:
    """The README's httpx script (the Python block after the sentence introducing it)."""
    text = (REPO / "README.md").read_text()
    after = text.split("A script that streams a turn, drops the connection and reattaches", 1)[1]
    return after.split("```python\n", 1)[1].split("```", 1)[0]


def test_the_readme_script_streams_a_turn_and_reattaches(server: Server):
    env = dict(server.env, JUPYTER_URL=server.url, JUPYTER_TOKEN=server.token)
    done = subprocess.run(
        [sys.executable, "-c", readme_script()],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    before, _, after = done.stdout.partition("\n-- reattaching --\n")
    streamed, _, ending = after.rpartition("\n-- the run ended: ")
    assert ending.strip() == "done"
    with server.client() as client:
        sid = next(s["id"] for s in client.get("/sessions").json()["sessions"] if s["title"] == "over http")
        assert before + streamed == cards_of(client, sid)[-1]["text"]
