"""Hooks that can block or rewrite (A5): `before_tool` gets the call as JSON on stdin — exit 2 blocks it
(the model reads the hook's stderr), a JSON answer asks, denies, allows or rewrites its input — and
`before_send` can add context to the person's message or refuse it; a bad answer is a sentence naming
the hook's file, and the rest goes on."""

from __future__ import annotations

import json
from pathlib import Path

import mewrk_jupyter as mw


def hook(workspace: Path, name: str, text: str) -> None:
    folder = workspace / ".mewrk" / "hooks"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{name}.yaml").write_text(text)


def policy(workspace: Path, text: str) -> None:
    folder = workspace / ".mewrk" / "policy"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "default.yaml").write_text(f"safety_level: default\n{text}")


def bash(command: str) -> str:
    return "call: bash " + json.dumps({"command": command})


def calls(s: mw.Session) -> list:
    return [c for c in s.cards if c.kind == "tool_call"]


def hosts(s: mw.Session) -> list[str]:
    return [c.text for c in s.cards if c.kind == "host_message"]


def tool_results_sent(s: mw.Session) -> str:
    return json.dumps([h.request for h in s.history if h.protocol != "tool"][-1])


# A guard written as a person would: it reads the call from stdin and refuses `rm` with exit 2.
GUARD = """event: before_tool
tools: [bash]
command: |
  input=$(cat)
  case "$input" in
    *'"rm '*) echo "rm is not for agents here; move files to trash/ instead" >&2; exit 2 ;;
  esac
"""


def test_exit_2_blocks_the_call_and_the_model_reads_the_hooks_stderr(workspace):
    hook(workspace, "guard", GUARD)
    policy(workspace, "allow: [bash]\n")
    mw.trust(workspace)
    (workspace / "keep.txt").write_text("x")
    s = mw.Session.new()
    s.send(bash("rm keep.txt"))
    (call,) = calls(s)
    assert (workspace / "keep.txt").exists()
    assert call.status == "denied" and not call.is_error
    assert call.result == (
        "The hook `guard` blocked this call: rm is not for agents here; move files to trash/ instead"
    )
    assert "move files to trash/" in tool_results_sent(s)
    s.send(bash("echo fine"))  # another command passes the guard and runs
    assert calls(s)[-1].status == "done" and calls(s)[-1].result.strip() == "fine"


def test_the_hook_reads_the_call_as_json_on_stdin(workspace):
    hook(
        workspace,
        "log",
        "event: before_tool\ncommand: cat > seen.json\n",
    )
    policy(workspace, "allow: [ls]\n")
    mw.trust(workspace)
    s = mw.Session.new()
    s.send('call: ls {"path": "."}')
    seen = json.loads((workspace / "seen.json").read_text())
    assert seen["event"] == "before_tool" and seen["session_id"] == s.id
    assert seen["tool"] == "ls" and seen["input"] == {"path": "."}
    assert seen["call_id"] == calls(s)[0].call_id
    assert calls(s)[0].status == "done"


def answer(workspace: Path, body: dict, level: str | None = None) -> mw.Session:
    """A trusted folder whose `decide` hook prints `body` for every bash call; a session of it."""
    hook(workspace, "decide", f"event: before_tool\ntools: [bash]\ncommand: |\n  echo '{json.dumps(body)}'\n")
    if level is not None:
        policy(workspace, level)
    mw.trust(workspace)
    return mw.Session.new()


def test_a_json_deny_refuses_with_its_reason(workspace):
    s = answer(workspace, {"decision": "deny", "reason": "not on Fridays"}, "allow: [bash]\n")
    s.send(bash("touch made.txt"))
    assert calls(s)[0].status == "denied" and "not on Fridays" in calls(s)[0].result
    assert not (workspace / "made.txt").exists()


def test_a_json_ask_asks_the_person_even_where_the_level_allows(workspace):
    s = answer(workspace, {"decision": "ask", "reason": "this touches the data folder"}, "allow: [bash]\n")
    s.send(bash("touch made.txt"))
    assert s.state == "awaiting_approval"
    assert s.pending_approval.hook_reason == "Hook `decide`: this touches the data folder"
    s.approve()
    assert (workspace / "made.txt").exists() and s.state == "idle"
    assert len([c for c in s.cards if c.kind == "approval"]) == 1  # it asked once, not again on resume


def test_a_json_allow_runs_without_asking_but_never_past_a_deny(workspace):
    s = answer(workspace, {"decision": "allow"}, "ask: [bash]\ndeny: ['bash(rm *)']\n")
    s.send(bash("touch made.txt"))
    assert s.state == "idle" and (workspace / "made.txt").exists()
    s.send(bash("rm made.txt"))
    assert calls(s)[-1].status == "denied" and (workspace / "made.txt").exists()


def test_a_rewritten_input_runs_and_the_card_keeps_both(workspace):
    s = answer(workspace, {"input": {"command": "echo rewritten"}, "reason": "safer"}, "allow: [bash]\n")
    s.send(bash("echo original"))
    (call,) = calls(s)
    assert call.result.strip() == "rewritten"
    assert call.params == {"command": "echo rewritten"}
    assert call.original_params == {"command": "echo original"}
    assert call.hook_reason == "Hook `decide`: safer"
    ran = [h for h in s.history if h.protocol == "tool"][-1]
    assert ran.request["input"] == {"command": "echo rewritten"}


def test_a_rewritten_input_that_asks_is_what_the_person_approves(workspace):
    s = answer(workspace, {"input": {"command": "echo safer"}})
    s.send(bash("echo risky"))
    assert s.pending_approval.params == {"command": "echo safer"}
    s.approve()
    assert calls(s)[0].result.strip() == "safer"


def test_a_bad_answer_is_a_sentence_naming_the_hook_and_the_call_goes_on_under_the_level(workspace):
    s = answer(workspace, {"decision": "maybe"})
    s.send(bash("echo x"))
    assert s.state == "awaiting_approval"  # the level asks, as without the hook
    said = [t for t in hosts(s) if "hooks/decide.yaml" in t]
    assert said and "decision must be allow, ask or deny" in said[0]


def test_an_input_that_is_not_an_object_is_refused_the_same_way(workspace):
    s = answer(workspace, {"input": "echo nope"}, "allow: [bash]\n")
    s.send(bash("echo kept"))
    assert calls(s)[0].result.strip() == "kept"
    assert any("hooks/decide.yaml" in t and "input must be an object" in t for t in hosts(s))


def test_before_send_adds_context_that_is_sent_with_the_message(workspace):
    hook(
        workspace,
        "ticket",
        'event: before_send\ncommand: |\n  python3 -c \'import json,sys; print("Ticket:", json.load(sys.stdin)["text"][:5])\'\n',
    )
    mw.trust(workspace)
    s = mw.Session.new()
    s.send("BUG-7 fix the parser")
    kinds = [c.kind for c in s.cards]
    assert kinds[:2] == ["user_input", "host_message"]
    assert s.cards[1].text == "Hook `ticket` (before_send):\nTicket: BUG-7\n"
    assert "Ticket: BUG-7" in json.dumps(s.history[-1].request)


def test_before_send_exit_2_refuses_the_message_and_stores_nothing(workspace):
    hook(
        workspace,
        "nosecrets",
        "event: before_send\ncommand: |\n  grep -q password && { echo 'Do not paste passwords here.' >&2; exit 2; }\n  exit 0\n",
    )
    mw.trust(workspace)
    s = mw.Session.new()
    try:
        s.send("my password is hunter22")
    except mw.InvalidInput as exc:
        assert str(exc) == "The hook `nosecrets` refused this message: Do not paste passwords here."
    else:
        raise AssertionError("the message was not refused")
    assert s.cards == [] and s.history == []
    s.send("hello")
    assert [c.kind for c in s.cards] == ["user_input", "model_reply"]


def test_tools_on_an_event_of_no_call_is_refused_and_answering_events_do_not_run_on_request(workspace):
    editor = mw.SettingsEditor()
    try:
        editor.create("hooks/h.yaml", "event: before_send\ntools: [bash]\ncommand: echo hi\n")
    except mw.ConfigError as exc:
        assert str(exc).startswith("hooks/h.yaml: tools: only a before_tool or after_tool hook runs")
    else:
        raise AssertionError("tools on a before_send hook was accepted")
    s = mw.Session.new()
    try:
        s.run_hooks("before_tool")
    except mw.InvalidInput as exc:
        assert "run at that moment only" in str(exc)
    else:
        raise AssertionError("a before_tool hook ran on request")
