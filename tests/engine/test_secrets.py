"""Secrets never reach a subprocess or the model: the environment policy and the redaction of known values."""

from __future__ import annotations

import base64
import json
import sqlite3
from pathlib import Path

import pytest

import mewrk_jupyter as mw
import mewrk_jupyter.tools.kernel as kernel_tools
from tests.conftest import run_python
from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.wire import WireServer, anthropic_error, anthropic_reply, anthropic_tool_use

ANTHROPIC_KEY = "sk-ant-test-0123456789abcdef"
VENDOR_KEY = "vendor-key-7a8b9c0d1e2f"
# A name no default pattern matches: only the configuration's `${VENDOR_CRED}` reference makes it secret.
VENDOR_CRED = "cred-5566778899aabbcc"
SECRETS = (ANTHROPIC_KEY, VENDOR_KEY, VENDOR_CRED)


@pytest.fixture
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    """The kernel's environment holds three secrets, as a person's shell would."""
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    monkeypatch.setenv("MY_VENDOR_KEY", VENDOR_KEY)
    monkeypatch.setenv("VENDOR_CRED", VENDOR_CRED)


def vendor(workspace: Path, server: WireServer, extra: str = "") -> None:
    """A vendor whose key is `${VENDOR_CRED}`, and a second file that references `${MY_VENDOR_KEY}`."""
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True, exist_ok=True)
    (llm / "a.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {server.url}\napi_key: ${{VENDOR_CRED}}\n{extra}"
        "models:\n  m: {context_window: 100000}\n"
    )
    (llm / "other.yaml").write_text(
        "protocol: openai-chat\napi_key: ${MY_VENDOR_KEY}\nmodels:\n  gpt: {context_window: 1000}\n"
    )
    mw.trust(workspace)  # the person wrote these files: the folder may use them


def unconfined(workspace: Path) -> None:
    """The person turns the commands' sandbox off, which hides a secret file from them: the redactor is
    then the line that holds, as these tests show."""
    policies = workspace / ".mewrk" / "policy"
    policies.mkdir(parents=True, exist_ok=True)
    (policies / "default.yaml").write_text(
        "safety_level: default\nallow: [ls, read, grep, find]\nask: [bash]\nsandbox: off\n"
    )


def store_bytes(workspace: Path) -> bytes:
    """Every byte of the store on disk: the database and its write-ahead log."""
    return b"".join(p.read_bytes() for p in (workspace / ".mewrk").glob("mewrk.db*"))


def leaks(text: str | bytes) -> list[str]:
    """The secrets found in `text`."""
    data = text.encode() if isinstance(text, str) else text
    return [s for s in SECRETS if s.encode() in data]


def history_text(s: mw.Session) -> str:
    return json.dumps([h.model_dump() for h in s.history])


def test_an_approved_echo_of_the_keys_reaches_no_card_history_request_or_store(
    workspace,
    keys,
    wire_server,  # noqa: F811
):
    vendor(workspace, wire_server)
    command = "echo A=$ANTHROPIC_API_KEY B=$MY_VENDOR_KEY C=$VENDOR_CRED; env"
    wire_server.enqueue(anthropic_reply(anthropic_tool_use("bash", {"command": command})))
    wire_server.enqueue(anthropic_reply("Done."))
    s = mw.Session.new(model="a/m")
    s.send("show me the keys")
    assert s.state == "awaiting_approval"
    run = s.approve()
    assert run.state == "done", run.error
    call = [c for c in s.cards if c.kind == "tool_call"][0]
    assert call.status == "done" and "A= B= C=" in call.result
    assert leaks(call.result) == []
    assert leaks(history_text(s)) == []
    assert leaks(wire_server.requests[-1].raw_body) == []
    mw.Session.open(s.id)  # the store is written and read back
    assert leaks(store_bytes(workspace)) == []


def test_a_known_secret_that_still_shows_up_in_a_tool_result_is_redacted(
    workspace,
    keys,
    wire_server,  # noqa: F811
    tmp_path,
):
    # A key read from a file outside the workspace (an `@file:` header), and an environment key that a
    # file in the workspace happens to hold: both values are known, so neither goes out.
    key_file = tmp_path / "token.txt"
    key_file.write_text("file-secret-0f1e2d3c4b5a\n")
    unconfined(workspace)
    vendor(workspace, wire_server, extra=f"headers:\n  X-Token: '@file:{key_file}'\n")
    (workspace / "notes.txt").write_text(f"the key is {ANTHROPIC_KEY}\n")
    wire_server.enqueue(anthropic_reply(anthropic_tool_use("read", {"path": "notes.txt"})))
    wire_server.enqueue(anthropic_reply(anthropic_tool_use("bash", {"command": f"cat {key_file}"})))
    wire_server.enqueue(anthropic_reply("Done."))
    s = mw.Session.new(model="a/m")
    s.send("look")
    s.approve()
    calls = [c for c in s.cards if c.kind == "tool_call"]
    assert "the key is [redacted]" in calls[0].result and leaks(calls[0].result) == []
    assert calls[1].result.strip() == "[redacted]"
    sent = wire_server.requests[-1].raw_body
    assert b"file-secret-0f1e2d3c4b5a" not in sent and leaks(sent) == []
    assert b"[redacted]" in sent
    assert "file-secret-0f1e2d3c4b5a" not in history_text(s)
    assert b"file-secret-0f1e2d3c4b5a" not in store_bytes(workspace)


def test_a_provider_error_that_echoes_the_key_is_redacted(workspace, keys, wire_server):  # noqa: F811
    vendor(workspace, wire_server)
    wire_server.enqueue(anthropic_error(400, f"invalid x-api-key: {VENDOR_CRED} (and {ANTHROPIC_KEY})"))
    s = mw.Session.new(model="a/m")
    with pytest.raises(mw.ProviderError) as caught:
        s.send("hello")
    assert "invalid x-api-key: [redacted]" in str(caught.value)
    # Nothing chained to the error quotes the server's body either (a traceback would print it).
    assert leaks(str(caught.value)) == [] and caught.value.__cause__ is None
    assert s.last_run.state == "error" and leaks(str(s.last_run.error)) == []
    assert leaks(history_text(s)) == [] and "[redacted]" in (s.history[-1].error or "")
    with sqlite3.connect(workspace / ".mewrk" / "mewrk.db") as conn:
        (ended,) = conn.execute("SELECT error FROM runs WHERE id = ?", (s.last_run.id,)).fetchone()
    assert "[redacted]" in ended and leaks(ended) == []
    assert leaks(store_bytes(workspace)) == []


def test_the_safety_level_s_environment_policy_acts_on_the_session_s_commands(workspace, keys, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_abcdefghijkl")
    monkeypatch.setenv("AWS_REGION", "eu-west-1x")
    policies = workspace / ".mewrk" / "policy"
    policies.mkdir(parents=True)
    (policies / "default.yaml").write_text(
        "safety_level: default\nallow: [bash]\nenvironment:\n  drop: [AWS_*]\n  keep: [GITHUB_TOKEN]\n"
    )
    (policies / "strict.yaml").write_text("safety_level: strict\nallow: [bash]\n")
    # Until the folder is trusted its `keep` passes nothing on (the notice says what it would); its
    # `drop` acts at once.
    with pytest.warns(mw.ConfigNotice, match="pass the environment variables GITHUB_TOKEN"):
        s = mw.Session.new()
    s.send('call: bash {"command": "env"}')
    result = [c for c in s.cards if c.kind == "tool_call"][-1].result
    seen = {line.split("=", 1)[0] for line in result.splitlines()}
    assert "GITHUB_TOKEN" not in seen and "AWS_REGION" not in seen and "ghp_abcdefghijkl" not in result
    mw.trust()
    s = mw.Session.new()
    s.send('call: bash {"command": "env"}')
    result = [c for c in s.cards if c.kind == "tool_call"][-1].result
    seen = {line.split("=", 1)[0] for line in result.splitlines()}
    assert "GITHUB_TOKEN" in seen and "AWS_REGION" not in seen and "ANTHROPIC_API_KEY" not in seen
    # The token was kept on purpose: it is no secret to hide in this level's output.
    assert "ghp_abcdefghijkl" in result
    s = mw.Session.new(safety_level="strict")
    s.send('call: bash {"command": "env; echo $GITHUB_TOKEN"}')
    result = [c for c in s.cards if c.kind == "tool_call"][-1].result
    seen = {line.split("=", 1)[0] for line in result.splitlines()}
    assert "AWS_REGION" in seen and "GITHUB_TOKEN" not in seen and "ghp_abcdefghijkl" not in result


def test_a_bad_environment_policy_is_left_out_with_a_sentence_naming_file_and_field(workspace, monkeypatch):
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_abcdefghijkl")
    policies = workspace / ".mewrk" / "policy"
    policies.mkdir(parents=True)
    (policies / "default.yaml").write_text("safety_level: default\nenvironment:\n  keep: GITHUB_TOKEN\n")
    # The file is left out with a notice that names it; the built-in default level, which hides the
    # credentials, acts instead.
    with pytest.warns(mw.ConfigNotice, match=r"^policy/default.yaml: environment.keep must be a list"):
        s = mw.Session.new()
    s.send('call: bash {"command": "env"}')
    s.approve()  # the built-in level asks before bash runs
    result = [c for c in s.cards if c.kind == "tool_call"][-1].result
    assert "GITHUB_TOKEN" not in {line.split("=", 1)[0] for line in result.splitlines()}


def test_a_reply_that_quotes_a_key_is_redacted_in_the_run_log_and_the_history(
    workspace,
    keys,
    wire_server,  # noqa: F811
):
    vendor(workspace, wire_server)
    wire_server.enqueue(anthropic_reply(f"Your key is {VENDOR_CRED}, keep it safe."))
    s = mw.Session.new(model="a/m")
    s.send("what is my key?")
    with sqlite3.connect(workspace / ".mewrk" / "mewrk.db") as conn:
        logged = [row[0] for row in conn.execute("SELECT data FROM run_events")]
    assert any("[redacted]" in data for data in logged) and leaks("".join(logged)) == []
    assert leaks(json.dumps(s.history[-1].response)) == []
    # The next request does not send it back either, though the reply card quotes it.
    wire_server.enqueue(anthropic_reply("ok"))
    s.send("thanks")
    assert leaks(wire_server.requests[-1].raw_body) == []


def test_the_kernel_s_own_environment_is_out_of_reach_of_a_command_in_its_sandbox(workspace, monkeypatch):
    # The filter cannot keep an unconfined command from reading its parent's environment as the kernel
    # started; in its sandbox's PID namespace the parent is the sandbox's own first process.
    monkeypatch.setenv("ANTHROPIC_API_KEY", ANTHROPIC_KEY)
    policies = workspace / ".mewrk" / "policy"
    policies.mkdir(parents=True)
    (policies / "default.yaml").write_text("safety_level: default\nallow: [bash]\n")
    kernel = run_python(
        """
        import mewrk_jupyter as mw
        s = mw.Session.new()
        s.send('call: bash {"command": "cat /proc/$PPID/environ"}')
        s.send("and again")
        """,
        workspace,
    )
    assert kernel.returncode == 0, kernel.stderr
    stored = store_bytes(workspace)
    assert b"ANTHROPIC_API_KEY" not in stored and b"[redacted]" not in stored
    assert leaks(stored) == []


def test_a_secret_on_a_line_longer_than_the_output_limit_shows_none_of_itself_where_bash_cuts_it(
    workspace,
    keys,
    wire_server,  # noqa: F811
    tmp_path,
):
    key_file = tmp_path / "token.txt"
    key_file.write_text("file-secret-0f1e2d3c4b5a\n")
    unconfined(workspace)
    vendor(workspace, wire_server, extra=f"headers:\n  X-Token: '@file:{key_file}'\n")
    # One line of 29,990 characters and the key: the output limit (30,000) falls inside the key.
    command = f"printf '%029990d' 0; cat {key_file}"
    wire_server.enqueue(anthropic_reply(anthropic_tool_use("bash", {"command": command})))
    wire_server.enqueue(anthropic_reply("Done."))
    s = mw.Session.new(model="a/m")
    s.send("look")
    s.approve()
    [call] = [c for c in s.cards if c.kind == "tool_call"]
    assert call.result.startswith("0000") and "[output truncated" in call.result
    assert "file-secr" not in call.result and "[redac" in call.result
    assert b"file-secr" not in wire_server.requests[-1].raw_body


def forms_of(key: str) -> list[bytes]:
    """The forms the model's code printed a key in, and the halves of one of 24 characters or more (a
    shorter one's half is too short to be told from chance)."""
    half = len(key) // 2
    halves = (key[:half], key[half:]) if len(key) >= 24 else ()
    return [f.encode() for f in (key, key[::-1], base64.b64encode(key.encode()).decode(), *halves)]


def test_the_python_tool_s_base64_and_reversed_keys_from_the_kernel_s_environment_reach_neither_server_nor_store(
    workspace,
    keys,
    wire_server,  # noqa: F811
    monkeypatch,
):
    # The `python` tool runs in the kernel, where os.environ holds every key: only redaction can hide them.
    monkeypatch.setattr(kernel_tools, "kernel_namespace", lambda: {})
    vendor(workspace, wire_server)
    code = (
        "import os, base64\n"
        "for name in ['ANTHROPIC_API_KEY', 'MY_VENDOR_KEY', 'VENDOR_CRED']:\n"
        "    key = os.environ[name]\n"
        "    print(base64.b64encode(key.encode()).decode(), key[::-1], base64.b64encode(b'x' + key.encode()))\n"
    )
    wire_server.enqueue(anthropic_reply(anthropic_tool_use("python", {"code": code})))
    for half in ("[:14]", "[14:]"):  # one half a call
        halves = {"code": f"import os; print(os.environ['ANTHROPIC_API_KEY']{half})"}
        wire_server.enqueue(anthropic_reply(anthropic_tool_use("python", halves)))
    wire_server.enqueue(anthropic_reply("Done."))
    s = mw.Session.new(model="a/m")
    s.send("encode the keys")
    while s.state == "awaiting_approval":
        s.approve()
    calls = [c for c in s.cards if c.kind == "tool_call"]
    assert [c.name for c in calls] == ["python"] * 3 and calls[0].result.count("[redacted]") == 9
    assert [c.result for c in calls[1:]] == ["[stdout]\n[redacted]"] * 2
    mw.Session.open(s.id)  # the store is written and read back
    exposed = b"".join(r.raw_body for r in wire_server.requests) + store_bytes(workspace)
    assert [f for key in SECRETS for f in forms_of(key) if f in exposed] == []
