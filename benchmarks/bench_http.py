"""Load and fault figures of the HTTP API, against a real `jupyter server` started here on localhost.

Run: python benchmarks/bench_http.py
1. 20 clients at once, each creating its own session and streaming a turn on it: all must complete.
2. 10 clients sending on one session at the same instant: exactly one runs, nine get the 409.
3. The server killed with SIGKILL mid-turn, then started again on the same workspace: the session is
   usable, nothing committed is lost (the question and the streamed part of the reply), the run reads ended.
The turns use `offline/slow` (a token every 50 ms), so the clients really overlap.
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # the server fixture lives with the tests


from tests.server.conftest import Server, events_of, start_server, stop_server  # noqa: E402

R1 = "This session is running in another window — stop it to take over"


def stream_turn(server: Server, session_id: str, question: str) -> tuple[str, float, int]:
    """Stream one turn; returns how it ended, its seconds and its count of text events."""
    t0 = time.perf_counter()
    with (
        server.client() as client,
        client.stream("POST", "/run", json={"sessionId": session_id, "question": question}) as answer,
    ):
        if answer.status_code != 200:
            return f"HTTP {answer.status_code}", time.perf_counter() - t0, 0
        events = list(events_of(answer.iter_lines()))
    state = events[-1].data["state"] if events and events[-1].event == "end" else "no end"
    return state, time.perf_counter() - t0, sum(e.event == "text" for e in events)


def concurrent_sessions(server: Server, clients: int = 20) -> None:
    """Each client its own session, all at once."""
    results: list[tuple[str, float, int]] = []
    errors: list[str] = []
    barrier = threading.Barrier(clients)

    def one(n: int) -> None:
        try:
            with server.client() as client:
                sid = client.post("/sessions", json={"model": "offline/slow", "title": f"load {n}"}).json()[
                    "id"
                ]
            barrier.wait()
            results.append(stream_turn(server, sid, "long: 60"))
        except Exception as exc:  # a failure is a figure here, not a crash of the benchmark
            errors.append(f"{type(exc).__name__}: {exc}")

    t0 = time.perf_counter()
    threads = [threading.Thread(target=one, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    wall = time.perf_counter() - t0
    done = sum(state == "done" for state, _, _ in results)
    seconds = [s for _, s, _ in results]
    print(f"1. {clients} concurrent clients, one session each, a 60-token turn at 50 ms a token:")
    print(f"   completed {done}/{clients}, errors {len(errors) + len(results) - done}, wall {wall:.1f} s,")
    if seconds:
        print(
            f"   per turn median {statistics.median(seconds):.2f} s, max {max(seconds):.2f} s (alone: ~3 s)"
        )
    for error in errors[:3]:
        print(f"   error: {error}")


def one_session_many_senders(server: Server, clients: int = 10) -> None:
    """Every client sends on the same session at the same instant."""
    with server.client() as client:
        sid = client.post("/sessions", json={"model": "offline/slow", "title": "contended"}).json()["id"]
    barrier = threading.Barrier(clients)
    answers: list[tuple[int, str]] = []

    def one(n: int) -> None:
        with server.client() as client:
            barrier.wait()
            with client.stream(
                "POST", "/run", json={"sessionId": sid, "question": f"long: 80 (client {n})"}
            ) as a:
                body = a.read().decode()
                answers.append((a.status_code, body))

    threads = [threading.Thread(target=one, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    ran = [body for status, body in answers if status == 200]
    refused = [body for status, body in answers if status == 409]
    exact = sum(json.loads(body) == {"error": R1} for body in refused)
    with server.client() as client:
        stored = [c for c in client.get(f"/sessions/{sid}").json()["cards"] if c["kind"] == "user_input"]
    print(f"2. {clients} clients send on one session at once:")
    print(
        f"   ran {len(ran)}, refused with 409 {len(refused)} ({exact} with the exact sentence), other {clients - len(ran) - len(refused)};"
    )
    print(f"   questions stored: {len(stored)} (only the one that ran)")


def killed_mid_turn(base: Path) -> None:
    """SIGKILL the server while it streams a turn, start it again, and look at what is left."""
    server = start_server(base)
    try:
        with server.client() as client:
            sid = client.post("/sessions", json={"model": "offline/slow", "title": "killed"}).json()["id"]
            seen = []
            with client.stream("POST", "/run", json={"sessionId": sid, "question": "long: 400"}) as answer:
                for event in events_of(answer.iter_lines()):
                    seen.append(event)
                    if sum(e.event == "text" for e in seen) == 5:
                        break
        run_id = seen[0].data["runId"]
        received = "".join(e.data["text"] for e in seen if e.event == "text")
    finally:
        os.kill(server.proc.pid, signal.SIGKILL)
        server.proc.wait()
    t0 = time.perf_counter()
    server = start_server(base)
    restart = time.perf_counter() - t0
    try:
        with server.client() as client:
            session = client.get(f"/sessions/{sid}").json()
            runs = client.get(f"/sessions/{sid}/runs").json()["runs"]
            question, reply = session["cards"][0], session["cards"][-1]
            kept = question["text"] == "long: 400" and reply["text"].startswith(received)
            after = stream_turn(server, sid, "still there?")[0]
        print("3. the server killed with SIGKILL mid-turn, then started again:")
        print(
            f"   restart {restart:.1f} s; session state {session['state']!r}; the run reads {runs[-1]['state']!r}, running {runs[-1]['running']}"
        )
        print(
            f"   question and the {len(received.split())} streamed words kept: {kept} (reply marked interrupted: {reply.get('interrupted')});"
        )
        print(f"   a new turn afterwards: {after}; run id {run_id}")
    finally:
        stop_server(server)


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        server = start_server(Path(tmp) / "load")
        try:
            concurrent_sessions(server)
            one_session_many_senders(server)
        finally:
            stop_server(server)
        killed_mid_turn(Path(tmp) / "fault")


if __name__ == "__main__":
    main()
