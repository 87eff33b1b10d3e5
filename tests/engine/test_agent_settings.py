"""An agent file's settings act on the sessions of that agent; what the engine cannot do yet says so."""

from __future__ import annotations

import warnings

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.cards.undo import UNDO


def write(workspace, rel: str, text: str) -> None:
    path = workspace / ".mewrk" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def new_quietly(**kwargs) -> mw.Session:
    """A new session; fails the test if the engine warns about its configuration."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", mw.ConfigNotice)
        return mw.Session.new(**kwargs)


def test_the_agents_system_prompt_is_the_first_card_and_every_request_carries_it(workspace):
    write(workspace, "agents/main.yaml", "model: offline/echo\nsystem_prompt: |\n  Answer in one line.\n")
    s = new_quietly()
    (card,) = s.cards
    assert (card.kind, card.text, card.origin) == ("system_prompt", "Answer in one line.", "engine")
    assert UNDO.steps(s.id) == []  # the session starts with it; there is no step to undo
    s.send("hi")
    s.send("again")
    assert all("Answer in one line." in entry.request["system"] for entry in s.history)


def test_the_system_prompt_card_is_edited_like_any_card(workspace):
    write(workspace, "agents/main.yaml", "model: offline/echo\nsystem_prompt: Answer in one line.\n")
    s = new_quietly()
    s.edit(s.cards[0].id, text="Answer in French.")
    s.send("hi")
    system = s.history[-1].request["system"]
    assert "Answer in French." in system and "Answer in one line." not in system
    s.delete(s.cards[0].id)
    s.send("hi")
    assert not any("Answer in" in part for part in s.history[-1].request["system"])


def test_another_agents_prompt_and_no_prompt(workspace):
    write(workspace, "agents/main.yaml", "model: offline/echo\n")
    write(workspace, "agents/terse.yaml", "model: offline/thinker\nsystem_prompt: Be terse.\n")
    assert new_quietly().cards == []
    s = new_quietly(agent="terse")
    assert s.settings.model == "offline/thinker" and [c.text for c in s.cards] == ["Be terse."]
    branch = s.branch(s.cards[0].id)  # a branch copies the card, not the agent file
    assert [c.text for c in branch.cards] == ["Be terse."]


def test_an_unknown_agent_is_refused(workspace):
    with pytest.raises(mw.ConfigError, match=r"There is no agent `reviewer`: `.mewrk/agents/reviewer.yaml`"):
        mw.Session.new(agent="reviewer")
    assert new_quietly().settings.agent == "main"  # the default agent needs no file


def test_the_agents_safety_level_is_the_sessions_default(workspace):
    write(workspace, "policy/careful.yaml", "safety_level: careful\nallow: [ls]\ndeny: [bash]\n")
    write(workspace, "agents/main.yaml", "model: offline/echo\nsafety_level: careful\n")
    s = new_quietly()
    assert s.settings.safety_level == "careful" and s.tool_tier("bash") == "deny"
    # The caller's level wins over the agent's.
    assert new_quietly(safety_level="default").tool_tier("bash") == "ask"


def test_an_agents_unknown_safety_level_is_refused_naming_the_file(workspace):
    write(workspace, "agents/main.yaml", "model: offline/echo\nsafety_level: strict\n")
    with pytest.raises(
        mw.ConfigError,
        match=r"^agents/main.yaml: safety_level: There is no safety level `strict`: `.mewrk/policy/strict.yaml`",
    ):
        mw.Session.new()
    with pytest.raises(mw.ConfigError, match="There is no safety level `strict`"):
        mw.Session.new(safety_level="strict")
    assert new_quietly(safety_level="default").settings.safety_level == "default"


def test_a_summarize_at_threshold_makes_a_session_without_a_notice(workspace):
    write(workspace, "agents/main.yaml", "model: offline/echo\nsummarize_at: 80\n")
    assert new_quietly().settings.model == "offline/echo"  # the engine acts on it: nothing to warn about


def test_the_container_is_one_of_the_two_and_the_box_one_is_taken(workspace):
    with pytest.raises(
        mw.InvalidInput, match=r"host_container: Input should be 'user_message' or 'box_tool_result'"
    ):
        mw.Session.new(host_container="envelope")
    assert new_quietly(host_container="box_tool_result").settings.host_container == "box_tool_result"


def test_an_unknown_reasoning_level_is_refused(workspace):
    with pytest.raises(mw.InvalidInput, match=r"^Invalid session settings: reasoning: .*'off', 'low'"):
        mw.Session.new(reasoning="max")
    assert new_quietly(model="offline/thinker", reasoning="high").settings.reasoning == "high"


def test_the_default_prompt_profile_is_read_and_another_says_it_has_no_effect(workspace):
    # The default profile words the handoff (C3): no notice. Nothing chooses another profile yet.
    write(workspace, "prompts/default.yaml", "handoff:\n  armed_notice: Hand off now.\n")
    write(workspace, "prompts/terse.yaml", "handoff:\n  armed_notice: Go.\n")
    with pytest.warns(mw.ConfigNotice) as notices:
        mw.Session.new()
    assert [str(n.message) for n in notices] == [
        "prompts/terse.yaml: the engine reads only the `default` profile (prompts/default.yaml), "
        "so this file has no effect."
    ]
    assert notices[0].filename == __file__  # it points at the line that made the session


def test_server_settings_and_engine_tools_say_they_do_nothing_yet_native_compaction_no_longer(workspace):
    write(workspace, "server/server.yaml", "port: 8888\n")
    write(workspace, "agents/main.yaml", "model: acme/big\ntools: [read, box, handoff]\n")
    write(
        workspace,
        "llm/acme.yaml",
        "protocol: openai-responses\nbase_url: http://127.0.0.1:9\nmodels:\n  big: {native_compaction: true}\n",
    )
    mw.trust()  # the vendor names a server of its own: the folder acts once trusted
    with pytest.warns(mw.ConfigNotice) as notices:
        s = mw.Session.new()
    assert [str(n.message) for n in notices] == [
        "server/: host, port and token have no effect: the HTTP API is served by the Jupyter server itself, "
        "at its address and under its own token (set those with `jupyter server --ServerApp.ip=… "
        "--ServerApp.port=… --IdentityProvider.token=…`).",
        "agents/main.yaml: tools: handoff is offered by the engine itself when auto-compaction asks the "
        "model to hand off, so listing it has no effect.",
        "agents/main.yaml: tools: box is declared by the engine itself when the conversation's host-message "
        "container is box_tool_result, so listing it has no effect.",
    ]  # native compaction is built: the model's declaration is acted on, without a notice
    assert [t.name for t in s.tool_specs()] == ["read"]


def test_list_sessions_rows_carry_the_parent(workspace):
    s = new_quietly()
    s.send("hi")
    fork = s.fork(s.cards[-1].id)
    rows = {row.id: row for row in mw.list_sessions()}
    assert rows[s.id].parent is None and rows[fork.id].parent == s.id
    assert rows[fork.id].parent_id == s.id  # the name `Session.parent_id` has
    assert "parent" in rows[fork.id].model_dump()
