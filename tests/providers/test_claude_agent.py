"""Protocol claude-agent (X7): the real Claude Code CLI, run through the Claude Agent SDK with the local
wire server as its ANTHROPIC_BASE_URL. What the CLI sends there is what the model would read: the
timeline as it stands (edits and deletions included), signed thinking with its signature, the project's
tools under their MCP names, and a tool's result after the engine ran the call through its approval."""

from __future__ import annotations

import base64
import json
import os
import sys
import time
from pathlib import Path

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.cards.models import ModelReply, Thinking, ToolCall, UserInput
from mewrk_jupyter.errors import ConfigError, ProviderError

from .vendors import NPM_CLI, write_vendor
from .wire import (
    WireServer,
    anthropic_error,
    anthropic_reply,
    anthropic_text,
    anthropic_thinking,
    anthropic_tool_use,
    anthropic_usage,
)

pytest.importorskip("claude_agent_sdk", reason="the Claude Agent SDK is part of the test install")

KEY_ENV = "CLAUDE_AGENT_TEST_KEY"
KEY = "sk-ant-claude-agent-test-0123456789"
MODEL = "ca/claude-test"
MODELS = "  claude-test:\n    thinking: signed\n    context_window: 200000\n"


@pytest.fixture
def agent(workspace: Path, wire_server: WireServer, monkeypatch) -> WireServer:
    monkeypatch.setenv(KEY_ENV, KEY)
    write_vendor(workspace, "ca", "claude-agent", wire_server.url, MODELS, KEY_ENV)
    assert NPM_CLI.exists(), "the test command installs Claude Code with npm ci in tests/claude-code/"
    vendor = workspace / ".mewrk" / "llm" / "ca.yaml"
    vendor.write_text(vendor.read_text() + f"cli_path: {NPM_CLI}\n")
    mw.trust(workspace)
    return wire_server


def messages(server: WireServer, n: int = -1) -> list[dict]:
    return server.requests[n].json["messages"]


def user_texts(body_messages: list[dict]) -> list[str]:
    """The text the person wrote in each user message (the CLI's own reminders left out)."""
    out = []
    for message in body_messages:
        if message["role"] != "user":
            continue
        content = message["content"]
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
        out += [
            b["text"].strip()
            for b in blocks
            if b.get("type") == "text" and "system-reminder" not in b["text"]
        ]
    return out


def test_a_turn_goes_through_the_cli_with_the_system_prompt_and_the_projects_tools(agent):
    agent.enqueue(anthropic_reply("Hello from Claude Code.", usage=anthropic_usage(30, 6)))
    s = mw.Session.new(model=MODEL)
    s.send("hello")
    reply = s.cards[-1]
    assert isinstance(reply, ModelReply) and reply.text == "Hello from Claude Code."
    assert reply.usage is not None and (reply.usage.input_tokens, reply.usage.output_tokens) == (30, 6)
    sent = agent.requests[-1]
    assert sent.path == "/v1/messages"
    assert user_texts(sent.json["messages"]) == ["hello"]
    tools = [t["name"] for t in sent.json["tools"] if not t.get("defer_loading")]
    assert "mcp__mewrk__read" in tools and "mcp__mewrk__bash" in tools
    assert not {"Bash", "Read", "Edit", "Write"} & set(tools)  # Claude Code's own tools are off
    # The history records what the engine gave the CLI: the system prompt (which the CLI sends after
    # its own lines), the timeline, the tools under their MCP names.
    body = s.history[-1].request
    assert body["system"] and body["system"][0]["text"][:80] in json.dumps(sent.json["system"])
    assert {t["name"] for t in body["tools"]} <= set(tools)
    assert body["messages"][-1]["content"][-1]["text"] == "hello"
    assert KEY not in json.dumps(body)
    # No prices configured: the cost is what Claude Code's result said the request cost.
    said = s.history[-1].response["cost"]
    assert isinstance(said, float) and said > 0
    assert s.context.cost_line().startswith("Cost: $") and "no prices configured" not in s.context.cost_line()


def test_an_edited_and_a_deleted_card_are_what_the_next_request_carries(agent):
    agent.enqueue(anthropic_reply("One."), anthropic_reply("Two."), anthropic_reply("Three."))
    s = mw.Session.new(model=MODEL)
    s.send("the first question")
    s.send("the second question")
    first, second = [c for c in s.cards if isinstance(c, UserInput)]
    answer = s.cards[s.cards.index(second) + 1]
    s.edit(first, text="the first question, edited")
    s.delete(second)
    s.delete(answer)
    assert [c.kind for c in s.cards] == ["user_input", "model_reply"]
    s.send("the third question")
    texts = user_texts(messages(agent))
    assert texts == ["the first question, edited", "the third question"]
    sent = json.dumps(messages(agent))
    assert "the second question" not in sent and "Two." not in sent
    assert "One." in sent  # the model's reply to the first stays


def test_signed_thinking_goes_back_with_its_signature(agent):
    agent.enqueue(
        anthropic_reply(anthropic_thinking("Let me think.", "SIG-claude-agent-1"), "Thought."),
        anthropic_reply("Again."),
    )
    s = mw.Session.new(model=MODEL)
    s.configure(reasoning="medium")
    s.send("think")
    thinking = next(c for c in s.cards if isinstance(c, Thinking))
    assert thinking.text == "Let me think." and thinking.signature == "SIG-claude-agent-1"
    s.send("and again")
    assistant = next(m for m in messages(agent) if m["role"] == "assistant")
    assert assistant["content"][0] == {
        "type": "thinking",
        "thinking": "Let me think.",
        "signature": "SIG-claude-agent-1",
    }


def test_a_tool_call_asks_for_approval_runs_in_the_engine_and_its_result_goes_back(agent, workspace):
    agent.enqueue(
        anthropic_reply(
            "I will run it.",
            anthropic_tool_use("mcp__mewrk__bash", {"command": "echo ran > made.txt"}, id="toolu_ca_1"),
        ),
        anthropic_reply("It ran."),
    )
    s = mw.Session.new(model=MODEL)
    run = s.send("make the file")
    assert run.state == "awaiting_approval"
    assert not (workspace / "made.txt").exists()  # the CLI ran nothing of its own
    assert [c.kind for c in s.cards][-2:] == ["tool_call", "approval"]
    assert s.approve().state == "done"
    assert (workspace / "made.txt").read_text() == "ran\n"
    call = next(c for c in s.cards if isinstance(c, ToolCall))
    assert call.name == "bash" and call.call_id == "toolu_ca_1"  # the project's name for the tool
    assert s.cards[-1].text == "It ran."
    last = messages(agent)
    assistant = [m for m in last if m["role"] == "assistant"][-1]
    assert assistant["content"][-1]["name"] == "mcp__mewrk__bash"
    results = [
        b for m in last if m["role"] == "user" and isinstance(m["content"], list) for b in m["content"]
    ]
    result = next(b for b in results if b.get("type") == "tool_result")
    assert result["tool_use_id"] == "toolu_ca_1" and not result.get("is_error")
    assert len(agent.requests) == 2  # one request per model response: the CLI did not go on by itself


def _cli_children() -> list[int]:
    """The Claude Code processes this test process started that still run."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat") as stat:
                parent = int(stat.read().rsplit(")", 1)[1].split()[1])
            with open(f"/proc/{name}/cmdline", "rb") as cmdline:
                argv = cmdline.read().split(b"\0")
        except (OSError, IndexError, ValueError):
            continue
        if parent == os.getpid() and any(b"claude" in part for part in argv[:1]):
            found.append(int(name))
    return found


def test_stop_mid_stream_keeps_the_partial_reply_and_ends_the_cli(agent):
    agent.enqueue(anthropic_reply(anthropic_text("word " * 40, chunks=40), event_delay=0.25))
    s = mw.Session.new(model=MODEL)
    run = s.send("talk for a while", wait=False)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (s.cards and isinstance(s.cards[-1], ModelReply)):
        time.sleep(0.1)
    assert s.stop()
    run.wait(60)
    reply = s.cards[-1]
    assert isinstance(reply, ModelReply) and reply.interrupted
    assert reply.text.startswith("word") and len(reply.text) < len("word " * 40)
    deadline = time.monotonic() + 30
    while _cli_children() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _cli_children() == []


def test_a_refused_key_is_one_sentence_without_the_key(agent):
    refused = [anthropic_error(401, "invalid x-api-key", type="authentication_error") for _ in range(4)]
    agent.enqueue(*refused)
    s = mw.Session.new(model=MODEL)
    with pytest.raises(ProviderError) as refusal:
        s.send("hello")
    said = str(refusal.value)
    assert said.startswith("`ca/claude-test`: Claude Code gave no response (Invalid API key")
    assert "check api_key in .mewrk/llm/ca.yaml" in said
    assert len(agent.requests) == 3  # asked again twice, as the other adapters do, not ten times
    assert KEY not in said and KEY not in json.dumps([c.model_dump() for c in s.cards])


def test_a_missing_cli_is_a_sentence_at_session_new(workspace, wire_server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    write_vendor(workspace, "ca", "claude-agent", wire_server.url, MODELS, KEY_ENV)
    vendor = workspace / ".mewrk" / "llm" / "ca.yaml"
    vendor.write_text(vendor.read_text() + f"cli_path: {workspace / 'no-such-claude'}\n")
    mw.trust(workspace)
    with pytest.raises(
        ConfigError, match="is not an executable file.*npm install -g @anthropic-ai/claude-code"
    ):
        mw.Session.new(model=MODEL)


def test_the_cli_sees_none_of_the_kernels_credentials(monkeypatch):
    from mewrk_jupyter.providers.claude_agent import ClaudeAgentProvider

    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-secret")
    monkeypatch.setenv("SOME_TOOL_TOKEN", "token-secret")
    provider = ClaudeAgentProvider({}, api_key=lambda: KEY, base_url="http://127.0.0.1:9")
    env = provider.environment()
    assert env["OPENAI_API_KEY"] == "" and env["SOME_TOOL_TOKEN"] == ""
    assert env["ANTHROPIC_API_KEY"] == KEY and env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert env["PATH"] == os.environ["PATH"]


@pytest.mark.parametrize(
    ("extra", "said"),
    [
        ("cli_path: /usr/bin/claude\n", "cli_path is only for protocol claude-agent"),
    ],
)
def test_claude_agent_fields_act_or_are_refused(workspace, extra, said):
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "a.yaml").write_text("protocol: anthropic-messages\nmodels:\n  m:\n" + extra)
    mw.trust(workspace)
    with pytest.raises(ConfigError, match=said):
        mw.Session.new(model="a/m")


def test_prefill_and_native_compaction_are_refused_for_claude_agent(workspace):
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "ca.yaml").write_text("protocol: claude-agent\nmodels:\n  m:\n    prefill: true\n")
    mw.trust(workspace)
    with pytest.raises(ConfigError, match="never continues its own"):
        mw.Session.new(model="ca/m")
    (llm / "ca.yaml").write_text("protocol: claude-agent\nmodels:\n  m:\n    native_compaction: true\n")
    with pytest.raises(ConfigError, match="offers no compaction of its own"):
        mw.Session.new(model="ca/m")


def test_trusting_the_folder_names_the_cli_and_its_own_login(workspace):
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "cc.yaml").write_text("protocol: claude-agent\nmodels:\n  claude-test: {}\n")
    with pytest.warns(mw.ConfigNotice) as notices:
        s = mw.Session.new()
    said = " ".join(str(n.message) for n in notices)
    assert "run the command `claude` (llm/cc.yaml, Claude Code)" in said
    assert "Claude Code's own login (llm/cc.yaml, no api_key)" in said
    assert s.settings.model == "offline/echo"


def test_without_cli_path_the_cli_the_sdk_brings_runs(workspace, wire_server, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    write_vendor(workspace, "ca", "claude-agent", wire_server.url, MODELS, KEY_ENV)
    wire_server.enqueue(anthropic_reply("From the SDK's own CLI."))
    s = mw.Session.new(model=MODEL)
    s.send("hello")
    assert s.cards[-1].text == "From the SDK's own CLI."
    assert "cc_entrypoint=sdk-py" in json.dumps(wire_server.requests[-1].json["system"])


def test_from_the_widget_a_send_an_approval_and_an_edit_go_through_the_cli(agent, workspace):
    from ..widget.recording import RecordingWidget

    agent.enqueue(
        anthropic_reply(anthropic_tool_use("mcp__mewrk__bash", {"command": "echo w > w.txt"}, id="toolu_w")),
        anthropic_reply("Written."),
        anthropic_reply("Edited answer."),
    )
    s = mw.Session.new(model=MODEL)
    widget = RecordingWidget(s)
    widget.hello()
    assert widget.do("send", text="write the file")["ok"]
    s.last_run.wait(60)
    approval = next(c for c in s.cards if c.kind == "approval")
    assert widget.do("approve", card_id=approval.id)["ok"]
    s.last_run.wait(60)
    assert (workspace / "w.txt").read_text() == "w\n" and s.cards[-1].text == "Written."
    question = next(c for c in s.cards if isinstance(c, UserInput))
    assert widget.do("edit", card_id=question.id, fields={"text": "write the file, please"})["ok"]
    assert widget.do("send", text="")["ok"]  # continue: the model reads the timeline as it stands
    s.last_run.wait(60)
    assert user_texts(messages(agent))[0] == "write the file, please"
    assert s.cards[-1].text == "Edited answer."


@pytest.mark.both_stores
def test_the_session_cost_is_the_sum_of_what_claude_code_said_each_request_cost(agent):
    from mewrk_jupyter.engine.assembly.context import session_spending
    from mewrk_jupyter.providers.registry import prices_of

    agent.enqueue(anthropic_reply("One.", usage=anthropic_usage(1000, 10)), anthropic_reply("Two."))
    s = mw.Session.new(model=MODEL)
    s.send("first")
    s.send("second")
    said = [entry.response["cost"] for entry in s.history]
    assert len(said) == 2 and all(cost > 0 for cost in said)
    spending = session_spending(s.stored_timeline.db.conn(), s.id, lambda m: prices_of(m, s.workspace.home))
    assert spending.cost == pytest.approx(sum(said)) and spending.unpriced == []


def test_an_agent_that_lists_a_claude_code_tool_without_an_equivalent_is_told_why(agent, workspace):
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True)
    (agents / "main.yaml").write_text(f"model: {MODEL}\ntools: [read, Bash, WebFetch]\n")
    mw.trust(workspace)
    s = mw.Session.new()
    with pytest.raises(
        ConfigError, match="Claude Code's WebFetch is not offered: it fetches pages from inside"
    ):
        s.send("hello")
    assert agent.requests == []  # nothing was sent


def _agent_listing(workspace: Path, tools: str) -> None:
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True, exist_ok=True)
    (agents / "main.yaml").write_text(f"model: {MODEL}\ntools: [{tools}]\n")
    mw.trust(workspace)


def _tool_results(body_messages: list[dict]) -> list[dict]:
    return [
        b
        for m in body_messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for b in m["content"]
        if b.get("type") == "tool_result"
    ]


def test_claude_codes_own_read_listed_by_an_agent_is_offered_and_runs_as_the_projects_read(agent, workspace):
    _agent_listing(workspace, "Read, Bash, grep")
    (workspace / "notes.txt").write_text("the notes say forty-two\n")
    root = str(workspace.resolve())
    agent.enqueue(
        anthropic_reply(anthropic_tool_use("Read", {"file_path": f"{root}/notes.txt"}, id="toolu_cc_read")),
        anthropic_reply("They say forty-two."),
    )
    s = mw.Session.new()
    s.send("what do the notes say?")
    first = agent.requests[0].json
    offered = {t["name"]: t for t in first["tools"] if not t.get("defer_loading")}
    # The CLI's own Read and Bash (its definitions: absolute file_path), the project's grep through MCP.
    assert "file_path" in offered["Read"]["input_schema"]["properties"] and "Bash" in offered
    assert "mcp__mewrk__grep" in offered and "mcp__mewrk__read" not in offered and "Edit" not in offered
    assert f"work in the workspace folder {root}" in json.dumps(first["system"])
    call = next(c for c in s.cards if isinstance(c, ToolCall))
    assert (call.name, call.params, call.call_id) == ("read", {"path": "notes.txt"}, "toolu_cc_read")
    assert "forty-two" in (call.result or "") and not call.is_error
    assert s.cards[-1].text == "They say forty-two."
    # The next request shows the model its call in Claude Code's words, with the project's read's result.
    second = messages(agent)
    use = [b for m in second if m["role"] == "assistant" for b in m["content"] if b.get("type") == "tool_use"]
    assert use == [
        {
            "type": "tool_use",
            "id": "toolu_cc_read",
            "name": "Read",
            "input": {"file_path": f"{root}/notes.txt"},
        }
    ]
    (result,) = [r for r in _tool_results(second) if r["tool_use_id"] == "toolu_cc_read"]
    assert "forty-two" in json.dumps(result["content"])
    # The CLI read nothing itself: the file's text is in the second request once, as the engine's result.
    assert json.dumps(second).count("the notes say forty-two") == 1
    assert len(agent.requests) == 2  # one request per model response
    # The history records what the engine gave the CLI: Claude Code's tools by their name.
    assert {"type": "claude_code", "name": "Read"} in s.history[0].request["tools"]


def test_the_cli_opens_no_file_for_a_call_of_its_own_read(agent, workspace, tmp_path, monkeypatch):
    # The CLI runs a Read of a file in its own folder without asking can_use_tool (it deems that safe):
    # only the PreToolUse hook stops it. A pipe put into the CLI's folder as soon as the run makes it shows
    # whether anything opened it for reading.
    import tempfile
    import threading

    _agent_listing(workspace, "Read")
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(scratch))  # where the run makes the CLI's folder
    opened = threading.Event()
    done = threading.Event()

    def watch() -> None:
        pipe = None
        while not done.is_set():
            if pipe is None:
                folders = list(scratch.glob("mewrk-claude-*"))
                if folders:
                    pipe = folders[0] / "pipe.txt"
                    os.mkfifo(pipe)
                time.sleep(0.005)
                continue
            try:
                fd = os.open(pipe, os.O_WRONLY | os.O_NONBLOCK)  # fails while no reader has it open
            except OSError:
                time.sleep(0.005)
                continue
            opened.set()
            os.write(fd, b"read by the CLI\n")
            os.close(fd)
            return

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    agent.enqueue(
        anthropic_reply(anthropic_tool_use("Read", {"file_path": "pipe.txt"}, id="toolu_cc_pipe")),
        anthropic_reply("No such file."),
    )
    s = mw.Session.new()
    s.send("read the pipe")
    done.set()
    watcher.join(timeout=5)
    assert not opened.is_set()
    call = next(c for c in s.cards if isinstance(c, ToolCall))
    assert (call.name, call.params) == ("read", {"path": "pipe.txt"})  # the workspace's, which has none
    assert call.is_error and "does not exist" in (call.result or "")
    assert "read by the CLI" not in json.dumps([r.json for r in agent.requests])
    assert s.cards[-1].text == "No such file." and len(agent.requests) == 2


def test_claude_codes_own_bash_and_edit_ask_for_approval_and_run_in_the_engine(agent, workspace):
    _agent_listing(workspace, "Bash, Edit, Read")
    (workspace / "config.ini").write_text("mode = slow\n")
    agent.enqueue(
        anthropic_reply(
            anthropic_tool_use(
                "Bash", {"command": "echo ran > made.txt", "description": "Make a file"}, id="toolu_cc_bash"
            )
        ),
        # A relative path: the CLI looks for it in its own empty folder and refuses the call by itself,
        # which it would send back to the model at once but for max_turns.
        anthropic_reply(
            anthropic_tool_use(
                "Edit",
                {"file_path": "config.ini", "old_string": "slow", "new_string": "fast"},
                id="toolu_cc_edit",
            )
        ),
        anthropic_reply(
            anthropic_tool_use(
                "Edit",
                {"file_path": "config.ini", "old_string": "fast", "new_string": "x", "replace_all": True},
                id="toolu_cc_all",
            )
        ),
        anthropic_reply("Done."),
    )
    s = mw.Session.new()
    run = s.send("make the file, then make it fast")
    assert run.state == "awaiting_approval" and not (workspace / "made.txt").exists()
    bash = next(c for c in s.cards if isinstance(c, ToolCall))
    assert (bash.name, bash.params) == ("bash", {"command": "echo ran > made.txt"})
    run = s.approve()
    assert (workspace / "made.txt").read_text() == "ran\n"
    assert run.state == "awaiting_approval"  # the edit waits for its approval in turn
    edit = [c for c in s.cards if isinstance(c, ToolCall)][-1]
    assert (edit.name, edit.params) == ("edit", {"path": "config.ini", "old": "slow", "new": "fast"})
    assert len(agent.requests) == 2  # the CLI did not answer the edit by itself
    run = s.approve()
    assert (workspace / "config.ini").read_text() == "mode = fast\n"
    # replace_all has no equivalent in the project's edit: the call's result says so, nothing changed.
    assert run.state == "awaiting_approval"
    assert s.approve().state == "done" and s.cards[-1].text == "Done."
    last_call = next(c for c in s.cards if isinstance(c, ToolCall) and c.call_id == "toolu_cc_all")
    assert last_call.is_error and "replace_all" in (last_call.result or "")
    assert (workspace / "config.ini").read_text() == "mode = fast\n"
    assert len(agent.requests) == 4
    final = messages(agent)
    uses = {
        b["id"]: b
        for m in final
        if m["role"] == "assistant"
        for b in m["content"]
        if b.get("type") == "tool_use"
    }
    root = str(workspace.resolve())
    assert uses["toolu_cc_bash"]["name"] == "Bash" and uses["toolu_cc_bash"]["input"] == {
        "command": "echo ran > made.txt"
    }
    assert uses["toolu_cc_edit"]["input"] == {
        "file_path": f"{root}/config.ini",
        "old_string": "slow",
        "new_string": "fast",
    }


def test_undo_brings_back_what_the_next_request_carries(agent):
    agent.enqueue(anthropic_reply("One."), anthropic_reply("Two."), anthropic_reply("Three."))
    s = mw.Session.new(model=MODEL)
    s.send("the first question")
    s.send("the second question")
    second = [c for c in s.cards if isinstance(c, UserInput)][1]
    s.delete(second)
    s.undo()  # the person takes the deletion back
    s.send("the third question")
    assert user_texts(messages(agent)) == ["the first question", "the second question", "the third question"]


def test_without_the_sdk_the_sentence_says_how_to_install_it(monkeypatch):
    from mewrk_jupyter.providers import claude_agent

    real = claude_agent.importlib.util.find_spec
    monkeypatch.setattr(
        claude_agent.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "claude_agent_sdk" else real(name, *a),
    )
    with pytest.raises(
        ConfigError, match=r"Claude Agent SDK, which is not installed: pip install claude-agent-sdk"
    ):
        claude_agent.check_installed(None)


def test_a_branch_sends_the_timeline_up_to_where_it_was_made(agent):
    agent.enqueue(anthropic_reply("One."), anthropic_reply("Two."), anthropic_reply("Elsewhere."))
    s = mw.Session.new(model=MODEL)
    s.send("the first question")
    s.send("the second question")
    first_reply = next(c for c in s.cards if isinstance(c, ModelReply))
    b = s.branch(first_reply)
    b.send("another way")
    assert user_texts(messages(agent)) == ["the first question", "another way"]
    assert b.cards[-1].text == "Elsewhere." and len(s.cards) == 4


def test_an_at_path_in_a_message_is_sent_as_written_and_no_file_is_read(agent, workspace):
    # Claude Code reads a file an `@path` in a typed prompt names into the request; a message on the
    # timeline is the person's text, sent as written, whether it is the last one or an earlier one.
    secret = workspace.parent / "outside.txt"
    secret.write_text("NOT FOR THE MODEL")
    agent.enqueue(anthropic_reply("One."), anthropic_reply("Two."))
    s = mw.Session.new(model=MODEL)
    s.send(f"look at @{secret}")
    s.send(f"and again @{secret}")
    sent = json.dumps(agent.requests[0].json) + json.dumps(agent.requests[1].json)
    assert "NOT FOR THE MODEL" not in sent and "Result of calling the Read tool" not in sent
    assert user_texts(messages(agent)) == [f"look at @{secret}", f"and again @{secret}"]


def test_an_image_attached_to_a_message_reaches_the_model_through_the_cli(
    workspace, wire_server, monkeypatch
):
    from ..widget.test_actions import PNG

    monkeypatch.setenv(KEY_ENV, KEY)
    models = "  claude-test:\n    vision: true\n    context_window: 200000\n"
    write_vendor(workspace, "ca", "claude-agent", wire_server.url, models, KEY_ENV)
    (workspace / "cat.png").write_bytes(PNG)
    wire_server.enqueue(anthropic_reply("A cat."), anthropic_reply("Still a cat."))
    s = mw.Session.new(model=MODEL)
    s.send("what is this?", attachments=["cat.png"])
    s.send("and now?")  # the image is in the transcript of the second request too
    for request in wire_server.requests:
        images = [
            b
            for m in request.json["messages"]
            if isinstance(m["content"], list)
            for b in m["content"]
            if b.get("type") == "image"
        ]
        assert [i["source"]["data"] for i in images] == [base64.b64encode(PNG).decode()]


def test_mcp_servers_of_the_persons_own_claude_configuration_are_not_started(agent, workspace):
    # The CLI sees the kernel's HOME (its own login lives there); a server that ~/.claude.json names for
    # every project would start beside the project's tools and offer the model its own.
    marker = workspace.parent / "spy-started"
    spy = f"open({str(marker)!r}, 'w').write('started')"
    home = Path(os.environ["HOME"])
    (home / ".claude.json").write_text(
        json.dumps({"mcpServers": {"spy": {"type": "stdio", "command": sys.executable, "args": ["-c", spy]}}})
    )
    agent.enqueue(anthropic_reply("Only the project's tools."))
    s = mw.Session.new(model=MODEL)
    s.send("hello")
    assert s.cards[-1].text == "Only the project's tools."
    assert not marker.exists()
    tools = [t["name"] for t in agent.requests[-1].json["tools"]]
    assert not [name for name in tools if name.startswith("mcp__spy__")]
