"""agents/<name>.yaml and policy/<level>.yaml."""

from __future__ import annotations

import pytest

from mewrk_jupyter.config import load_config, validate_file
from mewrk_jupyter.errors import ConfigError


def test_an_agent_with_defaults(home, write):
    write("agents/main.yaml", "model: anthropic/claude-sonnet-4-5\n")
    agent = load_config(home).agent("main")
    assert agent.model == "anthropic/claude-sonnet-4-5"
    assert agent.summarize_at == 0  # never compacts by itself unless the file says so (C6)
    assert (agent.tools, agent.safety_level, agent.system_prompt) == (None, None, None)


def test_an_agent_with_every_field():
    text = """\
model: deepseek/deepseek-chat
summarize_at: 0
tools: [ls, read, grep, find, write, edit, bash, grep2]
safety_level: strict
system_prompt: |
  You are careful.
"""
    agent = validate_file("agents", text, name="main")
    assert agent.summarize_at == 0  # C6: never compacts by itself
    assert agent.tools[-1] == "grep2"
    assert agent.system_prompt == "You are careful.\n"


@pytest.mark.parametrize(
    ("value", "advice"),
    [(-1, ""), (101, ""), (3, ""), ("half", ""), (0.5, " (in percent: for 50 % of the window write 50)")],
)
def test_summarize_at_is_0_or_a_percent_of_the_window(value, advice):
    said = (
        "agents/main.yaml: summarize_at must be 0 (never by itself) or a whole number from 5 to 100 "
        f"(percent of the window), not {value!r}{advice}"
    )
    with pytest.raises(ConfigError) as refused:
        validate_file("agents", f"model: offline/echo\nsummarize_at: {value}\n", name="main")
    assert str(refused.value) == said


@pytest.mark.parametrize("value", [80, 50, 100])
def test_a_summarize_at_threshold_is_taken(value):
    agent = validate_file("agents", f"model: offline/echo\nsummarize_at: {value}\n", name="main")
    assert agent.summarize_at == value  # the engine summarises in place at that percent of the window (C6)


def test_an_older_agent_file_s_fraction_is_read_as_the_percent_it_meant_with_a_note(home, write):
    write("agents/main.yaml", "model: offline/echo\nsummarize_at: 0.8\n")
    config = load_config(home)
    assert config.agent("main").summarize_at == 80  # as before: at 80 % of the window
    (note,) = config.notes
    assert (note.file, note.field, note.line) == ("agents/main.yaml", "summarize_at", 2)
    assert note.message == (
        "summarize_at: 0.8 is read as 80 % of the window, as before; thresholds are written in percent now "
        "— write `summarize_at: 80`"
    )


@pytest.mark.parametrize("model", ["claude", "anthropic/", "/claude"])
def test_the_agent_model_is_vendor_slash_model(model):
    with pytest.raises(ConfigError, match=r"^agents/main.yaml: model must be named `vendor/model`"):
        validate_file("agents", f"model: '{model}'\n", name="main")


def test_agent_tools_are_tool_names_listed_once():
    with pytest.raises(ConfigError, match="agents/main.yaml: tools lists 'read' twice"):
        validate_file("agents", "model: offline/echo\ntools: [read, read]\n", name="main")
    with pytest.raises(ConfigError, match="agents/main.yaml: tools: 'rm -rf' is not a tool name"):
        validate_file("agents", "model: offline/echo\ntools: [rm -rf]\n", name="main")


def test_a_missing_agent_is_named(home):
    with pytest.raises(
        ConfigError, match=r"There is no agent `main`: `.mewrk/agents/main.yaml` does not exist"
    ):
        load_config(home).agent("main")


def test_a_policy_and_its_tiers(home, write):
    write(
        "policy/default.yaml",
        "safety_level: default\nallow: [ls, read, grep, find]\nask: [bash, write, edit]\ndeny: []\n",
    )
    policy = load_config(home).policy("default")
    assert policy.tier("read") == "allow"
    assert policy.tier("bash") == "ask"
    assert policy.tier("lsp") is None
    assert policy.deny == []


def test_a_tool_in_two_lists_is_refused(home, write):
    write("policy/default.yaml", "safety_level: default\nallow: [ls, bash]\ndeny: [bash]\n")
    with pytest.raises(ConfigError) as err:
        load_config(home)
    assert str(err.value) == "policy/default.yaml: tool 'bash' is in both allow and deny"
    assert err.value.problems[0].line == 3


def test_agent_spawn_under_ask_is_refused_rather_than_ignored(home, write):
    write("policy/default.yaml", "safety_level: default\nallow: [ls]\nask: [bash, agent_spawn]\n")
    with pytest.raises(ConfigError) as err:
        load_config(home)
    assert str(err.value) == (
        "policy/default.yaml: ask: `agent_spawn` does not ask first (a subagent's own calls ask at this "
        "level); list it under allow, or under deny to refuse it"
    )


def test_the_safety_level_matches_the_file_name():
    with pytest.raises(ConfigError) as err:
        validate_file("policy", "safety_level: yolo\n", name="strict")
    assert (
        str(err.value)
        == "policy/strict.yaml: safety_level 'yolo' must match the file name (policy/strict.yaml)"
    )


def test_a_missing_policy_is_named(home):
    with pytest.raises(ConfigError, match=r"There is no safety level `strict`"):
        load_config(home).policy("strict")
