"""mcp/<name>.yaml: a stdio command or a streamable HTTP address, secrets by reference, and what trusting
the folder would let its servers do."""

from __future__ import annotations

import pytest

from mewrk_jupyter.config import exposure_of, load_config, read_config, trust_folder, trust_state
from mewrk_jupyter.errors import ConfigError


def test_a_stdio_server_and_an_http_server_load(home, write):
    write(
        "mcp/git.yaml",
        "command: uvx\nargs: [mcp-server-git]\nenv: {GITHUB_TOKEN: '${GH_TOKEN}', MODE: fast}\n",
    )
    write("mcp/web.yaml", "url: https://mcp.example.com/mcp\nheaders: {Authorization: '@file:~/web.key'}\n")
    config = load_config(home)
    git, web = config.mcp["git"], config.mcp["web"]
    assert (git.transport, git.where, git.timeout, git.startup_timeout) == (
        "stdio",
        "uvx mcp-server-git",
        60,
        30,
    )
    assert (web.transport, web.where) == ("http", "https://mcp.example.com/mcp")
    assert git.references() == [("${GH_TOKEN}", "env.GITHUB_TOKEN")]


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("args: [x]\n", "mcp/s.yaml: an MCP server needs command"),
        ("command: x\nurl: http://a/mcp\n", "mcp/s.yaml: an MCP server has either command or url, not both"),
        ("command: x\nenv: {API_KEY: abc123}\n", "env.API_KEY must be a reference, not a literal"),
        (
            "url: http://a/mcp\nheaders: {Authorization: Bearer abc}\n",
            "headers.Authorization must be a reference",
        ),
        ("url: http://u:p@a/mcp\n", "url must not carry credentials"),
        ("url: ftp://a/mcp\n", "url must be an http:// or https:// address"),
        ("url: http://a/mcp\nenv: {A: b}\n", "env is only for a server started by command"),
        ("command: x\nheaders: {X-Team: a}\n", "headers are only for a server reached by url"),
        ("command: x\nenv: {1BAD: a}\n", "env: '1BAD' is not an environment variable name"),
    ],
)
def test_a_server_file_that_cannot_act_is_refused_with_a_sentence(home, write, text, problem):
    write("mcp/s.yaml", text)
    with pytest.raises(ConfigError, match=problem.replace("(", r"\(")):
        load_config(home)


def test_trusting_the_folder_is_asked_for_its_servers_commands_and_secrets(home, write):
    write(
        "mcp/git.yaml",
        "command: uvx\nargs: [mcp-server-git, --key, '@file:/run/git.key']\nenv: {GITHUB_TOKEN: '${GH_TOKEN}'}\n",
    )
    write("mcp/web.yaml", "url: https://mcp.example.com/mcp\nheaders: {Authorization: '${WEB_KEY}'}\n")
    exposure = exposure_of(read_config(home))
    assert exposure.needs_trust
    assert exposure.commands == ("`uvx mcp-server-git --key @file:/run/git.key` (mcp/git.yaml)",)
    assert exposure.servers == ("https://mcp.example.com/mcp (mcp/web.yaml)",)
    assert exposure.secrets == (
        "@file:/run/git.key (mcp/git.yaml, args.2)",
        "${GH_TOKEN} (mcp/git.yaml, env.GITHUB_TOKEN)",
        "${WEB_KEY} (mcp/web.yaml, headers.Authorization)",
    )
    assert exposure.headers == ("Authorization (mcp/web.yaml)",)


def test_editing_a_server_file_ends_the_trust_given_to_the_folder(home, write, tmp_path, monkeypatch):
    monkeypatch.setenv("MEWRK_USER_CONFIG", str(tmp_path / "user"))
    write("mcp/git.yaml", "command: uvx\nargs: [mcp-server-git]\n")
    assert trust_folder(home).trusted
    write("mcp/git.yaml", "command: uvx\nargs: [mcp-server-git, --write]\n")
    assert not trust_state(read_config(home)).trusted
