"""load_config: the folder as a whole, the empty default, server/ and prompts/."""

from __future__ import annotations

import pytest

from mewrk_jupyter.config import PROMPT_KEYS, Config, load_config, validate_file
from mewrk_jupyter.errors import ConfigError

from .conftest import ANTHROPIC


def test_a_missing_folder_is_an_empty_config(tmp_path):
    config = load_config(tmp_path / "nothing-here")
    assert isinstance(config, Config)
    assert config.is_empty
    assert not (config.vendors or config.agents or config.policies or config.tools or config.prompts)
    assert config.server is None


def test_an_empty_folder_is_an_empty_config(home):
    (home / "llm").mkdir()
    (home / "mewrk.db").write_bytes(b"SQLite format 3\x00")  # the store lives here too; it is not config
    assert load_config(home).is_empty


def test_a_full_folder(home, write):
    write("llm/anthropic.yaml", ANTHROPIC)
    write("agents/main.yaml", "model: anthropic/claude-sonnet-4-5\n")
    write("policy/default.yaml", "safety_level: default\nallow: [ls]\n")
    write("tools/hello.yml", "name: hello\ndescription: d\ncommand: echo hi\nparameters: {type: object}\n")
    write("server/server.yaml", "host: 127.0.0.1\nport: 8888\n")
    write("prompts/default.yaml", "handoff:\n  armed_notice: Hand off now.\n")
    config = load_config(str(home))
    assert not config.is_empty
    assert config.home == home
    assert set(config.vendors) == {"anthropic"} and set(config.agents) == {"main"}
    assert set(config.policies) == {"default"} and set(config.tools) == {"hello"}
    assert (config.server.host, config.server.port, config.server.token) == ("127.0.0.1", 8888, None)
    assert config.prompt("handoff.armed_notice") == "Hand off now."
    assert config.prompt("handoff.start_message") is None
    assert config.prompt("handoff.armed_notice", profile="terse") is None


def test_the_config_is_frozen(home, write):
    write("agents/main.yaml", "model: offline/echo\n")
    config = load_config(home)
    with pytest.raises(Exception):  # noqa: B017 - pydantic's frozen-instance error
        config.agent("main").model = "x/y"


def test_hidden_backup_and_non_yaml_files_are_ignored(home, write):
    write("agents/.main.yaml.swp", "garbage: [")
    write("agents/main.yaml~", "garbage: [")
    write("agents/README.md", "# notes")
    write("llm/notes.txt", "hello")
    assert load_config(home).is_empty


def test_yaml_and_yml_for_the_same_name_are_refused(home, write):
    write("agents/main.yaml", "model: offline/echo\n")
    write("agents/main.yml", "model: offline/tiny\n")
    with pytest.raises(ConfigError, match=r"agents/main.yml: a second file for 'main'"):
        load_config(home)


def test_a_subfolder_that_is_a_file(home, write):
    write("llm", "protocol: offline\n")
    with pytest.raises(ConfigError, match=r"^llm: must be a folder, not a file"):
        load_config(home)


def test_a_home_that_is_a_file(tmp_path):
    (tmp_path / "home").write_text("x", encoding="utf-8")
    with pytest.raises(ConfigError, match="is a file, not a folder"):
        load_config(tmp_path / "home")


def test_s2_server_is_read_with_its_token_as_a_reference(home, write):
    write("server/main.yaml", "port: 8888\ntoken: ${MEWRK_TOKEN}\n")
    assert load_config(home).server.token == "${MEWRK_TOKEN}"
    write("server/main.yaml", "port: 8888\ntoken: hunter2\n")
    with pytest.raises(ConfigError) as err:
        load_config(home)
    assert str(err.value) == "server/main.yaml: token must be a reference, not a literal"


def test_server_port_range_and_a_single_file(home, write):
    with pytest.raises(
        ConfigError, match=r"server/main.yaml: port: input should be less than or equal to 65535"
    ):
        validate_file("server", "port: 70000\n", name="main")
    write("server/a.yaml", "port: 1\n")
    write("server/b.yaml", "port: 2\n")
    with pytest.raises(ConfigError, match=r"server: several server files \(server/a, server/b\); keep one"):
        load_config(home)


def test_prompts_flat_or_nested_keys():
    flat = validate_file("prompts", "handoff.armed_notice: A\nhandoff.start_message: B\n", name="default")
    nested = validate_file("prompts", "handoff:\n  armed_notice: A\n  start_message: B\n", name="default")
    assert flat == nested
    assert flat.as_mapping() == {"handoff.armed_notice": "A", "handoff.start_message": "B"}
    assert set(PROMPT_KEYS) == {"handoff.armed_notice", "handoff.start_message", "summary.instruction"}


def test_prompt_values_are_strings_and_keys_known():
    with pytest.raises(ConfigError, match=r"prompts/default.yaml: handoff.armed_notice must be text"):
        validate_file("prompts", "handoff.armed_notice: [a]\n", name="default")
    with pytest.raises(
        ConfigError, match=r"unknown field 'handoff.armd_notice' \(allowed: handoff.armed_notice"
    ):
        validate_file("prompts", "handoff: {armd_notice: x}\n", name="default")
    with pytest.raises(ConfigError, match=r"the key 'handoff.armed_notice' is written twice"):
        validate_file("prompts", "handoff.armed_notice: a\nhandoff: {armed_notice: b}\n", name="default")


def test_a_bad_file_name_is_refused(home, write):
    write("agents/my agent.yaml", "model: offline/echo\n")
    with pytest.raises(ConfigError, match=r"agents/my agent.yaml: the file name must be letters"):
        load_config(home)
