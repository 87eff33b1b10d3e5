"""The environment policy of a safety level, the references it finds, and the redaction of secret values."""

from __future__ import annotations

import base64
import codecs
import json
import random
import urllib.parse
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

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


# Property tests: random keys (made from a drawn seed, so that shrinking keeps them random) in random
# surroundings, in every form the attack runs printed them.
ROOT = Path(__file__).resolve().parents[2]
PROPERTIES = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def a_key(seed: int, length: int) -> str:
    """A key as vendors make them: a prefix and random characters of the URL-safe base64 alphabet."""
    rng = random.Random(seed)
    body = base64.urlsafe_b64encode(rng.randbytes(length)).decode().rstrip("=")
    return rng.choice(["sk-ant-api03-", "ghp_", "cred-", ""]) + body[:length]


def middle(encoded: str, bits: int, before: int, size: int) -> str:
    """The characters of an encoding made of the key's bits alone (the key's bytes from `before`)."""
    return encoded[-(-8 * before // bits) : 8 * (before + size) // bits]


def wrapped(text: str, width: int) -> str:
    return "\n".join(text[i : i + width] for i in range(0, len(text), width))


ENCODINGS = {
    "hex": lambda blob: blob.hex(),
    "HEX": lambda blob: blob.hex().upper(),
    "xxd -p": lambda blob: wrapped(blob.hex(), 60),
    "od": lambda blob: " ".join(f"{b:02x}" for b in blob),
    "base64": lambda blob: base64.b64encode(blob).decode(),
    "base64 wrapped": lambda blob: wrapped(base64.b64encode(blob).decode(), 76),
    "urlsafe base64": lambda blob: base64.urlsafe_b64encode(blob).decode(),
    "base32": lambda blob: base64.b32encode(blob).decode(),
}
BITS = {"base64": 6, "base32": 5}


@PROPERTIES
@given(
    seed=st.integers(),
    length=st.integers(8, 90),
    before=st.binary(max_size=7),
    after=st.binary(max_size=7),
    encoding=st.sampled_from(sorted(ENCODINGS)),
)
def test_a_key_encoded_inside_any_bytes_at_any_offset_is_redacted(seed, length, before, after, encoding):
    key = a_key(seed, length)
    redactor = Redactor([key])
    out = redactor.text(ENCODINGS[encoding](before + key.encode() + after))
    assert REDACTED in out and not redactor.found_in(out)
    flat = "".join(out.split()).lower()
    if encoding in ("hex", "HEX", "xxd -p", "od"):
        assert key.encode().hex() not in flat.replace(" ", "")
    else:
        name = "base32" if encoding == "base32" else "base64"
        whole = ENCODINGS[encoding](before + key.encode() + after)
        core = middle("".join(whole.split()), BITS[name], len(before), len(key))
        assert core.lower() not in flat


TEXT_FORMS = {
    "as it is": lambda key: key,
    "reversed": lambda key: key[::-1],
    "rot13": lambda key: codecs.encode(key, "rot13"),
    "percent-encoded": lambda key: urllib.parse.quote(key + "/=", safe=""),
    "every character percent-encoded": lambda key: "".join(f"%{b:02X}" for b in key.encode()),
    "Python's list": lambda key: str(list(key)),
    "folded at 20": lambda key: wrapped(key, 20),
}


@PROPERTIES
@given(
    seed=st.integers(),
    length=st.integers(8, 90),
    around=st.tuples(st.text(max_size=30), st.text(max_size=30)),
    form=st.sampled_from(sorted(TEXT_FORMS)),
)
def test_a_key_in_any_text_form_amid_any_text_is_redacted(seed, length, around, form):
    key = a_key(seed, length)
    redactor = Redactor([key])
    shown = TEXT_FORMS[form](key)
    out = redactor.text(around[0] + shown + around[1])
    assert REDACTED in out and shown not in out and not redactor.found_in(out)


@PROPERTIES
@given(
    seed=st.integers(),
    length=st.integers(8, 90),
    separator=st.sampled_from([" ", "\n", ",", ", ", "-", " | ", "\t"]),
)
def test_a_key_spaced_out_by_a_separator_is_redacted(seed, length, separator):
    key = a_key(seed, length)
    out = Redactor([key]).text(f"got: {separator.join(key)}{separator} end")
    assert out.startswith("got: ") and out.endswith(" end") and REDACTED in out
    assert key[: len(key) // 2] not in "".join(out.split(separator.strip() or None))


# Derandomized: about one random key of 24 characters in 1,400 has letters enough in word-like runs to be
# taken for a passphrase, whose pieces are ordinary text; its whole forms are hidden still.
@settings(PROPERTIES, derandomize=True)
@given(seed=st.integers(), length=st.integers(24, 110), cut=st.data(), around=st.text(max_size=20))
def test_either_half_of_a_long_key_is_redacted_alone(seed, length, cut, around):
    """Printed in two calls, each part of a key of 24 or more of at least 16 characters (or half) is hidden."""
    key = a_key(seed, length)
    least = min(16, len(key) // 2)
    at = cut.draw(st.integers(least, len(key) - least))
    redactor = Redactor([key])
    for half in (key[:at], key[at:]):
        out = redactor.text(f"{around} {half} {around}")
        assert out == f"{around} {REDACTED} {around}" or half not in out and REDACTED in out


@PROPERTIES
@given(secret=st.text(min_size=8, max_size=60).filter(lambda s: s.strip() == s), around=st.text(max_size=10))
def test_a_secret_of_any_characters_is_hidden_as_it_is_and_as_json_and_python_escape_it(secret, around):
    redactor = Redactor([secret])
    for shown in (secret, json.dumps(secret), repr(secret)):
        out = redactor.text(around + shown + around)
        assert REDACTED in out and secret not in out


ORDINARY = [
    (ROOT / "README.md").read_text(encoding="utf-8"),
    (ROOT / "mewrk_jupyter" / "engine" / "session.py").read_text(encoding="utf-8"),
    (ROOT / "mewrk_jupyter" / "config" / "environment.py").read_text(encoding="utf-8"),
]


@settings(max_examples=25, deadline=None)
@given(seeds=st.lists(st.integers(), min_size=1, max_size=5), lengths=st.integers(8, 110))
def test_english_prose_and_python_code_without_a_key_are_left_as_they_are(seeds, lengths):
    redactor = Redactor([a_key(seed, lengths) for seed in seeds])
    for text in ORDINARY:
        assert redactor.text(text) == text


def test_a_key_file_s_boilerplate_is_no_piece_of_it():
    body = wrapped(base64.b64encode(random.Random(7).randbytes(600)).decode(), 64)
    pem = f"-----BEGIN PRIVATE KEY-----\n{body}\n-----END PRIVATE KEY-----"
    redactor = Redactor([pem])
    said = "A key file starts with -----BEGIN PRIVATE KEY----- and ends with -----END PRIVATE KEY-----."
    assert redactor.text(said) == said
    assert redactor.text(f"it is {pem}!") == f"it is {REDACTED}!"
    line = body.splitlines()[3]
    assert redactor.text(f"one line: {line}") == f"one line: {REDACTED}"


def test_a_secret_of_words_is_hidden_whole_and_its_pieces_are_left_to_ordinary_text():
    # A dropped variable may hold a path or a passphrase: what it shares with other text is no secret.
    redactor = Redactor(["/home/someone/.cache/huggingface/token", "correct-horse-battery-staple"])
    listing = "/home/someone/.cache/huggingface/hub\n/home/someone/.cache/pip\ncorrect-horse-battery-stable"
    assert redactor.text(listing) == listing
    assert (
        redactor.text("HF_TOKEN_PATH=/home/someone/.cache/huggingface/token") == f"HF_TOKEN_PATH={REDACTED}"
    )
