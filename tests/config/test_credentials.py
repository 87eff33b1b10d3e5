"""A literal credential is refused in any field of any configuration file, as the attacker of the second
security review wrote them: in a header whose name is not `Authorization`, in a URL's query, in an MCP
server's arguments or in an environment value whose name says nothing. The settings editor refuses each
and writes nothing; written on disk, the file is left out with a notice naming it and the rest works."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.config import InvalidConfig, load_config
from mewrk_jupyter.config.credentials import looks_like_a_key

KEY = "sk-proj-Qx7vT2mL9pR4wZ8nB3kD6hJ1"
GITHUB = "ghp_7Hc2Lq9Xv4Rt8Wm1Zp6Kd3Ny5Bs0Gf2Ja"
RANDOM = "q8Zr2LmX7vPn4KtB9wYc3HsD5eJ"  # no vendor's prefix: only its randomness gives it away
SHORT = "abc123"  # short and plain: only the header's name says it is a credential
VENDOR = "protocol: openai-chat\nbase_url: http://127.0.0.1:9/v1\nmodels: {m: {}}\n"
URL_SERVER = "url: https://mcp.example.com/mcp\n"
COMMAND_SERVER = "command: uvx\nargs: [mcp-server-git]\n"

# (file, its text, the field refused, the credential it holds)
ATTACKS = [
    ("llm/v.yaml", VENDOR + f"headers: {{X-Auth-Key: {SHORT}}}\n", "headers.X-Auth-Key", SHORT),
    ("llm/v.yaml", VENDOR + f"headers: {{X-Access: 'Bearer {SHORT}'}}\n", "headers.X-Access", SHORT),
    ("llm/v.yaml", VENDOR + f"headers: {{X-Team: {KEY}}}\n", "headers.X-Team", KEY),
    (
        "llm/v.yaml",
        VENDOR.replace("/v1", f"/v1?key={KEY}"),
        "base_url",
        KEY,
    ),
    ("mcp/s.yaml", f"url: https://mcp.example.com/mcp?token={SHORT}\n", "url", SHORT),
    ("mcp/s.yaml", f"command: uvx\nargs: [mcp-server-x, '--api-key={KEY}']\n", "args.1", KEY),
    ("mcp/s.yaml", f"command: uvx\nargs: [mcp-server-x, --token, {GITHUB}]\n", "args.2", GITHUB),
    ("mcp/s.yaml", f"command: uvx\nargs: [mcp-server-x, --token, {SHORT}]\n", "args.2", SHORT),
    ("mcp/s.yaml", f"command: uvx\nenv: {{GH: {GITHUB}}}\n", "env.GH", GITHUB),
    ("mcp/s.yaml", f"command: uvx\nenv: {{UPSTREAM: {RANDOM}}}\n", "env.UPSTREAM", RANDOM),
    ("mcp/s.yaml", f"command: uvx\nenv: {{GH_AUTH: {SHORT}}}\n", "env.GH_AUTH", SHORT),
    ("mcp/s.yaml", URL_SERVER + f"headers: {{X-Access: {SHORT}}}\n", "headers.X-Access", SHORT),
    (
        "tools/fetch.yaml",
        "name: fetch\ndescription: Fetch a page.\nparameters: {type: object}\n"
        f"command: curl -s --user-agent mewrk --token {SHORT} https://example.com\n",
        "command",
        SHORT,
    ),
    (
        "hooks/h.yaml",
        f"event: session_start\ncommand: [curl, 'https://example.com/ping?key={RANDOM}']\n",
        "command.1",
        RANDOM,
    ),
    (
        "agents/a.yaml",
        f"model: offline/echo\nsystem_prompt: 'Use the key {KEY} for the API.'\n",
        "system_prompt",
        KEY,
    ),
]
IDS = [f"{rel}:{field}" for rel, _, field, _ in ATTACKS]


def sentence(field: str) -> str:
    return f"{field} must be a reference, not a literal"


def put(workspace: Path, rel: str, text: str) -> Path:
    path = workspace / ".mewrk" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(("rel", "text", "field", "secret"), ATTACKS, ids=IDS)
def test_the_settings_editor_refuses_a_literal_credential_in_any_field(workspace, rel, text, field, secret):
    editor = mw.SettingsEditor()
    with pytest.raises(InvalidConfig) as err:
        editor.create(rel, text)
    assert [p.field for p in err.value.problems] == [field]
    assert sentence(field) in str(err.value)
    assert secret not in str(err.value)
    assert not (workspace / ".mewrk" / rel).exists()
    # A save over a file that worked is refused the same way and leaves it byte for byte.
    path = put(workspace, rel, _fixed(text, secret))
    before = path.read_bytes()
    version = editor.read(rel).version
    with pytest.raises(InvalidConfig, match=sentence(field).replace(".", r"\.")):
        editor.save(rel, text, version)
    assert path.read_bytes() == before


@pytest.mark.parametrize(("rel", "text", "field", "secret"), ATTACKS, ids=IDS)
def test_a_file_holding_a_literal_credential_is_left_out_and_the_rest_works(
    workspace, rel, text, field, secret
):
    put(workspace, rel, text)
    put(workspace, "llm/fine.yaml", VENDOR)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        mw.trust()  # the person wrote the folder: what is left out is left out for its own fault
        session = mw.Session.new()
        session.send("hello")
        other = mw.Session.new(model="fine/m")
        statuses = session.mcp_servers()
    notices = [str(w.message) for w in caught if issubclass(w.category, mw.ConfigNotice)]
    assert session.cards[-1].kind == "model_reply"
    assert other.settings.model == "fine/m"
    assert any(n.startswith(f"{rel}: ") and sentence(field) in n for n in notices), notices
    assert not any(secret in n for n in notices)
    # The MCP status line lists the file that failed, with what is wrong, never the credential.
    if rel.startswith("mcp/"):
        assert [(s.name, s.state) for s in statuses] == [("s", "failed")]
        shown = [str(part) for s in statuses for part in (s.where, s.reason, s.transport)]
        assert sentence(field) in " ".join(shown)
        assert not any(secret in part for part in shown)


def _fixed(text: str, secret: str) -> str:
    """The attacker's file with its credential given as a reference."""
    fixed = text.replace(f"'Bearer {secret}'", "'${TEAM_KEY}'").replace(f"'--api-key={secret}'", "--api-key")
    fixed = fixed.replace(f"?key={secret}", "").replace(f"?token={secret}", "")
    if "'Use the key" in fixed:
        return fixed.replace(f" {secret}", " from the environment")
    return fixed.replace(secret, "${TEAM_KEY}").replace(
        "'https://example.com/ping'", "https://example.com/ping"
    )


ORDINARY = [
    "protocol: openai-chat\nbase_url: https://api.example.com/v1/Deployments/GPT4oMini2024\n"
    "models: {gpt-4o-mini-2024-07-18: {}, claude-sonnet-4-5-20250929: {}, Qwen/Qwen2.5-Coder-32B-Instruct: {}}\n",
    "protocol: azure-openai\nbase_url: https://x.openai.azure.com/openai?api-version=2024-10-21\n"
    "api_key: ${AZURE_KEY}\nmodels: {gpt4o: {}}\ndeployments: {gpt4o: 123e4567-e89b-12d3-a456-426614174000}\n",
    "protocol: openai-chat\nmodels: {m: {}}\nheaders: {X-Team: research, Authorization: '${AUTH}', "
    "Accept: application/json}\n",
]
ORDINARY_MCP = [
    "command: /home/User/Projects/MyServer2/bin/python3\n"
    "args: [-m, server, --max-tokens, '4096', --token-file, /run/token, --token, '${GH_TOKEN}', "
    "--commit, da3570b9a36333568259e9884478382bb75116b4, HandleIncomingRequest2Async]\n"
    "env: {MODE: fast, AUTHOR: me, MEWRK_ID: 123e4567-e89b-12d3-a456-426614174000}\n",
    "url: https://mcp.example.com/mcp?team=research&page=2\nheaders: {X-Access: '@file:~/mcp.key'}\n",
]


ORDINARY_TOOL = (
    "name: sorted\ndescription: Sort a file by a column.\n"
    "parameters: {type: object, properties: {token: {type: string}, path: {type: string}}}\n"
    "command: [sort, --key=2, -t, ',', --auth, oauth2, --token, '{token}', '{path}']\n"
)


def test_a_tools_figures_modes_and_parameters_are_not_credentials(home, write):
    write("tools/sorted.yaml", ORDINARY_TOOL)
    assert "sorted" in load_config(home).tools


@pytest.mark.parametrize("text", ORDINARY)
def test_model_names_paths_uuids_and_plain_urls_are_not_credentials(home, write, text):
    write("llm/v.yaml", text)
    assert "v" in load_config(home).vendors


@pytest.mark.parametrize("text", ORDINARY_MCP)
def test_a_server_with_references_digests_and_paths_loads(home, write, text):
    write("mcp/s.yaml", text)
    assert "s" in load_config(home).mcp


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("sk-ant-api03-TOPSECRET-0123456789", True),
        ("AKIAIOSFODNN7EXAMPLE", True),
        ("xoxb-1234567890-0987654321-AbCdEfGhIjKlMnOp", True),
        ("hf_AbCdEfGhIjKlMnOpQrStUvWxYz123456", True),
        (RANDOM, True),
        ("You are careful. Vendors' keys start with sk-ant- or ghp_.", False),
        ("sk-learn-extensions", False),
        ("hf_transfer", False),
        ("MyVeryLongClassNameForTesting2", False),
        ("MyVeryLongClassName2ForTesting3", False),
        ("Win32ApiWrapperForPython3X", False),
        ("meta-llama/Llama-3.1-70B-Instruct-Turbo", False),
        ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", False),
    ],
)
def test_what_looks_like_a_key(text, key):
    assert looks_like_a_key(text) is key
