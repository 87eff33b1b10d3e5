"""The tool loop (issue 4): real tools, parallel calls, the safety level's allow / ask / deny, T13."""

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.turns.run import OUTPUT_LIMIT
from tests.conftest import wait_for
from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.wire import anthropic_reply, anthropic_tool_use


def policy(workspace, text, level="default"):
    folder = workspace / ".mewrk" / "policy"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{level}.yaml").write_text(f"safety_level: {level}\n{text}")


def calls_of(s):
    return [c for c in s.cards if c.kind == "tool_call"]


def model_requests(s):
    return [h for h in s.history if h.protocol != "tool"]


def test_every_request_declares_the_enabled_tools_with_their_schemas(workspace):
    s = mw.Session.new()
    s.send("hi")
    tools = {t["name"]: t for t in s.history[-1].request["tools"]}
    assert list(tools) == ["ls", "read", "grep", "find", "write", "edit", "bash", "lsp"]
    assert tools["read"]["input_schema"]["required"] == ["path"]
    assert [t.name for t in s.tool_specs()] == list(tools)


def test_an_agent_enables_only_its_tools(workspace):
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True)
    (agents / "main.yaml").write_text("model: offline/echo\ntools: [ls, read]\n")
    s = mw.Session.new()
    s.send("hi")
    assert [t["name"] for t in s.history[-1].request["tools"]] == ["ls", "read"]


def test_parallel_calls_run_side_by_side_and_pair_with_their_results(workspace):
    policy(workspace, "allow: [bash]\n")
    # Each command waits for the other's flag: both succeed only when they run at the same time.
    wait = "touch {me}; for i in $(seq 200); do [ -f {other} ] && exit 0; sleep 0.05; done; exit 7"
    a = wait.format(me="a.flag", other="b.flag")
    b = wait.format(me="b.flag", other="a.flag")
    s = mw.Session.new()
    s.send(f'call: bash {{"command": "{a}"}}\ncall: bash {{"command": "{b}"}}')
    calls = calls_of(s)
    assert [c.status for c in calls] == ["done", "done"]
    assert not any(c.is_error for c in calls), [c.result for c in calls]
    results = model_requests(s)[1].request["messages"][-1]["parts"]
    assert [p["tool_use_id"] for p in results] == [c.call_id for c in calls]


def test_a_failing_tool_is_an_error_result_the_model_reads(workspace):
    s = mw.Session.new()
    s.send('call: read {"path": "missing.txt"}')
    call = calls_of(s)[0]
    assert call.is_error and call.status == "done" and "missing.txt" in call.result
    result = model_requests(s)[1].request["messages"][-1]["parts"][0]
    assert result["is_error"] is True and result["content"] == call.result
    assert "failed" in s.cards[-1].text


def test_a_path_escape_is_refused_to_the_model(workspace):
    s = mw.Session.new()
    s.send('call: read {"path": "../outside.txt"}')
    call = calls_of(s)[0]
    assert call.is_error and "outside the workspace" in call.result


def test_deny_is_a_statement_to_the_model_not_a_run(workspace):
    policy(workspace, "allow: [ls]\ndeny: [bash]\n")
    s = mw.Session.new()
    s.send('call: bash {"command": "touch ran.txt"}')
    call = calls_of(s)[0]
    assert call.status == "denied" and not call.is_error
    assert "not allowed at the safety level `default`" in call.result
    assert not (workspace / "ran.txt").exists()
    result = model_requests(s)[1].request["messages"][-1]["parts"][0]
    assert result["is_error"] is False and "not allowed" in result["content"]
    assert s.state == "idle"


def test_an_unknown_safety_level_is_a_clear_error_before_anything_runs(workspace):
    with pytest.raises(mw.ConfigError, match=r"no safety level `strict`.*policy/strict.yaml"):
        mw.Session.new(safety_level="strict")
    policy(workspace, "allow: [ls]\n", level="strict")
    s = mw.Session.new(safety_level="strict")
    (workspace / ".mewrk" / "policy" / "strict.yaml").unlink()  # removed while the session lives
    with pytest.raises(mw.ConfigError, match=r"no safety level `strict`"):
        s.send('call: ls {"path": "."}')
    assert s.cards == [] and s.history == []  # refused before the question was stored or sent


def test_a_reply_cut_at_the_output_limit_gets_a_host_message_asking_to_continue(
    workspace,
    wire_server,  # noqa: F811
    monkeypatch,
):
    monkeypatch.setenv("K", "x")
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "a.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {wire_server.url}\napi_key: ${{K}}\n"
        "models:\n  m: {context_window: 1000}\n"
    )
    mw.trust()
    wire_server.enqueue(
        anthropic_reply(
            "The first half", anthropic_tool_use("bash", {"command": "rm -"}), stop_reason="max_tokens"
        )
    )
    wire_server.enqueue(anthropic_reply(" and the rest."))
    s = mw.Session.new(model="a/m")
    s.send("write a lot")
    kinds = [c.kind for c in s.cards]
    assert kinds == ["user_input", "model_reply", "tool_call", "host_message", "model_reply"]
    host, cut = s.cards[3], s.cards[2]
    assert host.text == OUTPUT_LIMIT and host.topic == "output_limit"
    assert cut.status == "denied" and "output limit" in cut.result
    sent = wire_server.last_json()["messages"][-1]["content"]
    assert sent[0]["type"] == "tool_result" and "output limit" in sent[0]["content"]
    assert OUTPUT_LIMIT in sent[-1]["text"] and sent[-1]["text"].startswith("<system-reminder>")
    # The host message is a card like any other: editing it changes what the model reads next time.
    s.edit(host.id, text="Go on, briefly.")
    wire_server.enqueue(anthropic_reply("ok"))
    s.send()
    assert "Go on, briefly." in str(wire_server.last_json()["messages"])


def test_a_tool_declared_in_the_tools_folder_is_offered_and_run(workspace):
    tools = workspace / ".mewrk" / "tools"
    tools.mkdir(parents=True)
    (tools / "shout.yaml").write_text(
        "name: shout\ndescription: Print a word in capitals\ncommand: echo {word} | tr a-z A-Z\n"
        "parameters:\n  type: object\n  properties:\n    word: {type: string}\n  required: [word]\n"
    )
    policy(workspace, "allow: [shout]\n")
    mw.trust()  # a folder's command tools run once it is trusted
    s = mw.Session.new()
    s.send('call: shout {"word": "hi; touch injected"}')
    assert "shout" in [t["name"] for t in s.history[0].request["tools"]]
    call = calls_of(s)[0]
    assert call.status == "done" and call.result.strip() == "HI; TOUCH INJECTED"
    assert not (workspace / "injected").exists()


def test_an_unlisted_tool_asks_first(workspace):
    policy(workspace, "allow: [ls]\n")
    s = mw.Session.new()
    s.send('call: grep {"pattern": "x"}')
    assert s.state == "awaiting_approval" and s.pending_approval.name == "grep"


def test_stop_ends_a_running_tool_and_the_turn(workspace):
    policy(workspace, "allow: [bash]\n")
    s = mw.Session.new()
    run = s.send('call: bash {"command": "sleep 60; touch late.txt"}', wait=False)
    wait_for(lambda: any(c.status == "running" for c in calls_of(s)))
    assert s.stop()
    run.wait(30)
    assert run.done and run.state == "stopped" and s.state == "idle"
    call = calls_of(s)[0]
    assert call.is_error and "stopped" in call.result.lower()
    assert not (workspace / "late.txt").exists()


def test_the_model_cannot_change_the_configuration_folder(workspace):
    policy(workspace, "allow: [write, read]\n")
    s = mw.Session.new()
    s.send('call: write {"path": ".mewrk/policy/default.yaml", "content": "allow: [bash]"}')
    call = calls_of(s)[0]
    assert call.is_error and "configuration folder" in call.result
    assert "allow: [write, read]" in (workspace / ".mewrk" / "policy" / "default.yaml").read_text()
    s.send('call: read {"path": ".mewrk/policy/default.yaml"}')
    assert "allow: [write, read]" in calls_of(s)[-1].result


def test_an_agent_may_name_the_engine_tools_and_no_tool_at_all(workspace):
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True)
    (agents / "main.yaml").write_text("model: offline/echo\ntools: [read, box, task_wait]\n")
    (agents / "quiet.yaml").write_text("model: offline/echo\ntools: []\n")
    with pytest.warns(mw.ConfigNotice, match="tools: box is declared by the engine itself"):
        assert [t.name for t in mw.Session.new().tool_specs()] == ["read", "task_wait"]
    assert mw.Session.new(agent="quiet").tool_specs() == []


def test_a_call_to_a_tool_that_does_not_exist_is_an_error_result_not_an_approval(
    workspace,
    wire_server,  # noqa: F811
    monkeypatch,
):
    # Every tool the model may call asks first here: an unknown name must not reach that tier.
    policy(workspace, "ask: [ls, read, grep, find, write, edit, bash, lsp]\n")
    monkeypatch.setenv("K", "x")
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "a.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {wire_server.url}\napi_key: ${{K}}\n"
        "models:\n  m: {context_window: 100000}\n"
    )
    mw.trust(workspace)  # the test wrote the vendor file
    wire_server.enqueue(anthropic_reply("Let me try.", anthropic_tool_use("nonexistent_tool", {"x": 1})))
    wire_server.enqueue(anthropic_reply("That tool does not exist."))
    s = mw.Session.new(model="a/m")
    s.send("go")
    assert s.state == "idle" and s.pending_approval is None
    assert [c.kind for c in s.cards] == ["user_input", "model_reply", "tool_call", "model_reply"]
    call = calls_of(s)[0]
    assert (call.status, call.is_error) == ("done", True)
    assert call.result == (
        "There is no tool `nonexistent_tool`; the tools are: ls, read, grep, find, write, edit, bash, lsp."
    )
    sent = wire_server.last_json()["messages"][-1]["content"][0]
    assert sent["type"] == "tool_result" and sent["is_error"] is True and sent["content"] == call.result
