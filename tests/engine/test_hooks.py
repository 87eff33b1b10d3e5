"""Hooks (`hooks/<name>.yaml`): commands run when a conversation starts, before each request and after a
tool call; what they print reaches the model as a host message, and a hook that fails, overruns or
prints a secret never breaks the turn nor leaks the secret. An untrusted folder runs none of them."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

import mewrk_jupyter as mw
from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.vendors import write_vendor
from tests.providers.wire import WireServer, anthropic_reply, anthropic_tool_use

SECRET = "cred-hook-5566778899aabbcc"


@pytest.fixture
def vendor(workspace: Path, wire_server: WireServer, monkeypatch: pytest.MonkeyPatch) -> WireServer:  # noqa: F811
    """A vendor on the wire server whose key is the secret `${HOOK_CRED}` of the kernel's environment."""
    monkeypatch.setenv("HOOK_CRED", SECRET)
    write_vendor(
        workspace, "a", "anthropic-messages", wire_server.url, "  m: {context_window: 100000}\n", "HOOK_CRED"
    )
    return wire_server


def hook(workspace: Path, name: str, text: str) -> None:
    folder = workspace / ".mewrk" / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(text)


def hosts(s: mw.Session) -> list[str]:
    return [c.text for c in s.cards if c.kind == "host_message"]


def sent_text(request) -> str:
    return json.dumps(request.json["messages"], ensure_ascii=False)


def test_a_session_start_hook_opens_the_conversation_and_its_words_are_sent(workspace, vendor):
    hook(
        workspace,
        "branch",
        "event: session_start\ncommand: echo on branch main; echo event=$MEWRK_HOOK_EVENT\n",
    )
    mw.trust(workspace)
    s = mw.Session.new(model="a/m")
    assert hosts(s) == ["Hook `branch` (session_start):\non branch main\nevent=session_start\n"]
    vendor.enqueue(anthropic_reply("Hello."))
    assert s.send("hi").state == "done"
    assert "on branch main" in sent_text(vendor.requests[0])


def test_before_request_runs_before_each_request_and_after_tool_only_for_its_tools(workspace, vendor):
    hook(workspace, "clock", "event: before_request\ncommand: echo request of $MEWRK_SESSION_ID\n")
    hook(
        workspace,
        "seen",
        "event: after_tool\ntools: [ls]\ncommand: echo ran $MEWRK_TOOL_NAME with $MEWRK_TOOL_INPUT\n",
    )
    hook(workspace, "writes", "event: after_tool\ntools: [write]\ncommand: echo never\n")
    mw.trust(workspace)
    (workspace / "data.csv").write_text("a,b\n")
    vendor.enqueue(anthropic_reply(anthropic_tool_use("ls", {"path": "."})))
    vendor.enqueue(anthropic_reply("There is data.csv."))
    s = mw.Session.new(model="a/m")
    run = s.send("what is here?")
    assert run.state == "done", run.error
    said = hosts(s)
    assert said == [
        f"Hook `clock` (before_request):\nrequest of {s.id}\n",
        'Hook `seen` (after_tool):\nran ls with {"path": "."}\n',
        f"Hook `clock` (before_request):\nrequest of {s.id}\n",
    ]
    kinds = [c.kind for c in s.cards]
    assert kinds == ["user_input", "host_message", "tool_call", "host_message", "host_message", "model_reply"]
    # The second request carries the tool's result and both host messages after it.
    second = sent_text(vendor.requests[1])
    assert "ran ls with" in second and second.count(f"request of {s.id}") == 2


def test_a_failing_or_slow_hook_becomes_a_host_message_and_the_turn_goes_on(workspace, vendor):
    hook(workspace, "broken", "event: before_request\ncommand: echo lint failed >&2; exit 3\n")
    hook(workspace, "slow", "event: before_request\ntimeout: 0.5\ncommand: echo started; sleep 30\n")
    mw.trust(workspace)
    vendor.enqueue(anthropic_reply("Fine."))
    s = mw.Session.new(model="a/m")
    run = s.send("go")
    assert run.state == "done", run.error
    assert hosts(s) == [
        "Hook `broken` (before_request):\nlint failed\n[exit code 3]",
        "Hook `slow` (before_request):\nstarted\n[timed out: the command was stopped after 0.5 seconds]",
    ]
    assert s.cards[-1].text == "Fine."


def test_a_hook_sees_no_secret_and_a_secret_it_prints_is_hidden(workspace, vendor):
    (workspace / "key.txt").write_text(SECRET)
    hook(workspace, "env", "event: session_start\ncommand: echo cred=$HOOK_CRED; cat key.txt\n")
    mw.trust(workspace)
    s = mw.Session.new(model="a/m")
    [said] = hosts(s)
    assert "cred=\n" in said  # not in its environment
    assert SECRET not in said  # read from a file, still hidden
    vendor.enqueue(anthropic_reply("Ok."))
    s.send("hi")
    assert SECRET not in vendor.requests[0].raw_body.decode()


def test_a_secret_a_hook_prints_encoded_is_hidden_too(workspace, vendor):
    (workspace / "key.txt").write_text(SECRET + "\n")
    hook(workspace, "env", "event: session_start\ncommand: base64 key.txt; rev key.txt; xxd -p key.txt\n")
    mw.trust(workspace)
    s = mw.Session.new(model="a/m")
    [said] = hosts(s)
    assert said.count("[redacted]") == 3
    for form in (base64.b64encode(SECRET.encode()).decode().rstrip("="), SECRET[::-1], SECRET.encode().hex()):
        assert form not in said


def test_an_untrusted_folder_runs_no_hook(workspace):
    hook(workspace, "mark", "event: session_start\ncommand: touch ran.txt; echo ran\n")
    with pytest.warns(
        mw.ConfigNotice, match="run the command `touch ran.txt; echo ran` \\(hooks/mark.yaml\\)"
    ):
        s = mw.Session.new()
    assert hosts(s) == [] and not (workspace / "ran.txt").exists()
    mw.trust(workspace)
    s = mw.Session.new()
    assert hosts(s) == ["Hook `mark` (session_start):\nran\n"] and (workspace / "ran.txt").exists()


def test_a_hook_file_is_checked_like_every_file(workspace):
    editor = mw.SettingsEditor()
    with pytest.raises(mw.ConfigError) as refused:
        editor.create("hooks/h.yaml", "event: after_send\ncommand: echo hi\n")
    assert str(refused.value).startswith(
        "hooks/h.yaml: event: input should be 'session_start', 'before_request'"
    )
    with pytest.raises(
        mw.ConfigError, match="hooks/h.yaml: timeout: input should be less than or equal to 600"
    ):
        editor.create("hooks/h.yaml", "event: session_start\ncommand: echo hi\ntimeout: 3600\n")
    assert not (workspace / ".mewrk" / "hooks" / "h.yaml").exists()


def test_run_hooks_runs_an_event_now_and_refuses_an_unknown_one(workspace):
    hook(workspace, "status", "event: before_request\ncommand: echo 2 files changed\n")
    mw.trust(workspace)
    s = mw.Session.new()
    [added] = s.run_hooks("before_request")
    assert added.text == "Hook `status` (before_request):\n2 files changed\n" and s.cards[-1].id == added.id
    assert s.run_hooks("after_tool") == []
    with pytest.raises(
        mw.InvalidInput, match="There is no hook event 'on_save'; the events are session_start,"
    ):
        s.run_hooks("on_save")


def test_a_hook_written_after_the_session_was_made_runs_at_the_next_request(workspace):
    s = mw.Session.new()
    s.send("first")
    assert hosts(s) == []
    hook(workspace, "late", "event: before_request\ncommand: echo late hook\n")
    mw.trust(workspace)
    s.send("second")
    assert hosts(s) == ["Hook `late` (before_request):\nlate hook\n"]
