"""Secrets: references only, resolved on demand, never stored, never printed."""

from __future__ import annotations

import pickle
import traceback

import pytest

from mewrk_jupyter.config import is_reference, load_config, resolve_secret, validate_file
from mewrk_jupyter.errors import ConfigError

from .conftest import ANTHROPIC

SECRET = "sk-ant-api03-TOPSECRET-0123456789"


def test_an_env_reference_is_read_only_when_resolved(home, write, monkeypatch):
    monkeypatch.delenv("ANTHROPIC_API_KEY", raising=False)
    write("llm/anthropic.yaml", ANTHROPIC)
    config = load_config(home)  # loading needs no secret at all
    vendor = config.vendor("anthropic")
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    assert vendor.resolve_api_key() == SECRET
    monkeypatch.setenv("ANTHROPIC_API_KEY", "rotated")
    assert vendor.resolve_api_key() == "rotated"  # read at use, not cached
    assert vendor.api_key == "${ANTHROPIC_API_KEY}"


def test_a_missing_env_var_names_the_reference(monkeypatch):
    monkeypatch.delenv("MEWRK_TEST_UNSET", raising=False)
    with pytest.raises(ConfigError) as err:
        resolve_secret("${MEWRK_TEST_UNSET}")
    assert (
        str(err.value)
        == "The secret ${MEWRK_TEST_UNSET} is not available: the environment variable is not set"
    )
    monkeypatch.setenv("MEWRK_TEST_UNSET", "")
    with pytest.raises(ConfigError, match="not set"):
        resolve_secret("${MEWRK_TEST_UNSET}")


def test_a_file_reference(tmp_path):
    key = tmp_path / "key"
    key.write_text(SECRET + "\n", encoding="utf-8")
    assert resolve_secret(f"@file:{key}") == SECRET
    with pytest.raises(ConfigError) as err:
        resolve_secret(f"@file:{tmp_path / 'nope'}")
    assert str(err.value) == f"The secret @file:{tmp_path / 'nope'} is not available: the file does not exist"
    (tmp_path / "empty").write_text("\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="the file is empty"):
        resolve_secret(f"@file:{tmp_path / 'empty'}")


def test_a_file_reference_under_home(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))
    (tmp_path / ".key").write_text(SECRET, encoding="utf-8")
    assert resolve_secret("@file:~/.key") == SECRET


def test_resolve_refuses_a_literal_without_echoing_it():
    with pytest.raises(ConfigError) as err:
        resolve_secret(SECRET)
    assert SECRET not in str(err.value)


@pytest.mark.parametrize(
    ("value", "ok"),
    [
        ("${A_B1}", True),
        ("@file:/x", True),
        ("${1A}", False),
        ("$A", False),
        ("@file:x", False),
        (None, False),
    ],
)
def test_is_reference(value, ok):
    assert is_reference(value) is ok


def test_no_resolved_secret_is_ever_on_the_config(home, write, tmp_path, monkeypatch):
    key = tmp_path / "openai.key"
    key.write_text("sk-proj-FILESECRET", encoding="utf-8")
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    monkeypatch.setenv("AUTH_HEADER", "Bearer HEADERSECRET")
    monkeypatch.setenv("SERVER_TOKEN", "TOKENSECRET")
    write("llm/anthropic.yaml", ANTHROPIC + "headers: {Authorization: '${AUTH_HEADER}'}\n")
    write("llm/openai.yaml", f"protocol: openai-responses\napi_key: '@file:{key}'\nmodels: {{gpt-5: {{}}}}\n")
    write("server/main.yaml", "port: 8888\ntoken: ${SERVER_TOKEN}\n")
    config = load_config(home)
    anthropic = config.vendor("anthropic")
    assert anthropic.resolve_api_key() == SECRET
    assert anthropic.resolve_headers() == {"Authorization": "Bearer HEADERSECRET"}
    assert config.vendor("openai").resolve_api_key() == "sk-proj-FILESECRET"
    assert resolve_secret(config.server.token) == "TOKENSECRET"
    views = [repr(config), str(config), config.model_dump_json(), str(config.model_dump()), repr(anthropic)]
    views.append(str(pickle.dumps(config)))
    for view in views:
        for secret in (SECRET, "HEADERSECRET", "FILESECRET", "TOKENSECRET"):
            assert secret not in view


def test_a_refused_literal_never_appears_in_the_error_or_its_traceback():
    text = f"protocol: anthropic-messages\napi_key: {SECRET}\nmodels: {{m: {{}}}}\n"
    with pytest.raises(ConfigError) as err:
        validate_file("llm", text, name="anthropic")
    assert SECRET not in str(err.value)
    printed = "".join(traceback.format_exception(err.type, err.value, err.tb))
    assert SECRET not in printed


def test_a_vendor_without_a_key_resolves_to_none():
    vendor = validate_file(
        "llm", "protocol: openai-chat\nbase_url: http://127.0.0.1:8000/v1\nmodels: {m: {}}\n", name="local"
    )
    assert vendor.resolve_api_key() is None
