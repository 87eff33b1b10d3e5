"""Approval rules by command (A5) in a session: a safety level's `bash(PATTERN)` rules, compound
commands, and "approve always" by this command or commands like it — kept in the session, or in the
policy file through the settings editor's checks."""

import json

import pytest
import yaml

import mewrk_jupyter as mw
from mewrk_jupyter.config.problems import InvalidConfig
from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.vendors import write_vendor
from tests.providers.wire import anthropic_reply, anthropic_tool_use


def policy(workspace, text, level="default"):
    folder = workspace / ".mewrk" / "policy"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{level}.yaml").write_text(f"safety_level: {level}\n{text}")


def bash(command):
    return "call: bash " + json.dumps({"command": command})


def last_call(s):
    return [c for c in s.cards if c.kind == "tool_call"][-1]


def test_a_rule_by_command_runs_what_it_allows_and_asks_for_the_rest(workspace):
    policy(workspace, 'allow: ["bash(echo *)", "bash(true)"]\nask: [bash]\ndeny: ["bash(rm *)"]\n')
    s = mw.Session.new()
    s.send(bash("echo one && true"))
    assert last_call(s).status == "done" and last_call(s).result.strip() == "one"
    s.send(bash("echo two; touch made.txt"))
    assert s.state == "awaiting_approval" and not (workspace / "made.txt").exists()
    approval = s.pending_approval
    assert approval.rules_this == ["bash(echo two; touch made.txt)"]
    assert approval.rules_like == ["bash(echo *)", "bash(touch *)"]
    s.reject("not now")
    s.send(bash("echo $(rm -rf somewhere)"))
    assert last_call(s).status == "denied" and "not allowed" in last_call(s).result
    assert s.tool_tier("bash", {"command": "echo hi"}) == "allow"
    assert s.tool_tier("bash", {"command": "echo hi > /tmp/x"}) == "ask"
    assert s.tool_tier("bash") == "ask"


def test_approve_always_this_command_allows_that_command_alone(workspace):
    s = mw.Session.new()
    s.send(bash("echo same"))
    s.approve(always="command")
    approval = [c for c in s.cards if c.kind == "approval"][-1]
    assert (approval.decision, approval.granted, approval.granted_in) == (
        "approved_always",
        ["bash(echo same)"],
        "session",
    )
    assert s.settings.approved_always == ["bash(echo same)"]
    s.send(bash("echo same"))
    assert last_call(s).status == "done" and s.state == "idle"
    s.send(bash("echo other"))
    assert s.state == "awaiting_approval"


def test_approve_always_commands_like_this_and_a_rule_written_out(workspace):
    s = mw.Session.new()
    s.send(bash("git status && echo x"))
    assert s.pending_approval.rules_like == ["bash(git status*)", "bash(echo *)"]
    with pytest.raises(mw.InvalidInput, match=r"The rule `bash\(ls \*\)` does not allow this call"):
        s.approve(always="bash(ls *)")
    with pytest.raises(mw.InvalidInput, match=r"does not close its pattern"):
        s.approve(always="bash(x")
    assert s.state == "awaiting_approval"  # a refused grant decides nothing
    s.approve(always="like")
    s.send(bash("git status --short; echo xyz"))
    assert s.state == "idle" and last_call(s).status == "done"
    s.send(bash("python -c 1"))
    assert s.state == "awaiting_approval"
    assert s.pending_approval.rules_like == []  # python runs what it is told: no rule for "like it"
    with pytest.raises(mw.InvalidInput, match="no rule for commands like this one"):
        s.approve(always="like")
    s.approve(always="bash(python -c 1)")
    assert "bash(python -c 1)" in s.settings.approved_always


def test_approve_always_into_the_policy_file_keeps_the_rule_and_the_trust(workspace):
    policy(workspace, "# the team's level\nallow: [ls]\nask: [bash]\n")
    mw.trust()
    s = mw.Session.new()
    s.send(bash("echo kept"))
    s.approve(always="like", in_policy=True)
    approval = [c for c in s.cards if c.kind == "approval"][-1]
    assert approval.granted_in == "policy/default.yaml" and s.settings.approved_always == []
    text = (workspace / ".mewrk" / "policy" / "default.yaml").read_text()
    assert text.startswith("safety_level: default\n# the team's level\n")
    assert yaml.safe_load(text)["allow"] == ["ls", "bash(echo *)"]
    other = mw.Session.new()  # another session of the level: the rule is the level's now
    other.send(bash("echo again"))
    assert other.state == "idle" and last_call(other).status == "done"


def test_a_rule_the_policy_file_cannot_hold_is_refused_and_the_approval_waits(workspace):
    policy(workspace, 'ask: ["bash(echo *)"]\n')
    s = mw.Session.new()
    s.send(bash("echo clash"))
    with pytest.raises(InvalidConfig, match=r"policy/default.yaml: tool 'bash\(echo \*\)' is in both allow"):
        s.approve(always="like", in_policy=True)
    assert s.state == "awaiting_approval" and s.settings.approved_always == []
    assert "allow" not in yaml.safe_load((workspace / ".mewrk" / "policy" / "default.yaml").read_text())


def test_a_rule_into_a_folder_with_no_policy_file_makes_it_from_the_built_in_level(workspace):
    s = mw.Session.new()
    s.send(bash("echo made"))
    s.approve(always="command", in_policy=True)
    data = yaml.safe_load((workspace / ".mewrk" / "policy" / "default.yaml").read_text())
    assert data["allow"][-1] == "bash(echo made)" and "read" in data["allow"] and "bash" in data["ask"]


def test_a_bad_rule_names_its_file_and_line_and_other_levels_work(workspace):
    policy(workspace, 'allow:\n  - ls\n  - "bash(git status"\n', level="careful")
    with pytest.raises(mw.ConfigError) as err:
        mw.Session.new(safety_level="careful")
    assert str(err.value).startswith("policy/careful.yaml: allow: 'bash(git status' does not close")
    assert err.value.problems[0].line == 4
    s = mw.Session.new()
    s.send(bash("echo fine"))
    assert s.state == "awaiting_approval"


def test_a_folder_whose_rules_run_commands_without_asking_asks_for_trust(
    workspace,
    wire_server,  # noqa: F811
    monkeypatch,
):
    monkeypatch.setenv("K", "x")
    write_vendor(
        workspace, "a", "anthropic-messages", wire_server.url, "  m: {context_window: 100000}\n", "K"
    )
    policy(workspace, 'allow: ["bash(curl *)"]\n')
    with pytest.raises(mw.WorkspaceNotTrusted, match=r"bash\(curl \*\) \(policy/default.yaml\)"):
        mw.Session.new(model="a/m")
    mw.trust()
    wire_server.enqueue(anthropic_reply(anthropic_tool_use("bash", {"command": "true && curl --version"})))
    wire_server.enqueue(anthropic_reply("done"))
    s = mw.Session.new(model="a/m")
    s.send("go")
    assert s.state == "awaiting_approval"  # `true` is no part a rule allows


def test_a_command_the_reader_cannot_name_asks_in_a_session_whose_level_allows_bash(workspace):
    policy(workspace, 'allow: [bash]\nask: ["bash(git push*)"]\ndeny: ["bash(rm *)"]\n')
    (workspace / "y").write_text("keep")
    s = mw.Session.new()
    s.send(bash("x=rm; $x -f y"))
    assert s.state == "awaiting_approval" and (workspace / "y").exists()
    s.reject("no")
    s.send(bash("sudo -u root rm -f y"))
    assert last_call(s).status == "denied" and (workspace / "y").exists()
    assert s.tool_tier("bash", {"command": "git $p origin"}) == "ask"
    assert s.tool_tier("bash", {"command": "echo $HOME"}) == "allow"
