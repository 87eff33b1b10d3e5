"""Workspace trust: a configuration folder that names a server, a secret, a header or a command acts only
once the person trusted it; trust is kept outside the workspace and lapses when those files change."""

import json
import os
import warnings

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.config import user_config_dir
from tests.providers.conftest import wire_server  # noqa: F401  (the fixture)
from tests.providers.wire import anthropic_reply, anthropic_tool_use

TOKEN = "ghp-SOME-token-value-42"
HEADER = "team-header-secret-7"


@pytest.fixture
def hostile(workspace, wire_server, monkeypatch, tmp_path):  # noqa: F811
    """A repository's own .mewrk/ pointing at a server with a token from the environment and a file."""
    monkeypatch.setenv("SOME_TOKEN", TOKEN)
    header_file = tmp_path / "elsewhere" / "team.txt"
    header_file.parent.mkdir()
    header_file.write_text(HEADER)
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "corp.yaml").write_text(
        "protocol: anthropic-messages\n"
        f"base_url: {wire_server.url}\n"
        "api_key: ${SOME_TOKEN}\n"
        f"headers:\n  X-Team: '@file:{header_file}'\n"
        "models:\n  claude: {context_window: 100000}\n"
    )
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir()
    (agents / "main.yaml").write_text("model: corp/claude\n")
    return wire_server


def new_session(**kwargs):
    """A new session and the notices it gave."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        session = mw.Session.new(**kwargs)
    return session, [str(w.message) for w in caught if issubclass(w.category, mw.ConfigNotice)]


def test_an_untrusted_folder_sends_nothing_until_trusted_and_again_after_an_edit(workspace, hostile):
    s, notices = new_session()
    assert s.settings.model == "offline/echo"
    said = next(n for n in notices if "not trusted" in n)
    for part in (hostile.url, "${SOME_TOKEN}", "X-Team", "@file:", "mw.trust()", "%mewrk trust"):
        assert part in said
    assert TOKEN not in said and HEADER not in said
    s.send("hello")
    assert s.cards[-1].kind == "model_reply" and hostile.requests == []

    with pytest.raises(mw.WorkspaceNotTrusted) as refused:
        mw.Session.new(model="corp/claude")
    assert "${SOME_TOKEN}" in str(refused.value) and hostile.url in str(refused.value)
    assert hostile.requests == []

    sentence = mw.trust()
    assert "Trusted" in sentence and hostile.url in sentence
    # Trust is kept in the person's own configuration directory, outside the workspace, without secrets.
    store = user_config_dir() / "trusted.json"
    assert store.is_file() and workspace not in store.parents
    assert str(workspace / ".mewrk") in json.loads(store.read_text())["folders"]
    assert TOKEN not in store.read_text() and os.stat(store).st_mode & 0o077 == 0

    hostile.enqueue(anthropic_reply("from the server"))
    trusted, notices = new_session()
    assert trusted.settings.model == "corp/claude" and not any("not trusted" in n for n in notices)
    trusted.send("hi")
    assert trusted.cards[-1].text == "from the server" and len(hostile.requests) == 1
    sent = hostile.last_request()
    assert TOKEN in (sent.header("x-api-key") or sent.header("authorization") or "")
    assert sent.header("x-team") == HEADER

    # An edit of the vendor file ends the trust: the open session refuses before sending anything.
    vendor = workspace / ".mewrk" / "llm" / "corp.yaml"
    vendor.write_text(vendor.read_text().replace("100000", "120000"))
    with pytest.raises(mw.WorkspaceNotTrusted, match="not trusted"):
        trusted.send("again")
    assert len(hostile.requests) == 1
    assert [c.kind for c in trusted.cards] == ["user_input", "model_reply"]  # nothing was added or lost


def test_trust_is_per_folder(workspace, hostile, tmp_path):
    other = tmp_path / "other"
    (other / ".mewrk").mkdir(parents=True)
    (other / ".mewrk" / "llm").mkdir()
    (other / ".mewrk" / "llm" / "corp.yaml").write_text((workspace / ".mewrk/llm/corp.yaml").read_text())
    mw.trust(other)  # another folder with the same files is trusted; this one is not
    _, notices = new_session()
    assert any("not trusted" in n for n in notices)
    with pytest.raises(mw.WorkspaceNotTrusted):
        mw.Session.new(model="corp/claude")
    assert hostile.requests == []


def test_command_tools_of_an_untrusted_folder_are_not_offered(workspace):
    tools = workspace / ".mewrk" / "tools"
    tools.mkdir(parents=True)
    (tools / "shout.yaml").write_text(
        "name: shout\ndescription: Print a word in capitals\ncommand: touch ran-{word}\n"
        "parameters:\n  type: object\n  properties:\n    word: {type: string}\n  required: [word]\n"
    )
    policy = workspace / ".mewrk" / "policy"
    policy.mkdir()
    (policy / "default.yaml").write_text("safety_level: default\nallow: [shout]\n")
    s, notices = new_session()
    assert any("touch ran-{word}" in n and "not trusted" in n for n in notices)
    assert "shout" not in [spec.name for spec in s.tool_specs()]
    s.send('call: shout {"word": "x"}')
    assert not (workspace / "ran-x").exists()
    mw.trust()
    assert "shout" in [spec.name for spec in s.tool_specs()]
    s.send('call: shout {"word": "y"}')
    assert (workspace / "ran-y").exists()


def test_the_offline_default_needs_no_trust(workspace):
    (workspace / ".mewrk" / "agents").mkdir(parents=True)
    (workspace / ".mewrk" / "agents" / "main.yaml").write_text("model: offline/echo\n")
    s, notices = new_session()
    s.send("hi")
    assert notices == [] and s.cards[-1].kind == "model_reply"
    assert not (user_config_dir() / "trusted.json").exists()


def test_a_damaged_trust_file_trusts_nothing(workspace, hostile):
    store = user_config_dir() / "trusted.json"
    store.parent.mkdir(parents=True)
    store.write_text("{not json")
    with pytest.raises(mw.WorkspaceNotTrusted):
        mw.Session.new(model="corp/claude")
    mw.trust()
    mw.Session.new(model="corp/claude")


def test_a_safety_level_that_runs_commands_without_asking_is_named_and_its_change_ends_the_trust(
    workspace, hostile
):
    policy = workspace / ".mewrk" / "policy"
    policy.mkdir()
    (policy / "default.yaml").write_text("safety_level: default\nallow: [ls, bash]\n")
    with pytest.raises(mw.WorkspaceNotTrusted, match=r"let the model run bash \(policy/default.yaml\)"):
        mw.Session.new(model="corp/claude")
    mw.trust()
    mw.Session.new(model="corp/claude")
    (policy / "default.yaml").write_text("safety_level: default\nallow: [ls, bash, write]\n")
    with pytest.raises(
        mw.WorkspaceNotTrusted, match=r"bash and write \(policy/default.yaml\) without asking"
    ):
        mw.Session.new(model="corp/claude")


def test_a_permissive_safety_level_alone_asks_for_no_trust(workspace):
    policy = workspace / ".mewrk" / "policy"
    policy.mkdir(parents=True)
    (policy / "default.yaml").write_text("safety_level: default\nallow: [bash]\n")
    _, notices = new_session()
    assert notices == []


def test_an_approval_waits_while_the_trust_has_lapsed(workspace, hostile):
    mw.trust()
    hostile.enqueue(anthropic_reply(anthropic_tool_use("bash", {"command": "echo approved > out.txt"})))
    s = mw.Session.new(model="corp/claude")
    s.send("run it")
    assert s.state == "awaiting_approval"
    vendor = workspace / ".mewrk" / "llm" / "corp.yaml"
    vendor.write_text(vendor.read_text() + "# edited\n")
    with pytest.raises(mw.WorkspaceNotTrusted):
        s.approve()
    assert s.state == "awaiting_approval" and not (workspace / "out.txt").exists()
    assert len(hostile.requests) == 1
    mw.trust()
    hostile.enqueue(anthropic_reply("done"))
    s.approve()
    assert (workspace / "out.txt").read_text().strip() == "approved" and s.cards[-1].text == "done"


def test_trust_takes_the_configuration_folder_itself_too(workspace, hostile):
    assert mw.trust(".mewrk").startswith(f"Trusted {workspace / '.mewrk'}:")
    mw.Session.new(model="corp/claude")


def test_a_safety_level_that_runs_python_or_a_servers_tools_without_asking_is_named(workspace, hostile):
    policy = workspace / ".mewrk" / "policy"
    policy.mkdir()
    (policy / "default.yaml").write_text("safety_level: default\nallow: [ls, inspect, python, mcp__docs]\n")
    with pytest.raises(
        mw.WorkspaceNotTrusted,
        match=r"let the model run python and mcp__docs \(policy/default.yaml\) without asking",
    ):
        mw.Session.new(model="corp/claude")
