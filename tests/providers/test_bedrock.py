"""Anthropic models on Amazon Bedrock (protocol bedrock) through the whole engine and the SDK's Bedrock
client, against the wire server speaking InvokeModelWithResponseStream: AWS event-stream frames back,
every request's SigV4 signature recomputed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.config import validate_file
from mewrk_jupyter.config.environment import EnvironmentPolicy, secret_values
from mewrk_jupyter.errors import ConfigError
from mewrk_jupyter.providers.base import Message, ModelRequest, TextDelta, TextPart
from mewrk_jupyter.providers.registry import resolve

from .wire import (
    WireServer,
    anthropic_reply,
    anthropic_text,
    anthropic_thinking,
    anthropic_tool_use,
    anthropic_usage,
    bedrock_reply,
    sigv4_problem,
)
from .wire.bedrock import ACCESS_KEY, REGION, SECRET_KEY

MODEL_ID = "anthropic.claude-sonnet-4-5-20250929-v1:0"
MODEL = f"bedrock/{MODEL_ID}"
VENDOR = f"""protocol: bedrock
aws_region: {REGION}
aws_access_key: ${{TEST_AWS_KEY}}
aws_secret_key: ${{TEST_AWS_SECRET}}
models:
  {MODEL_ID}: {{context_window: 200000, vision: true, thinking: signed}}
"""


def write_bedrock(workspace: Path, server: WireServer, text: str = VENDOR) -> None:
    """`.mewrk/llm/bedrock.yaml` pointing at the wire server, trusted (the person wrote it)."""
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True, exist_ok=True)
    (llm / "bedrock.yaml").write_text(f"base_url: {server.url}\n{text}")
    mw.trust(workspace)


@pytest.fixture
def bedrock(workspace: Path, wire_server: WireServer, monkeypatch: pytest.MonkeyPatch) -> WireServer:
    """A workspace whose llm/bedrock.yaml references AWS keys set in the environment."""
    monkeypatch.setenv("TEST_AWS_KEY", ACCESS_KEY)
    monkeypatch.setenv("TEST_AWS_SECRET", SECRET_KEY)
    monkeypatch.delenv("AWS_BEARER_TOKEN_BEDROCK", raising=False)
    write_bedrock(workspace, wire_server)
    return wire_server


def test_a_turn_streams_its_text_from_event_stream_frames_under_a_sigv4_signature(bedrock):
    bedrock.enqueue(
        bedrock_reply(
            anthropic_reply(
                anthropic_text("Hello from Bedrock.", chunks=["Hello ", "from ", "Bedrock."]),
                usage=anthropic_usage(120, 7, cache_read_input_tokens=30),
            )
        )
    )
    provider, info = resolve(MODEL, mw.Session.new(model=MODEL).workspace.home)
    request = ModelRequest(model=MODEL, messages=[Message(role="user", parts=[TextPart(text="hi")])])
    exchange = provider.open(request)
    pieces = [e.text for e in exchange.events() if isinstance(e, TextDelta)]
    assert pieces == ["Hello ", "from ", "Bedrock."] and info.protocol == "bedrock"

    sent = bedrock.last_request()
    assert (sent.method, sent.path) == ("POST", f"/model/{MODEL_ID}/invoke-with-response-stream")
    assert sigv4_problem(sent) is None
    assert sent.header("authorization").startswith(
        f"AWS4-HMAC-SHA256 Credential={ACCESS_KEY}/"
    ) and f"/{REGION}/bedrock/aws4_request" in sent.header("authorization")
    # The model is in the path and the stream is the endpoint's: the body has neither.
    assert "model" not in sent.json and "stream" not in sent.json and sent.json["anthropic_version"]
    assert exchange.body["model"] == MODEL_ID


def test_a_session_turn_becomes_cards_with_usage(bedrock):
    bedrock.enqueue(bedrock_reply(anthropic_reply("Hello.", usage=anthropic_usage(120, 7))))
    s = mw.Session.new(model=MODEL)
    s.send("hi")
    reply = s.cards[-1]
    assert (reply.kind, reply.text, reply.usage.input_tokens, reply.usage.output_tokens) == (
        "model_reply",
        "Hello.",
        120,
        7,
    )
    assert s.context.window == 200_000 and s.history[-1].protocol == "bedrock"


def test_a_tool_call_goes_round_trip(bedrock):
    bedrock.enqueue(
        bedrock_reply(anthropic_reply(anthropic_tool_use("ls", {"path": "."}, id="toolu_b1"))),
        bedrock_reply(anthropic_reply("The folder is empty.")),
    )
    s = mw.Session.new(model=MODEL)
    s.send("what is here?")
    call = next(c for c in s.cards if c.kind == "tool_call")
    assert (call.name, call.params) == ("ls", {"path": "."})
    second = bedrock.json_bodies()[1]["messages"]
    assert second[1]["content"] == [
        {"type": "tool_use", "id": "toolu_b1", "name": "ls", "input": {"path": "."}}
    ]
    result = second[2]["content"][0]
    assert (result["type"], result["tool_use_id"]) == ("tool_result", "toolu_b1")
    assert s.cards[-1].text == "The folder is empty."
    assert all(sigv4_problem(r) is None for r in bedrock.requests)


def test_signed_thinking_is_replayed_exactly_even_after_an_edit(bedrock):
    bedrock.enqueue(
        bedrock_reply(anthropic_reply(anthropic_thinking("Let me think.", "SIG-BEDROCK=="), "Answer.")),
        bedrock_reply(anthropic_reply("Again.")),
    )
    s = mw.Session.new(model=MODEL)
    s.send("question")
    thinking = s.cards[1]
    assert (thinking.kind, thinking.signature, thinking.signed_text, thinking.protocol) == (
        "thinking",
        "SIG-BEDROCK==",
        "Let me think.",
        "bedrock",
    )
    s.edit(thinking.id, text="What the person prefers to read")
    s.send("next")
    sent = bedrock.last_json()["messages"][1]["content"]
    assert sent[0] == {"type": "thinking", "thinking": "Let me think.", "signature": "SIG-BEDROCK=="}
    assert "What the person prefers" not in json.dumps(bedrock.last_json())


def test_reasoning_sets_the_thinking_budget(bedrock):
    bedrock.enqueue(bedrock_reply(anthropic_reply("ok")))
    s = mw.Session.new(model=MODEL)
    s.configure(reasoning="high")
    s.send("think hard")
    assert bedrock.last_json()["thinking"] == {"type": "enabled", "budget_tokens": 16384}


def test_a_session_token_is_signed_and_a_wrong_secret_is_refused_by_the_server(
    workspace, wire_server, monkeypatch
):
    monkeypatch.setenv("TEST_AWS_KEY", ACCESS_KEY)
    monkeypatch.setenv("TEST_AWS_SECRET", SECRET_KEY)
    monkeypatch.setenv("TEST_AWS_TOKEN", "session-token-example")
    write_bedrock(workspace, wire_server, VENDOR + "aws_session_token: ${TEST_AWS_TOKEN}\n")
    wire_server.enqueue(bedrock_reply(anthropic_reply("signed"), session_token="session-token-example"))
    s = mw.Session.new(model=MODEL)
    s.send("hi")
    assert s.cards[-1].text == "signed"
    assert sigv4_problem(wire_server.last_request(), session_token="session-token-example") is None

    monkeypatch.setenv("TEST_AWS_SECRET", "not-the-secret-the-server-knows")
    wire_server.enqueue(bedrock_reply(anthropic_reply("never"), session_token="session-token-example"))
    with pytest.raises(mw.ProviderError, match="403") as refused:
        s.send("again")
    assert "not-the-secret" not in str(refused.value)


def test_the_standard_aws_chain_signs_when_the_file_names_no_credentials(workspace, wire_server, monkeypatch):
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", ACCESS_KEY)
    monkeypatch.setenv("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
    monkeypatch.delenv("AWS_SESSION_TOKEN", raising=False)
    monkeypatch.delenv("AWS_PROFILE", raising=False)
    monkeypatch.delenv("AWS_BEARER_TOKEN_BEDROCK", raising=False)
    chain = "\n".join(
        line for line in VENDOR.splitlines() if "aws_access" not in line and "aws_secret" not in line
    )
    write_bedrock(workspace, wire_server, chain + "\n")
    wire_server.enqueue(bedrock_reply(anthropic_reply("from the chain")))
    s = mw.Session.new(model=MODEL)
    s.send("hi")
    assert s.cards[-1].text == "from the chain" and sigv4_problem(wire_server.last_request()) is None


def test_a_bedrock_api_key_goes_as_the_bearer_token(workspace, wire_server, monkeypatch):
    monkeypatch.setenv("TEST_BEDROCK_KEY", "bedrock-api-key-example")
    monkeypatch.delenv("AWS_BEARER_TOKEN_BEDROCK", raising=False)
    text = f"protocol: bedrock\naws_region: {REGION}\napi_key: ${{TEST_BEDROCK_KEY}}\nmodels: {{{MODEL_ID}: {{}}}}\n"
    write_bedrock(workspace, wire_server, text)
    wire_server.enqueue(bedrock_reply(anthropic_reply("by key"), bearer="bedrock-api-key-example"))
    s = mw.Session.new(model=MODEL)
    s.send("hi")
    assert s.cards[-1].text == "by key"


def test_a_bearer_token_in_the_environment_beside_the_files_keys_is_a_sentence(bedrock, monkeypatch):
    monkeypatch.setenv("AWS_BEARER_TOKEN_BEDROCK", "bedrock-api-key-example")
    s = mw.Session.new(model=MODEL)
    with pytest.raises(mw.ConfigError, match="AWS_BEARER_TOKEN_BEDROCK is set in the environment"):
        s.send("hi")
    assert bedrock.requests == []


def test_without_botocore_the_first_request_says_what_to_install(bedrock, monkeypatch):
    monkeypatch.setitem(sys.modules, "botocore", None)
    s = mw.Session.new(model=MODEL)
    with pytest.raises(mw.ConfigError, match=r"pip install 'mewrk_jupyter\[bedrock\]'"):
        s.send("hi")


def test_an_exception_frame_mid_stream_ends_the_turn_with_a_sentence(bedrock):
    bedrock.enqueue(
        bedrock_reply(anthropic_reply("Half a reply"), exception=("throttlingException", "Too many requests"))
    )
    s = mw.Session.new(model=MODEL)
    with pytest.raises(mw.ProviderError, match="Too many requests"):
        s.send("go")
    assert s.state == "idle"


def test_a_stream_that_stops_early_keeps_the_partial_reply_with_a_sentence(bedrock):
    bedrock.enqueue(bedrock_reply(anthropic_reply("A reply cut short."), cut_after=4, cut_cleanly=True))
    s = mw.Session.new(model=MODEL)
    with pytest.raises(mw.ProviderError, match="ended before the reply was complete"):
        s.send("go")
    assert s.cards[-1].kind == "model_reply" and s.cards[-1].text


def test_a_credential_read_at_the_request_names_its_reference_when_unset(bedrock, monkeypatch):
    monkeypatch.delenv("TEST_AWS_SECRET")
    s = mw.Session.new(model=MODEL)
    with pytest.raises(mw.ConfigError, match=r"The secret \$\{TEST_AWS_SECRET\} is not available"):
        s.send("hi")
    assert bedrock.requests == []


# ---- the vendor file ---------------------------------------------------------------------------------


def test_the_region_is_required_with_a_sentence():
    text = "protocol: bedrock\nmodels: {m: {}}\n"
    with pytest.raises(ConfigError, match="llm/b.yaml: protocol bedrock needs aws_region"):
        validate_file("llm", text, name="b")
    with pytest.raises(ConfigError, match="'Virginia' is not an AWS region's name"):
        validate_file("llm", "protocol: bedrock\naws_region: Virginia\nmodels: {m: {}}\n", name="b")


@pytest.mark.parametrize("field", ["aws_access_key", "aws_secret_key", "aws_session_token"])
def test_a_literal_aws_credential_is_refused_without_echoing_it(field):
    literal = "AKIAIOSFODNN7EXAMPLE" if field == "aws_access_key" else "wJalrXUtnFEMI/K7MDENG+bPxRfiCY"
    text = f"protocol: bedrock\naws_region: us-east-1\n{field}: {literal}\nmodels: {{m: {{}}}}\n"
    with pytest.raises(ConfigError, match=f"{field} must be a reference, not a literal") as refused:
        validate_file("llm", text, name="b")
    assert literal not in str(refused.value)


@pytest.mark.parametrize(
    ("lines", "sentence"),
    [
        ("aws_access_key: ${K}\n", "aws_access_key and aws_secret_key go together"),
        ("aws_session_token: ${T}\n", "aws_session_token goes with aws_access_key"),
        (
            "aws_profile: work\naws_access_key: ${K}\naws_secret_key: ${S}\n",
            "aws_access_key and aws_profile are two ways to sign the requests",
        ),
        ("models: {m: {thinking: plain}}\n", "Claude on Bedrock signs its thinking"),
        ("models: {m: {native_compaction: true}}\n", "protocol bedrock offers no compaction"),
    ],
)
def test_settings_that_cannot_act_are_refused_with_a_sentence(lines, sentence):
    models = "" if lines.startswith("models") else "models: {m: {}}\n"
    text = f"protocol: bedrock\naws_region: eu-west-3\n{lines}{models}"
    with pytest.raises(ConfigError, match=sentence):
        validate_file("llm", text, name="b")


def test_aws_fields_are_only_for_bedrock():
    text = "protocol: anthropic-messages\naws_region: us-east-1\nmodels: {m: {}}\n"
    with pytest.raises(ConfigError, match="aws_region is only for protocol bedrock"):
        validate_file("llm", text, name="a")


def test_the_trust_sentence_names_the_region_endpoint_and_the_credentials(workspace):
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "bedrock.yaml").write_text(VENDOR)
    (llm / "chain.yaml").write_text(
        f"protocol: bedrock\naws_region: eu-west-3\nmodels: {{{MODEL_ID}: {{}}}}\n"
    )
    with pytest.raises(mw.WorkspaceNotTrusted) as untrusted:
        mw.Session.new(model=MODEL).send("hi")
    sentence = str(untrusted.value)
    assert "https://bedrock-runtime.us-east-1.amazonaws.com (llm/bedrock.yaml)" in sentence
    assert "${TEST_AWS_KEY} (llm/bedrock.yaml, aws_access_key)" in sentence
    assert "${TEST_AWS_SECRET} (llm/bedrock.yaml, aws_secret_key)" in sentence
    assert "https://bedrock-runtime.eu-west-3.amazonaws.com (llm/chain.yaml)" in sentence
    assert "the AWS credentials found the standard way" in sentence


def test_referenced_aws_secrets_are_known_secrets(bedrock, workspace):
    hidden = secret_values(EnvironmentPolicy(), workspace / ".mewrk")
    assert {ACCESS_KEY, SECRET_KEY} <= hidden


def test_importing_the_package_and_the_adapter_imports_neither_boto3_nor_botocore():
    code = (
        "import sys, mewrk_jupyter, mewrk_jupyter.providers.bedrock\n"
        "print(sorted(m for m in ('boto3', 'botocore') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_readme_example_is_a_valid_vendor_file():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    block = readme.split("# .mewrk/llm/bedrock.yaml\n", 1)[1].split("```", 1)[0]
    vendor = validate_file("llm", block, name="bedrock")
    assert (vendor.protocol, vendor.aws_region, list(vendor.models)) == ("bedrock", "us-east-1", [MODEL_ID])
    assert (vendor.aws_access_key, vendor.aws_secret_key) == (
        "${AWS_ACCESS_KEY_ID}",
        "${AWS_SECRET_ACCESS_KEY}",
    )
