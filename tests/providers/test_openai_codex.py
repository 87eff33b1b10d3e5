"""protocol openai-codex: the Responses wire at a Codex endpoint (a `/backend-api/codex` base path on the
local server), signed in with the Codex CLI's own login file, its models compacting natively."""

from __future__ import annotations

import base64
import json
import time

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.config import exposure_of, read_config
from mewrk_jupyter.config.environment import EnvironmentPolicy, secret_values
from mewrk_jupyter.engine.compaction.native import native_compaction
from mewrk_jupyter.errors import ConfigError

from ..native_parts import parts_of
from .wire import compact_reply, responses_function_call, responses_reply, responses_usage

ACCOUNT = "acct-test-42"
REFRESH = "rt-codex-refresh-SECRET-9f8e7d"


def jwt(claims: dict) -> str:
    """A JWT shaped as the ChatGPT login's (unsigned: the backend checks it, not we)."""
    return f"{_segment({'alg': 'RS256'})}.{_segment(claims)}.c2lnbmF0dXJl"


def _segment(data: dict) -> str:
    return base64.urlsafe_b64encode(json.dumps(data).encode()).rstrip(b"=").decode()


ACCESS = jwt({"exp": int(time.time()) + 3600, "https://api.openai.com/auth": {"chatgpt_account_id": ACCOUNT}})


@pytest.fixture
def codex_home(tmp_path, monkeypatch):
    """$CODEX_HOME with the login file `codex login` writes for a ChatGPT account."""
    home = tmp_path / "codex-home"
    home.mkdir()
    login = {
        "OPENAI_API_KEY": None,
        "tokens": {
            "id_token": jwt({}),
            "access_token": ACCESS,
            "refresh_token": REFRESH,
            "account_id": ACCOUNT,
        },
        "last_refresh": "2026-01-01T00:00:00Z",
    }
    (home / "auth.json").write_text(json.dumps(login))
    monkeypatch.setenv("CODEX_HOME", str(home))
    return home


def write_codex(workspace, base_url: str, credentials: str = "credentials: codex-cli\n") -> None:
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True, exist_ok=True)
    (llm / "codex.yaml").write_text(
        f"protocol: openai-codex\nbase_url: {base_url}\n{credentials}"
        "models:\n  gpt-5-codex: {context_window: 200000, thinking: signed}\n"
    )


@pytest.fixture
def codex(workspace, wire_server, codex_home):
    write_codex(workspace, wire_server.url + "/backend-api/codex")
    mw.trust()
    return wire_server


def test_a_streamed_turn_goes_to_the_codex_endpoint_with_the_cli_login(codex):
    codex.enqueue(responses_reply("Hello from Codex.", usage=responses_usage(100, 8)))
    s = mw.Session.new(model="codex/gpt-5-codex")
    s.send("hi")
    request = codex.last_request()
    assert request.path == "/backend-api/codex/responses"
    assert request.header("authorization") == f"Bearer {ACCESS}"
    assert request.header("chatgpt-account-id") == ACCOUNT
    assert request.json["model"] == "gpt-5-codex" and request.json["store"] is False
    assert s.cards[-1].text == "Hello from Codex." and s.history[-1].protocol == "openai-codex"
    assert ACCESS not in str(s.history[-1].request)


def test_a_tool_call_goes_round_through_the_codex_endpoint(codex):
    codex.enqueue(responses_reply(responses_function_call("ls", {"path": "."}, call_id="call_c1")))
    codex.enqueue(responses_reply("Nothing much here."))
    s = mw.Session.new(model="codex/gpt-5-codex")
    s.send("look around")
    second = codex.json_bodies()[1]["input"]
    call = next(item for item in second if item.get("type") == "function_call")
    output = next(item for item in second if item.get("type") == "function_call_output")
    assert (call["call_id"], call["name"], json.loads(call["arguments"])) == ("call_c1", "ls", {"path": "."})
    assert output["call_id"] == "call_c1"
    assert s.cards[-1].text == "Nothing much here."


def test_codex_models_compact_natively_by_default_at_the_codex_compact_endpoint(codex):
    s = mw.Session.new(model="codex/gpt-5-codex")
    assert s.settings.compaction == "native"
    codex.enqueue(responses_reply("Answer.", usage=responses_usage(3000, 20)))
    s.send("Question?")
    codex.enqueue(compact_reply(encrypted_content="enc-codex", usage=responses_usage(3100, 90)))
    card = native_compaction(parts_of(s))
    call = codex.last_request()
    assert call.path == "/backend-api/codex/responses/compact"
    assert call.header("authorization") == f"Bearer {ACCESS}" and call.header("chatgpt-account-id") == ACCOUNT
    assert card.kept == ["Question?"]
    new = mw.Session.new("codex/gpt-5-codex")
    new.stored_timeline.append(card)
    codex.enqueue(responses_reply("Going on."))
    new.send("Next?")
    assert {"type": "compaction", "encrypted_content": "enc-codex"} in codex.last_json()["input"]


def test_the_cli_login_is_a_secret_to_hide_and_trust_names_it(codex, workspace, codex_home):
    hidden = secret_values(EnvironmentPolicy(), workspace / ".mewrk")
    assert {ACCESS, REFRESH} <= hidden
    exposure = exposure_of(read_config(workspace / ".mewrk"))
    assert (
        f"the Codex CLI's login {codex_home / 'auth.json'} (llm/codex.yaml, credentials)" in exposure.secrets
    )


def test_a_missing_or_unreadable_login_file_is_a_sentence_and_nothing_is_sent(codex, codex_home):
    (codex_home / "auth.json").unlink()
    s = mw.Session.new(model="codex/gpt-5-codex")
    with pytest.raises(
        ConfigError, match=r"The Codex CLI's login file .*auth.json does not exist: run `codex login`"
    ):
        s.send("hi")
    (codex_home / "auth.json").write_text("not json")
    with pytest.raises(ConfigError, match=r"auth.json is not the JSON object it writes"):
        s.send()
    expired = jwt({"exp": int(time.time()) - 60})
    (codex_home / "auth.json").write_text(json.dumps({"tokens": {"access_token": expired}}))
    with pytest.raises(ConfigError, match=r"The Codex CLI's login in .* expired on"):
        s.send()
    assert codex.requests == []


def test_the_login_file_is_read_only_when_the_vendor_says_so(workspace, wire_server, codex_home, monkeypatch):
    monkeypatch.setenv("CODEX_TOKEN", "sk-codex-from-env")
    write_codex(workspace, wire_server.url + "/backend-api/codex", "api_key: ${CODEX_TOKEN}\n")
    mw.trust()
    assert ACCESS not in secret_values(EnvironmentPolicy(), workspace / ".mewrk")
    wire_server.enqueue(responses_reply("Keyed."))
    mw.Session.new(model="codex/gpt-5-codex").send("hi")
    request = wire_server.last_request()
    assert request.header("authorization") == "Bearer sk-codex-from-env"
    assert request.header("chatgpt-account-id") is None


def test_a_codex_file_needs_credentials():
    from mewrk_jupyter.config import validate_file

    with pytest.raises(ConfigError, match="protocol openai-codex needs credentials: codex-cli"):
        validate_file("llm", "protocol: openai-codex\nmodels: {m: {}}\n", name="codex")
    with pytest.raises(ConfigError, match="credentials is only for protocol openai-codex"):
        validate_file(
            "llm", "protocol: openai-responses\ncredentials: codex-cli\nmodels: {m: {}}\n", name="o"
        )
