"""tools/<name>.yaml: commands with a JSON schema; errors say which tool lacks what (S4)."""

from __future__ import annotations

import warnings

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.config import InvalidConfig, load_config, validate_file
from mewrk_jupyter.config.tools import ENGINE_DECLARED
from mewrk_jupyter.engine.toolbox.box import ENGINE_TOOLS
from mewrk_jupyter.errors import ConfigError
from mewrk_jupyter.tools.kernel import KERNEL_TOOLS
from mewrk_jupyter.tools.registry import BUILTIN_TOOLS

GREP2 = """
name: grep2
description: Search with ripgrep.
command: [rg, --line-number, "{pattern}", "{path}"]
parameters:
  type: object
  properties:
    pattern: {type: string}
    path: {type: string}
  required: [pattern]
timeout: 30
"""


def test_a_tool_loads(home, write):
    write("tools/grep2.yaml", GREP2)
    tool = load_config(home).tools["grep2"]
    assert tool.command == ["rg", "--line-number", "{pattern}", "{path}"]
    assert tool.parameters["required"] == ["pattern"]
    assert tool.timeout == 30
    assert tool.placeholders() == ["pattern", "path"]


def test_a_tool_without_command_says_which_tool_lacks_what(home, write):
    write("tools/grep2.yaml", GREP2.replace('command: [rg, --line-number, "{pattern}", "{path}"]\n', ""))
    with pytest.raises(ConfigError) as err:
        load_config(home)
    assert str(err.value) == "tools/grep2.yaml: tool 'grep2' lacks 'command'"


def test_each_missing_field_is_named():
    with pytest.raises(ConfigError) as err:
        validate_file("tools", "name: t\n", name="t")
    assert str(err.value).splitlines() == [
        "tools/t.yaml: tool 't' lacks 'description'",
        "tools/t.yaml: tool 't' lacks 'command'",
        "tools/t.yaml: tool 't' lacks 'parameters'",
    ]


def test_the_name_must_match_the_file():
    with pytest.raises(ConfigError, match=r"tools/grep2.yaml: name 'grep3' must match the file name"):
        validate_file("tools", GREP2.replace("name: grep2", "name: grep3"), name="grep2")


def test_the_command_is_a_string_or_a_list_of_strings():
    tool = validate_file(
        "tools", GREP2.replace('[rg, --line-number, "{pattern}", "{path}"]', "'rg {pattern}'"), name="grep2"
    )
    assert tool.command == "rg {pattern}"
    for bad in ("''", "[]", "[rg, 3]", "{a: b}"):
        with pytest.raises(
            ConfigError, match="tools/grep2.yaml: command must be a non-empty string or a list"
        ):
            validate_file(
                "tools", GREP2.replace('[rg, --line-number, "{pattern}", "{path}"]', bad), name="grep2"
            )


def test_the_command_may_only_use_declared_parameters():
    text = GREP2.replace('"{path}"', '"{paht}"')
    with pytest.raises(ConfigError) as err:
        validate_file("tools", text, name="grep2")
    assert (
        str(err.value)
        == "tools/grep2.yaml: command uses {paht}, which is not among the parameters (pattern, path)"
    )


def test_shell_variables_are_not_placeholders():
    text = GREP2.replace('"{path}"', '"${HOME}"')
    assert validate_file("tools", text, name="grep2").placeholders() == ["pattern"]


@pytest.mark.parametrize(
    ("schema", "message"),
    [
        ("{type: string}", "parameters must be a JSON schema with `type: object`"),
        ("{properties: {}}", "parameters must be a JSON schema with `type: object`"),
        ("{type: object, properties: [a]}", "parameters.properties must map each parameter to its schema"),
        ("{type: object, properties: {a: {}}, required: a}", "parameters.required must be a list"),
        ("{type: object, properties: {a: {}}, required: [b]}", "parameters.required names 'b'"),
        ("[a, b]", "parameters must be a mapping (key: value)"),
    ],
)
def test_parameters_must_be_a_json_schema_object(schema, message):
    text = f"name: t\ndescription: d\ncommand: 'true'\nparameters: {schema}\n"
    with pytest.raises(ConfigError) as err:
        validate_file("tools", text, name="t")
    assert str(err.value).startswith(f"tools/t.yaml: {message}")


def test_timeout_is_positive_and_description_not_blank():
    base = "name: t\ncommand: 'true'\nparameters: {type: object}\n"
    with pytest.raises(ConfigError, match="tools/t.yaml: timeout: input should be greater than 0"):
        validate_file("tools", base + "description: d\ntimeout: 0\n", name="t")
    with pytest.raises(ConfigError, match="tools/t.yaml: description must say what the tool does"):
        validate_file("tools", base + "description: '  '\n", name="t")


def test_an_unknown_tool_field_is_named():
    with pytest.raises(ConfigError) as err:
        validate_file("tools", GREP2 + "cwd: /tmp\n", name="grep2")
    assert str(err.value).startswith("tools/grep2.yaml: unknown field 'cwd' (allowed: name, description")


def test_read_only_is_true_or_false_and_a_wrong_value_is_refused_at_its_line():
    assert not validate_file("tools", GREP2, name="grep2").read_only
    assert validate_file("tools", GREP2 + "read_only: true\n", name="grep2").read_only
    for bad in ("'yes'", "1", "maybe", "null"):
        text = GREP2 + f"read_only: {bad}\n"
        with pytest.raises(InvalidConfig) as err:
            validate_file("tools", text, name="grep2")
        assert str(err.value) == "tools/grep2.yaml: read_only must be true or false"
        [problem] = err.value.problems
        assert (problem.field, problem.line) == ("read_only", len(text.splitlines()))


def _named(name: str) -> str:
    return GREP2.replace("name: grep2", f"name: {name}")


def test_a_tool_file_named_as_a_built_in_is_left_out_alone_and_sends_go_on(workspace):
    tools = workspace / ".mewrk" / "tools"
    tools.mkdir(parents=True)
    (tools / "grep.yaml").write_text(_named("grep"))
    (tools / "grep2.yaml").write_text(GREP2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mw.trust()
        s = mw.Session.new()
        run = s.send("hi")
    notices = [str(w.message) for w in caught if issubclass(w.category, mw.ConfigNotice)]
    assert run.state == "done" and s.cards[-1].kind == "model_reply"
    names = [spec.name for spec in s.tool_specs()]
    assert names.count("grep") == 1 and "grep2" in names  # the built-in stays, the other file works
    sentence = "name 'grep' is a built-in tool's; name the tool and its file otherwise (e.g. grep2)"
    assert any(n.startswith("tools/grep.yaml: ") and sentence in n for n in notices), notices


@pytest.mark.parametrize("name", ["grep", "bash", "python", "inspect", "box", "task_wait"])
def test_the_settings_editor_refuses_a_tool_named_as_one_the_engine_declares(workspace, name):
    with pytest.raises(InvalidConfig) as err:
        mw.SettingsEditor().create(f"tools/{name}.yaml", _named(name))
    assert [p.field for p in err.value.problems] == ["name"]
    assert f"name '{name}' is a built-in tool's" in str(err.value)
    assert not (workspace / ".mewrk" / "tools" / f"{name}.yaml").exists()


def test_the_reserved_names_are_every_tool_the_engine_declares():
    assert set(ENGINE_DECLARED) == {*BUILTIN_TOOLS, *KERNEL_TOOLS, *ENGINE_TOOLS}
