"""Rules every file follows: S4 empty files, unknown fields, YAML syntax, duplicate keys, validate_file."""

from __future__ import annotations

import pytest

from mewrk_jupyter.config import EDITABLE_KINDS, KINDS, InvalidConfig, load_config, validate_file
from mewrk_jupyter.errors import ConfigError

EMPTY = "the file holds no YAML content (empty or only comments)"


@pytest.mark.parametrize("text", ["", "\n\n", "# just a comment\n", "# a\n\n   # b\n", "---\n"])
@pytest.mark.parametrize(
    ("kind", "name", "needs"),
    [
        ("llm", "anthropic", "vendor 'anthropic' lacks 'protocol', 'models' (optional: base_url, api_key"),
        (
            "agents",
            "main",
            "agent 'main' lacks 'model' (optional: summarize_at, tools, safety_level, system_prompt, skills)",
        ),
        (
            "policy",
            "strict",
            "policy 'strict' lacks 'safety_level' (optional: allow, ask, deny, environment, sandbox)",
        ),
        (
            "tools",
            "grep2",
            "tool 'grep2' lacks 'name', 'description', 'command', 'parameters' (optional: timeout, read_only)",
        ),
        ("server", "main", "it may hold: host, port, token"),
        ("prompts", "default", "it may hold: handoff.armed_notice, handoff.start_message"),
    ],
)
def test_s4_a_file_without_content_is_refused_naming_what_it_needs(home, write, text, kind, name, needs):
    write(f"{kind}/{name}.yaml", text)
    with pytest.raises(ConfigError) as err:
        load_config(home)
    assert str(err.value).startswith(f"{kind}/{name}.yaml: {EMPTY}; {needs}")
    with pytest.raises(ConfigError) as same:
        validate_file(kind, text, name=name)
    assert str(same.value) == str(err.value)


@pytest.mark.parametrize(
    ("kind", "text", "unknown", "allowed"),
    [
        ("llm", "protocol: offline\nmodels: {echo: {}}\nkey: x\n", "'key'", "protocol, models, base_url"),
        ("agents", "model: offline/echo\nprompt: hi\ntemp: 1\n", "'prompt', 'temp'", "model, summarize_at"),
        ("policy", "safety_level: p\nallowed: [ls]\n", "'allowed'", "safety_level, allow, ask, deny"),
        ("server", "port: 8888\nhots: x\n", "'hots'", "host, port, token"),
    ],
)
def test_unknown_fields_are_refused_naming_them(kind, text, unknown, allowed):
    with pytest.raises(ConfigError) as err:
        validate_file(kind, text, name="p")
    noun = "unknown fields" if "," in unknown else "unknown field"
    assert f"{kind}/p.yaml: {noun} {unknown} (allowed: {allowed}" in str(err.value)


def test_a_yaml_syntax_error_names_file_and_line(home, write):
    write("agents/main.yaml", "model: offline/echo\ntools: [read, grep\nsummarize_at: 0.5\n")
    with pytest.raises(ConfigError) as err:
        load_config(home)
    message = str(err.value)
    assert message.startswith("agents/main.yaml: YAML syntax error at line 3")
    assert err.value.problems[0].line == 3


def test_a_syntax_error_does_not_quote_the_offending_line():
    with pytest.raises(ConfigError) as err:
        validate_file("llm", "protocol: openai-chat\napi_key: sk-live-777: x\nmodels: {m: {}}\n", name="o")
    assert "line 2" in str(err.value)
    assert "sk-live-777" not in str(err.value)


def test_a_key_written_twice_is_refused_with_its_line():
    with pytest.raises(ConfigError) as err:
        validate_file("agents", "model: offline/echo\nsummarize_at: 0.5\nmodel: offline/tiny\n", name="main")
    assert str(err.value) == "agents/main.yaml: the key 'model' is written twice"
    assert err.value.problems[0].line == 3


def test_a_file_must_hold_a_mapping():
    with pytest.raises(
        ConfigError, match=r"^agents/main.yaml: the file must be a mapping of fields, not a list; "
    ):
        validate_file("agents", "- model\n- tools\n", name="main")


def test_problems_carry_field_and_line_for_the_editor():
    text = "protocol: openai-chat\nmodels:\n  m:\n    context_window: lots\n"
    with pytest.raises(InvalidConfig) as err:
        validate_file("llm", text, name="o")
    (problem,) = err.value.problems
    assert (problem.file, problem.field, problem.line) == ("llm/o.yaml", "models.m.context_window", 4)


def test_every_problem_of_every_file_is_reported_at_once(home, write):
    write("agents/a.yaml", "model: offline/echo\nsummarize_at: 2\n")
    write("agents/b.yaml", "")
    write("policy/default.yaml", "safety_level: default\nallow: [bash]\ndeny: [bash]\n")
    with pytest.raises(InvalidConfig) as err:
        load_config(home)
    assert [p.file for p in err.value.problems] == ["agents/a.yaml", "agents/b.yaml", "policy/default.yaml"]
    assert len(str(err.value).splitlines()) == 3


def test_validate_file_reads_a_path(write):
    path = write("agents/main.yaml", "model: offline/echo\n")
    assert validate_file("agents", path).model == "offline/echo"


def test_validate_file_needs_a_known_kind_and_a_name_for_text():
    with pytest.raises(ConfigError, match="no configuration folder 'nope'"):
        validate_file("nope", "a: 1\n", name="x")
    with pytest.raises(TypeError):
        validate_file("agents", "model: offline/echo\n")


def test_a_file_that_is_not_utf8_is_named(home):
    (home / "agents").mkdir()
    (home / "agents" / "main.yaml").write_bytes(b"model: \xff\xfe\n")
    with pytest.raises(ConfigError, match="agents/main.yaml: the file is not UTF-8 text"):
        load_config(home)


def test_s1_s2_which_folders_the_settings_editor_may_edit():
    assert EDITABLE_KINDS == ("llm", "agents", "policy", "tools", "prompts", "hooks", "mcp", "workflows")
    assert KINDS["server"].editable is False and KINDS["server"].hot_reloadable is False
    assert all(KINDS[kind].hot_reloadable for kind in EDITABLE_KINDS)
