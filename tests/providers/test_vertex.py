"""protocol vertex: Anthropic's models on Google Vertex AI through the SDK's `AnthropicVertex`, through the
whole engine, against a local server that speaks Vertex's address, body and Anthropic's SSE."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.config import exposure_of, load_config, read_config, validate_file
from mewrk_jupyter.config.environment import EnvironmentPolicy, secret_values
from mewrk_jupyter.errors import ConfigError

from .wire import anthropic_thinking, anthropic_tool_use, anthropic_usage, google_token_reply, vertex_reply
from .wire.vertex import VERTEX_VERSION, vertex_address

TOKEN = "ya29.vertex-test-token-123"
VENDOR = (
    "protocol: vertex\n"
    "project_id: my-project\n"
    "region: us-east5\n"
    "{base}"
    "{credentials}"
    "models:\n"
    "  claude-test: {{context_window: 200000, thinking: signed}}\n"
)


def write_vertex(workspace, base_url: str | None, credentials: str = "access_token: ${TEST_VERTEX_TOKEN}\n"):
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True, exist_ok=True)
    base = f"base_url: {base_url}\n" if base_url else ""
    (llm / "vertex.yaml").write_text(VENDOR.format(base=base, credentials=credentials))


@pytest.fixture
def vertex(workspace, wire_server, monkeypatch):
    """llm/vertex.yaml pointing the SDK's Vertex client at the wire server, with an access token."""
    monkeypatch.setenv("TEST_VERTEX_TOKEN", TOKEN)
    write_vertex(workspace, wire_server.url + "/v1")
    mw.trust()
    return wire_server


def test_a_streamed_turn_goes_to_the_models_vertex_address_with_the_vertex_body(vertex):
    vertex.enqueue(vertex_reply("Hello from Vertex.", usage=anthropic_usage(120, 7)))
    s = mw.Session.new(model="vertex/claude-test")
    s.send("hi")
    request = vertex.last_request()
    assert vertex_address(request) == {
        "project": "my-project",
        "region": "us-east5",
        "model": "claude-test",
        "method": "streamRawPredict",
    }
    assert request.header("authorization") == f"Bearer {TOKEN}"
    body = request.json
    assert body["anthropic_version"] == VERTEX_VERSION and "model" not in body and body["stream"] is True
    assert body["messages"][-1]["content"][-1]["text"] == "hi"
    reply = s.cards[-1]
    assert (reply.kind, reply.text, reply.usage.input_tokens) == ("model_reply", "Hello from Vertex.", 120)
    assert s.history[-1].protocol == "vertex"
    assert TOKEN not in str(s.history[-1].request)


def test_a_tool_call_goes_round_and_its_result_comes_back_in_the_next_request(vertex):
    vertex.enqueue(vertex_reply(anthropic_tool_use("ls", {"path": "."}, id="toolu_v1")))
    vertex.enqueue(vertex_reply("There is nothing much here."))
    s = mw.Session.new(model="vertex/claude-test")
    s.send("look around")
    second = vertex.json_bodies()[1]["messages"]
    assert second[1]["content"] == [
        {"type": "tool_use", "id": "toolu_v1", "name": "ls", "input": {"path": "."}}
    ]
    result = second[2]["content"][0]
    assert (result["type"], result["tool_use_id"]) == ("tool_result", "toolu_v1")
    assert [c.kind for c in s.cards][-2:] == ["tool_call", "model_reply"]
    assert s.cards[-1].text == "There is nothing much here."


def test_signed_thinking_goes_back_to_vertex_byte_for_byte(vertex):
    vertex.enqueue(vertex_reply(anthropic_thinking("Let me think.", "SIG-V1"), "Answer."))
    vertex.enqueue(vertex_reply("Again."))
    s = mw.Session.new(model="vertex/claude-test")
    s.configure(reasoning="low")
    s.send("question")
    assert vertex.json_bodies()[0]["thinking"]["type"] == "enabled"
    thinking = s.cards[1]
    assert (thinking.kind, thinking.signature, thinking.protocol) == ("thinking", "SIG-V1", "vertex")
    s.edit(thinking.id, text="What the person prefers to read")
    s.send("next")
    sent = vertex.last_json()["messages"][1]["content"]
    assert sent[0] == {"type": "thinking", "thinking": "Let me think.", "signature": "SIG-V1"}


def test_a_service_account_key_file_signs_in_through_googles_token_endpoint(workspace, wire_server, tmp_path):
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import rsa

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    account = {
        "type": "service_account",
        "project_id": "my-project",
        "private_key_id": "k1",
        "private_key": pem,
        "client_email": "agent@my-project.iam.gserviceaccount.com",
        "client_id": "1",
        "token_uri": wire_server.url + "/token",
    }
    key_file = tmp_path / "sa.json"
    key_file.write_text(json.dumps(account))
    write_vertex(workspace, wire_server.url + "/v1", f"service_account: '@file:{key_file}'\n")
    mw.trust()
    wire_server.enqueue(google_token_reply("ya29.from-the-key"), vertex_reply("One."), vertex_reply("Two."))
    s = mw.Session.new(model="vertex/claude-test")
    s.send("first")
    s.send("second")  # the token is kept by Google's credentials until it expires: one grant
    grant, first, second = wire_server.requests
    assert grant.path == "/token" and b"jwt-bearer" in grant.raw_body
    assert first.header("authorization") == second.header("authorization") == "Bearer ya29.from-the-key"
    # The key's private part is hidden wherever it turns up, not only the whole file.
    assert pem.strip() in secret_values(EnvironmentPolicy(), workspace / ".mewrk")


def test_without_credentials_googles_default_chain_is_asked_and_its_failure_is_a_sentence(
    workspace, wire_server, monkeypatch, tmp_path
):
    monkeypatch.setenv("GOOGLE_APPLICATION_CREDENTIALS", str(tmp_path / "none.json"))
    write_vertex(workspace, wire_server.url + "/v1", "")
    mw.trust()
    s = mw.Session.new(model="vertex/claude-test")
    with pytest.raises(ConfigError, match=r"Vertex AI found no Google credentials: run `gcloud auth"):
        s.send("hi")
    assert wire_server.requests == []


@pytest.mark.parametrize(
    ("text", "sentence"),
    [
        (
            "protocol: vertex\nregion: us-east5\nmodels: {c: {}}\n",
            "protocol vertex needs project_id (the Google Cloud project of the models)",
        ),
        (
            "protocol: vertex\nproject_id: p-1\nmodels: {c: {}}\n",
            "protocol vertex needs region (the Vertex AI location, e.g. us-east5 or global)",
        ),
        (
            "protocol: vertex\nproject_id: p-1\nregion: x\naccess_token: ya29.a0AfH6SMBq3xR7tLmN2pQ8vW\nmodels: {c: {}}\n",
            "access_token must be a reference, not a literal",
        ),
        (
            "protocol: vertex\nproject_id: p-1\nregion: x\napi_key: ${K}\nmodels: {c: {}}\n",
            "protocol vertex signs in with Google",
        ),
        (
            "protocol: anthropic-messages\nregion: us-east5\nmodels: {c: {}}\n",
            "region is only for protocol vertex",
        ),
        (
            "protocol: vertex\nproject_id: p-1\nregion: evil.com/x\nmodels: {c: {}}\n",
            "region must be a Google",
        ),
    ],
)
def test_a_vertex_file_without_project_or_region_or_with_a_literal_is_refused(text, sentence):
    with pytest.raises(ConfigError) as refused:
        validate_file("llm", text, name="vertex")
    assert str(refused.value).startswith(f"llm/vertex.yaml: {sentence}")


def test_trusting_a_vertex_folder_names_its_endpoint_project_and_credentials(workspace):
    write_vertex(workspace, None)
    exposure = exposure_of(read_config(workspace / ".mewrk"))
    assert exposure.servers == (
        "https://us-east5-aiplatform.googleapis.com for the Google Cloud project my-project (llm/vertex.yaml)",
    )
    assert exposure.secrets == ("${TEST_VERTEX_TOKEN} (llm/vertex.yaml, access_token)",)
    write_vertex(workspace, None, "")
    exposure = exposure_of(read_config(workspace / ".mewrk"))
    assert exposure.needs_trust
    assert exposure.secrets == ("Google's application default credentials (llm/vertex.yaml)",)
    assert load_config(workspace / ".mewrk").vendor("vertex").protocol == "vertex"


def test_importing_the_package_does_not_import_google_auth():
    code = "import sys, mewrk_jupyter\nprint(sorted(m for m in sys.modules if m.startswith('google.auth')))"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
