"""The HTTP API with a vendor's files in the server's workspace: the real Anthropic SDK in the server
process talks to the local wire server, and the folder's trust is the server's user's (S-rules hold)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

import mewrk_jupyter as mw
from tests.providers.vendors import claude_code_vendor
from tests.providers.wire import WireServer, anthropic_reply, anthropic_text
from tests.server.conftest import Server, events_of, start_server, stop_server

SECRET = "sk-ant-test-SECRET-over-http-42"


@pytest.fixture(scope="module")
def wire() -> Iterator[WireServer]:
    server = WireServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory, wire: WireServer) -> Iterator[Server]:
    """A jupyter server whose workspace has llm/anthropic.yaml pointing at the wire server (not yet trusted)."""
    running = start_server(tmp_path_factory.mktemp("jupyter-vendor"), TEST_ANTHROPIC_KEY=SECRET)
    llm = running.root / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "anthropic.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {wire.url}\napi_key: ${{TEST_ANTHROPIC_KEY}}\n"
        "models:\n  claude-test: {context_window: 200000}\n"
    )
    # Claude Code (protocol claude-agent) as npm installs it, pointed at the same wire server.
    claude_code_vendor(llm, wire.url, "TEST_ANTHROPIC_KEY", name="claude-code")
    try:
        yield running
    finally:
        stop_server(running)


def test_an_untrusted_folder_sends_nothing_then_a_trusted_one_streams_through_the_sdk(
    server: Server, wire: WireServer, monkeypatch: pytest.MonkeyPatch
):
    with server.client() as client:
        before = client.get("/sessions").json()["sessions"]
        refused = client.post("/sessions", json={"model": "anthropic/claude-test", "title": "vendor"})
        assert refused.status_code == 409
        assert "is not trusted yet" in refused.json()["error"]
        assert client.get("/sessions").json()["sessions"] == before
        assert wire.requests == []
        # The person trusts the folder, as the server's user: the server reads the same trust file.
        monkeypatch.setenv("MEWRK_USER_CONFIG", server.env["MEWRK_USER_CONFIG"])
        mw.trust(server.root)
        made = client.post("/sessions", json={"model": "anthropic/claude-test", "title": "vendor"})
        assert made.status_code == 201, made.text
        sid = made.json()["id"]
        wire.enqueue(anthropic_reply(anthropic_text("Hello from the wire", chunks=4), model="claude-test"))
        with client.stream("POST", "/run", json={"sessionId": sid, "question": "hello"}) as answer:
            assert answer.status_code == 200
            events = list(events_of(answer.iter_lines()))
        assert events[-1].data["state"] == "done"
        assert "".join(e.data["text"] for e in events if e.event == "text") == "Hello from the wire"
        sent = wire.last_request()
        assert SECRET in (sent.header("x-api-key") or sent.header("authorization") or "")
        [message] = wire.last_json()["messages"]
        assert message["role"] == "user" and message["content"][0]["text"] == "hello"
        session = client.get(f"/sessions/{sid}").text
        assert SECRET not in session and "Hello from the wire" in session


def test_a_claude_agent_vendor_answers_over_http_through_the_cli(
    server: Server, wire: WireServer, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("MEWRK_USER_CONFIG", server.env["MEWRK_USER_CONFIG"])
    mw.trust(server.root)
    with server.client() as client:
        made = client.post("/sessions", json={"model": "claude-code/claude-test", "title": "claude code"})
        assert made.status_code == 201, made.text
        sid = made.json()["id"]
        wire.enqueue(anthropic_reply(anthropic_text("Hello from Claude Code", chunks=3), model="claude-test"))
        with client.stream("POST", "/run", json={"sessionId": sid, "question": "hello"}) as answer:
            assert answer.status_code == 200
            events = list(events_of(answer.iter_lines()))
        assert events[-1].data["state"] == "done"
        assert "".join(e.data["text"] for e in events if e.event == "text") == "Hello from Claude Code"
        sent = wire.last_request()
        assert sent.header("x-api-key") == SECRET  # the CLI's own request, with the vendor's key
        assert "cc_entrypoint=" in json.dumps(wire.last_json()["system"])  # Claude Code's request
        session = client.get(f"/sessions/{sid}").text
        assert SECRET not in session and "Hello from Claude Code" in session
