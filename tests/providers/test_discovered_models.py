"""A server that lists its own models (P5, `models: discover`): vLLM's, llama.cpp's and Ollama's lists
through the real `openai` SDK against the local wire server, their windows on the dashboard, trust, a
server that is down and the listing kept per vendor."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.config import InvalidConfig, validate_file
from mewrk_jupyter.errors import ConfigError, WorkspaceNotTrusted
from mewrk_jupyter.providers.catalog import model_names
from mewrk_jupyter.widget.commands import run_command
from mewrk_jupyter.widget.settings import conversation_info

from ..ports import free_port
from .wire import (
    WireServer,
    chat_reply,
    llamacpp_model,
    models_reply,
    ollama_model,
    openai_error,
    vllm_model,
)

KEY = "sk-local-SECRET-key-789"
OFFLINE = ["offline/echo", "offline/thinker", "offline/slow", "offline/tiny", "offline/big"]
README = Path(__file__).resolve().parents[2] / "README.md"


def write_local(workspace: Path, base_url: str, *, trust: bool = True, name: str = "local") -> Path:
    """`.mewrk/llm/<name>.yaml` with `models: discover`, a key reference and a header, trusted unless asked."""
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True, exist_ok=True)
    path = llm / f"{name}.yaml"
    path.write_text(
        "protocol: openai-chat\n"
        f"base_url: {base_url}\n"
        "api_key: ${LOCAL_KEY}\n"
        "headers: {X-Team: notebooks}\n"
        "models: discover\n"
    )
    if trust:
        mw.trust(workspace)
    return path


@pytest.fixture
def local(workspace: Path, wire_server: WireServer, monkeypatch: pytest.MonkeyPatch) -> WireServer:
    """A trusted folder whose `llm/local.yaml` discovers the models of the wire server."""
    monkeypatch.setenv("LOCAL_KEY", KEY)
    write_local(workspace, wire_server.openai_base_url)
    return wire_server


def listings(server: WireServer) -> list[str]:
    """The requests for the list of models the server received, as `METHOD path`."""
    return [f"{r.method} {r.path}" for r in server.requests if r.route == "openai.models"]


def test_vllm_models_are_listed_with_their_window_and_a_turn_streams_with_one(local, workspace):
    local.enqueue(models_reply(vllm_model("Qwen/Qwen3-8B", 32768), vllm_model("Qwen/Qwen3-0.6B", 8192)))
    s = mw.Session.new(model="local/Qwen/Qwen3-8B")
    assert s.context.window == 32768  # the dashboard's ring has the server's window
    assert model_names(workspace / ".mewrk") == ["local/Qwen/Qwen3-8B", "local/Qwen/Qwen3-0.6B", *OFFLINE]
    local.enqueue(chat_reply("Hello from vLLM."))
    s.send("hi")
    assert s.cards[-1].text == "Hello from vLLM."
    body = local.last_json()
    assert body["model"] == "Qwen/Qwen3-8B" and body["messages"][-1] == {"role": "user", "content": "hi"}
    listing = local.requests[0]
    # The list is asked for as the chat requests go: the vendor's address, key and headers, by the SDK.
    assert (listing.method, listing.path) == ("GET", "/v1/models")
    assert listing.header("authorization") == f"Bearer {KEY}"
    assert listing.header("x-team") == "notebooks"
    assert listing.header("user-agent").startswith("OpenAI/Python")
    assert listings(local) == ["GET /v1/models"]  # the session, the catalog and the turn: one listing


def test_llamacpp_reports_the_trained_window_and_the_settings_offer_its_models(local, workspace):
    local.enqueue(models_reply(llamacpp_model("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", 131072)))
    s = mw.Session.new()
    assert conversation_info(s).choices["model"] == ["local/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", *OFFLINE]
    said = run_command(s, "/set model local/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf").message
    assert "local/Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf" in said
    assert s.model_info.context_window == s.context.window == 131072
    assert listings(local) == ["GET /v1/models"]


def test_ollama_gives_no_window_so_the_dashboard_counts_tokens_only(local):
    local.enqueue(models_reply(ollama_model("llama3.2:latest"), ollama_model("qwen2.5-coder:7b")))
    s = mw.Session.new(model="local/qwen2.5-coder:7b")
    local.enqueue(chat_reply("Hello from Ollama."))
    s.send("hi")
    assert s.context.window is None and s.context.used > 0
    assert local.last_json()["model"] == "qwen2.5-coder:7b"
    assert s.cards[-1].text == "Hello from Ollama."


def test_a_model_the_server_does_not_list_is_refused_with_the_list(local):
    local.enqueue(models_reply(ollama_model("llama3.2:latest")))
    with pytest.raises(ConfigError) as refused:
        mw.Session.new(model="local/mistral")
    assert str(refused.value) == (
        "The model `local/mistral` is not among the models the server of `.mewrk/llm/local.yaml` lists "
        f"({local.openai_base_url}): `local/llama3.2:latest`."
    )


def test_the_listing_is_kept_until_a_new_session_or_a_saved_file(local, workspace):
    local.enqueue(models_reply(ollama_model("llama3.2:latest")))
    s = mw.Session.new()
    home = workspace / ".mewrk"
    assert model_names(home)[0] == "local/llama3.2:latest"
    assert model_names(home)[0] == "local/llama3.2:latest"
    assert conversation_info(s).choices["model"][0] == "local/llama3.2:latest"
    assert listings(local) == ["GET /v1/models"]  # asked once for all of these
    # A model pulled since shows up in the next session.
    local.enqueue(models_reply(ollama_model("llama3.2:latest"), ollama_model("gemma3:4b")))
    mw.Session.new()
    assert model_names(home)[:2] == ["local/llama3.2:latest", "local/gemma3:4b"]
    assert len(listings(local)) == 2
    # And after the vendor's file is saved (trusted again, as after any change to it).
    write_local(workspace, local.openai_base_url)
    local.enqueue(models_reply(ollama_model("gemma3:4b")))
    assert model_names(home)[0] == "local/gemma3:4b"
    assert len(listings(local)) == 3


def test_an_untrusted_folder_asks_the_server_nothing(workspace, wire_server, monkeypatch):
    monkeypatch.setenv("LOCAL_KEY", KEY)
    write_local(workspace, wire_server.openai_base_url, trust=False)
    assert model_names(workspace / ".mewrk") == OFFLINE
    with pytest.warns(mw.ConfigNotice, match="is not trusted yet"):
        s = mw.Session.new()
    assert conversation_info(s).choices["model"] == OFFLINE
    with pytest.raises(WorkspaceNotTrusted):
        mw.Session.new(model="local/llama3.2:latest")
    with pytest.raises(WorkspaceNotTrusted):
        run_command(s, "/set model local/llama3.2:latest")
    assert wire_server.requests == []


def test_discover_is_refused_for_a_protocol_without_a_list(workspace, wire_server):
    with pytest.raises(InvalidConfig) as refused:
        validate_file("llm", "protocol: anthropic-messages\nmodels: discover\n", name="claude")
    assert str(refused.value) == (
        "llm/claude.yaml: models: discover is only for protocol openai-chat, whose servers list their models "
        "(GET /v1/models); protocol anthropic-messages has no such list, so name its models under models:"
    )
    # OpenAI's own list is not a list of chat models: a discovering vendor names its server.
    with pytest.raises(InvalidConfig, match=r"models: discover lists the models of the server at base_url"):
        validate_file("llm", "protocol: openai-chat\nmodels: discover\n", name="local")
    with pytest.raises(
        InvalidConfig, match=r"models must map each model's name to its settings, or be `discover`"
    ):
        validate_file("llm", "protocol: openai-chat\nmodels: discovered\n", name="local")
    # In a folder, only that file is left out: the notice says why, and nothing is asked.
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "claude.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {wire_server.url}\nmodels: discover\n"
    )
    mw.trust()
    with pytest.warns(
        mw.ConfigNotice, match=r"llm/claude.yaml: models: discover is only for protocol openai-chat"
    ):
        mw.Session.new()
    assert model_names(workspace / ".mewrk") == OFFLINE and wire_server.requests == []


def test_a_server_that_is_down_is_said_and_the_rest_keeps_working(workspace, wire_server, monkeypatch):
    monkeypatch.setenv("LOCAL_KEY", KEY)
    down = f"http://127.0.0.1:{free_port()}/v1"
    write_local(workspace, down, trust=False)
    llm = workspace / ".mewrk" / "llm"
    (llm / "chat.yaml").write_text(
        f"protocol: openai-chat\nbase_url: {wire_server.openai_base_url}\nmodels:\n  m: {{context_window: 1000}}\n"
    )
    mw.trust()
    sentence = (
        f"llm/local.yaml says models: discover, but the server at {down} gave no list of its models "
        "(nothing answers there); its models are not offered until it does — start it or fix base_url, "
        "then open a new session."
    )
    with pytest.warns(mw.ConfigNotice, match=re.escape(sentence)):
        s = mw.Session.new(model="chat/m")
    assert model_names(workspace / ".mewrk") == ["chat/m", *OFFLINE]
    with pytest.raises(ConfigError) as refused:
        run_command(s, "/set model local/llama3.2:latest")
    assert str(refused.value) == sentence and KEY not in sentence
    wire_server.enqueue(chat_reply("Still here."))
    s.send("hi")
    assert s.cards[-1].text == "Still here."
    with pytest.warns(mw.ConfigNotice, match=re.escape(sentence)):  # a new session asks again
        offline = mw.Session.new(model="offline/echo")
    offline.send("fine")
    assert "fine" in offline.cards[-1].text


def test_an_agent_files_model_on_a_server_that_is_down_leaves_the_session_on_the_offline_model(
    workspace, monkeypatch
):
    monkeypatch.setenv("LOCAL_KEY", KEY)
    down = f"http://127.0.0.1:{free_port()}/v1"
    write_local(workspace, down, trust=False)
    (workspace / ".mewrk" / "agents").mkdir()
    (workspace / ".mewrk" / "agents" / "main.yaml").write_text("model: local/llama3.2:latest\n")
    mw.trust()
    with pytest.warns(mw.ConfigNotice) as told:
        s = mw.Session.new()
    assert s.settings.model == "offline/echo"
    assert "Until it answers, this session runs on offline/echo instead of local/llama3.2:latest." in [
        str(w.message) for w in told
    ]
    s.send("hi")
    assert s.cards[-1].kind == "model_reply"


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (openai_error(503, "Loading model"), "it answered HTTP 503: Loading model"),
        (models_reply(), "it lists no models"),
    ],
)
def test_a_server_that_refuses_or_lists_nothing_is_said(local, answer, why):
    local.enqueue(answer)
    with pytest.warns(mw.ConfigNotice) as told:
        mw.Session.new()
    said = [str(w.message) for w in told]
    assert any(f"the server at {local.openai_base_url} gave no list of its models ({why})" in m for m in said)
    assert listings(local) == ["GET /v1/models"]  # no retry: the sentence is the answer


@pytest.mark.parametrize(
    ("vendor", "listed"),
    [("ollama", ollama_model("llama3.2")), ("llamacpp", llamacpp_model("qwen2.5-7b-instruct", 32768))],
)
def test_the_readme_configurations_are_valid_and_discover(workspace, wire_server, vendor, listed):
    readme = README.read_text(encoding="utf-8")
    block = readme.split(f"# .mewrk/llm/{vendor}.yaml\n", 1)[1].split("```", 1)[0]
    config = validate_file("llm", block, name=vendor)
    assert config.protocol == "openai-chat" and config.discovers and config.models == {}
    # As written but for the address, it lists the server's models.
    address = re.search(r"^base_url: (\S+)", block, re.M)
    assert address is not None
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / f"{vendor}.yaml").write_text(block.replace(address.group(1), wire_server.openai_base_url))
    mw.trust()
    wire_server.enqueue(models_reply(listed))
    assert model_names(workspace / ".mewrk")[0] == f"{vendor}/{listed['id']}"


def everything_kept(s: mw.Session, workspace: Path) -> str:
    """All a session shows and keeps: its cards, and every file in the folder."""
    texts = [card.model_dump_json() for card in s.cards]
    texts += [p.read_text(errors="replace") for p in workspace.rglob("*") if p.is_file()]
    return "\n".join(texts)


def test_a_refused_key_is_named_by_its_reference_and_never_quoted(local, workspace):
    local.enqueue(openai_error(401, f"Invalid API key: {KEY}"))
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True)
    (agents / "main.yaml").write_text("model: offline/echo\ntools: [agent_spawn]\n")
    (agents / "helper.yaml").write_text("model: local/llama3.2:latest\ntools: [ls]\n")
    mw.trust(workspace)
    sentence = (
        f"llm/local.yaml says models: discover, but the server at {local.openai_base_url} refused the "
        "credentials (HTTP 401) that api_key (${LOCAL_KEY}) gave; its models are not offered until it "
        "accepts them — check the key that reference holds, then open a new session."
    )
    with pytest.warns(mw.ConfigNotice) as told:
        s = mw.Session.new()
    notices = [str(w.message) for w in told]
    assert sentence in notices
    with pytest.raises(ConfigError) as refused:
        run_command(s, "/set model local/llama3.2:latest")
    assert str(refused.value) == sentence
    s.send('call: agent_spawn {"agent": "helper", "task": "look"}')  # the model reads the refusal
    result = [c for c in s.cards if c.kind == "tool_call"][-1].result
    kept = "\n".join([*notices, str(refused.value), result, everything_kept(s, workspace)])
    assert KEY not in kept and "SECRET" not in kept


@pytest.mark.parametrize("status", [403, 401])
def test_a_forbidden_listing_says_the_reference_whatever_the_body(local, status):
    local.enqueue(openai_error(status, f"key {KEY} has no access to the models of {KEY[:12]}"))
    with pytest.warns(mw.ConfigNotice) as told:
        mw.Session.new()
    said = "\n".join(str(w.message) for w in told)
    assert f"refused the credentials (HTTP {status}) that api_key (${{LOCAL_KEY}}) gave" in said
    assert KEY[:12] not in said and "no access" not in said


def test_another_refusal_is_quoted_with_the_key_and_headers_taken_out(local, monkeypatch, workspace):
    monkeypatch.setenv("TEAM_TOKEN", "tok-SECRET-5678")
    path = workspace / ".mewrk" / "llm" / "local.yaml"
    path.write_text(path.read_text().replace("{X-Team: notebooks}", "{X-Token: '${TEAM_TOKEN}'}"))
    mw.trust(workspace)
    local.enqueue(openai_error(503, f"Loading model; your key {KEY} and token tok-SECRET-5678 are fine"))
    with pytest.warns(mw.ConfigNotice) as told:
        mw.Session.new()
    said = "\n".join(str(w.message) for w in told)
    assert "(it answered HTTP 503: Loading model; your key [redacted] and token [redacted] are fine)" in said
    assert "SECRET" not in said
    assert local.requests[0].header("x-token") == "tok-SECRET-5678"  # the header was sent, only not shown


def test_the_address_a_sentence_shows_carries_no_query(workspace, monkeypatch):
    # A query that looks like a credential is refused in the file already; any other is not shown either.
    monkeypatch.setenv("LOCAL_KEY", KEY)
    down = f"http://127.0.0.1:{free_port()}/v1"
    write_local(workspace, f"{down}?api-version=2024-06-01&tenant=acme-team#frag")
    with pytest.warns(mw.ConfigNotice) as told:
        s = mw.Session.new()
    said = "\n".join(str(w.message) for w in told)
    assert f"the server at {down} gave no list of its models" in said
    with pytest.raises(ConfigError) as refused:
        run_command(s, "/set model local/llama3.2:latest")
    assert "acme-team" not in said + str(refused.value) and "frag" not in said + str(refused.value)
