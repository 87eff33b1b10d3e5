"""The environment policy of a safety level, the references it finds, and the redaction of secret values."""

from __future__ import annotations

import pytest

from mewrk_jupyter.config import (
    REDACTED,
    EnvironmentPolicy,
    Redactor,
    command_environment,
    load_config,
    secret_values,
    validate_file,
)
from mewrk_jupyter.config.sandbox import SandboxPolicy
from mewrk_jupyter.errors import ConfigError

ENVIRON = {
    "PATH": "/usr/bin:/bin",
    "HOME": "/home/someone",
    "ANTHROPIC_API_KEY": "sk-ant-0123456789",
    "github_token": "ghp_abcdefghijkl",
    "DB_PASSWORD": "hunter2-hunter2",
    "CLIENT_SECRET": "s3cr3t-value-42",
    "VENDOR_CRED": "cred-0011223344",
    "AWS_REGION": "eu-west-1x",
    "LANG": "C.UTF-8",
}


def test_by_default_credential_names_and_referenced_variables_are_dropped(home, write):
    write("llm/v.yaml", "protocol: openai-chat\napi_key: ${VENDOR_CRED}\nmodels:\n  m:\n")
    passed = command_environment(EnvironmentPolicy(), home, ENVIRON)
    assert sorted(passed) == ["AWS_REGION", "HOME", "LANG", "PATH"]


def test_keep_wins_and_drop_adds(home, write):
    write("llm/v.yaml", "protocol: openai-chat\napi_key: ${VENDOR_CRED}\nmodels:\n  m:\n")
    policy = EnvironmentPolicy(drop=["aws_*"], keep=["GITHUB_TOKEN", "VENDOR_CRED"])
    passed = command_environment(policy, home, ENVIRON)
    assert sorted(passed) == ["HOME", "LANG", "PATH", "VENDOR_CRED", "github_token"]
    # drop: ['*'] with a keep list is an allow-list.
    allow = EnvironmentPolicy(drop=["*"], keep=["PATH", "LANG"])
    assert sorted(command_environment(allow, home, ENVIRON)) == ["LANG", "PATH"]


def test_references_are_found_in_every_file_even_one_that_does_not_validate(home, write):
    write("llm/broken.yaml", "protocol: nonsense\nheaders:\n  X-Key: '${VENDOR_CRED}'  # a comment\n")
    write("server/main.yaml", "token: ${LANG}\n")
    write("llm/flow.yaml", 'protocol: openai-chat\nheaders: {X-A: "${AWS_REGION}", X-B: plain}\n')
    # A tool's shell command uses `${HOME}` as the shell's own variable: that is no reference.
    write(
        "tools/home.yaml",
        "name: home\ndescription: d\ncommand: ls ${HOME}\nparameters: {type: object}\n",
    )
    with pytest.raises(ConfigError):
        load_config(home)
    passed = command_environment(EnvironmentPolicy(), home, ENVIRON)
    assert not {"VENDOR_CRED", "LANG", "AWS_REGION"} & set(passed) and "HOME" in passed


def test_secret_values_are_the_dropped_and_referenced_ones_and_the_files(home, write, tmp_path):
    key_file = tmp_path / "key.txt"
    key_file.write_text("from-a-file-123456\n")
    write(
        "llm/v.yaml",
        f"protocol: openai-chat\napi_key: ${{VENDOR_CRED}}\nheaders:\n  X-Other: '@file:{key_file}'\n"
        "models:\n  m:\n",
    )
    # A kept variable that a file references is still a secret; a kept one that none references is not.
    policy = EnvironmentPolicy(keep=["VENDOR_CRED", "GITHUB_TOKEN"])
    values = secret_values(policy, home, ENVIRON)
    assert values == {
        "sk-ant-0123456789",
        "hunter2-hunter2",
        "s3cr3t-value-42",
        "cred-0011223344",
        "from-a-file-123456",
    }


def test_a_file_reference_to_a_device_or_a_missing_file_is_not_read(home, write):
    write("llm/v.yaml", "protocol: openai-chat\napi_key: '@file:/dev/zero'\nmodels:\n  m:\n")
    write("llm/w.yaml", "protocol: openai-chat\napi_key: '@file:/no/such/file'\nmodels:\n  m:\n")
    assert secret_values(EnvironmentPolicy(), home, {}) == set()


def test_the_environment_field_of_a_policy_file():
    policy = validate_file(
        "policy",
        "safety_level: default\nenvironment:\n  drop: [AWS_*]\n  keep: [GITHUB_TOKEN]\n",
        name="default",
    )
    assert policy.environment == EnvironmentPolicy(drop=["AWS_*"], keep=["GITHUB_TOKEN"])
    assert (
        validate_file("policy", "safety_level: default\n", name="default").environment == EnvironmentPolicy()
    )


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        (
            "environment: {dorp: [X]}",
            "policy/default.yaml: unknown field 'environment.dorp' (allowed: drop, keep)",
        ),
        ('environment: {drop: "AWS_*"}', "policy/default.yaml: environment.drop must be a list"),
        (
            'environment: {keep: ["A B"]}',
            "policy/default.yaml: environment.keep: 'A B' is not a variable name or pattern "
            "(letters, digits, '_', and the wildcards '*' and '?')",
        ),
        ("environment: [X]", "policy/default.yaml: environment must be a mapping of fields"),
    ],
)
def test_a_bad_environment_field_is_refused_with_a_sentence(text, sentence):
    with pytest.raises(ConfigError) as caught:
        validate_file("policy", f"safety_level: default\n{text}\n", name="default")
    assert str(caught.value) == sentence


def test_the_redactor_replaces_known_values_and_leaves_short_ones():
    redactor = Redactor(["sk-ant-0123456789", "sk-ant-0123", "on", "1234567"])
    assert redactor.text("key sk-ant-0123456789 and sk-ant-0123!") == f"key {REDACTED} and {REDACTED}!"
    # Values under eight characters are common words and numbers: they stay.
    assert redactor.text("debug on, ttl 1234567") == "debug on, ttl 1234567"
    data = {"a": ["x sk-ant-0123456789"], "data": "sk-ant-0123456789", "n": 3}
    assert redactor.data(data, skip={"data"}) == {"a": [f"x {REDACTED}"], "data": "sk-ant-0123456789", "n": 3}
    untouched = {"a": "nothing here"}
    assert redactor.data(untouched) is untouched
    assert not Redactor(["short"]) and Redactor().text("x") == "x"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("", SandboxPolicy()),
        ("sandbox: required", SandboxPolicy(mode="required")),
        ("sandbox: off", SandboxPolicy(mode="off")),  # YAML's boolean, read as the word
        ("sandbox: {mode: off}", SandboxPolicy(mode="off")),
        (
            "sandbox: {read: [~/data, /srv/x], write: [/tmp/out]}",
            SandboxPolicy(read=["~/data", "/srv/x"], write=["/tmp/out"]),
        ),
    ],
)
def test_the_sandbox_field_of_a_policy_file(text, expected):
    assert validate_file("policy", f"safety_level: default\n{text}\n", name="default").sandbox == expected


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        (
            "sandbox: strict",
            "policy/default.yaml: sandbox.mode: input should be 'auto', 'required' or 'off'",
        ),
        (
            "sandbox: {read: [data]}",
            "policy/default.yaml: sandbox.read: 'data' is not an absolute path (write it from / or from ~); "
            "the workspace itself is always writable",
        ),
        (
            "sandbox: {mdoe: off}",
            "policy/default.yaml: unknown field 'sandbox.mdoe' (allowed: mode, read, write)",
        ),
    ],
)
def test_a_bad_sandbox_field_is_refused_with_a_sentence(text, sentence):
    with pytest.raises(ConfigError) as caught:
        validate_file("policy", f"safety_level: default\n{text}\n", name="default")
    assert str(caught.value) == sentence
