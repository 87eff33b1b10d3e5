"""`.mewrk/store.yaml`, the team store named in the configuration folder (#37): it acts once the folder is
trusted, its password is a reference that no command sees, the settings editor writes it through its
checks, and the environment wins over it."""

from __future__ import annotations

import json
import warnings
from urllib.parse import urlsplit, urlunsplit

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.config import read_config, trust_state
from mewrk_jupyter.config.store_file import STORE_FILE
from tests.conftest import forget_process_state


def _by_reference(url: str, monkeypatch: pytest.MonkeyPatch) -> str:
    """The URL with its password moved to the variable TEAM_PW, as a person writes it in a file."""
    parts = urlsplit(url)
    monkeypatch.setenv("TEAM_PW", parts.password or "")
    netloc = f"{parts.username}:${{TEAM_PW}}@{parts.hostname}:{parts.port}"
    return urlunsplit((parts.scheme, netloc, parts.path, "", ""))


def _write(workspace, text: str) -> None:
    (workspace / ".mewrk").mkdir(exist_ok=True)
    (workspace / ".mewrk" / STORE_FILE).write_text(text)


def test_a_trusted_store_file_keeps_the_sessions_in_the_team_store(workspace, postgres_url, monkeypatch):
    url = _by_reference(postgres_url, monkeypatch)
    _write(workspace, f"url: {url}\nworkspace: team-project\n")
    untrusted = mw.Session.new()
    assert untrusted.workspace.store == workspace / ".mewrk" / "mewrk.db"  # waits for trust
    state = trust_state(read_config(workspace / ".mewrk"))
    assert not state.trusted
    assert f"{STORE_FILE}" in state.sentence and "the team store of the sessions" in state.sentence
    assert "${TEAM_PW}" in state.sentence and urlsplit(postgres_url).password not in state.sentence

    mw.trust()
    s = mw.Session.new(title="shared")
    s.send("hello")
    assert str(s.workspace.store).endswith("(workspace 'team-project')")
    forget_process_state()
    # Another clone, elsewhere and named otherwise, with the same file: it sees the same session.
    monkeypatch.chdir(workspace.parent)
    other = workspace.parent / "clone"
    (other / ".mewrk").mkdir(parents=True)
    (other / ".mewrk" / STORE_FILE).write_text(f"url: {url}\nworkspace: team-project\n")
    monkeypatch.chdir(other)
    mw.trust()
    assert [info.id for info in mw.list_sessions()] == [s.id]
    assert [c.text for c in mw.Session.open(s.id).cards if c.kind == "user_input"] == ["hello"]


def test_a_command_sees_neither_the_store_files_password_nor_its_variable(
    workspace, postgres_url, monkeypatch
):
    url = _by_reference(postgres_url, monkeypatch)
    _write(workspace, f"url: {url}\n")
    mw.trust()
    s = mw.Session.new()
    password = urlsplit(postgres_url).password
    # The command prints its environment, then the password spelled backwards, as an attacker would.
    s.send(f'call: bash {{"command": "env; echo {password[::-1]} | rev"}}')
    s.approve()
    call = next(c for c in s.cards if isinstance(c, mw.ToolCall))
    assert call.result and "HOME=" in call.result
    assert "TEAM_PW" not in call.result
    assert password not in call.result
    assert password not in json.dumps([entry.model_dump() for entry in s.history])


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("url: postgresql://u:hunter2@db.example/mewrk\n", "a configuration file holds no password"),
        ("url: mysql://u@db.example/mewrk\n", "url must be a postgresql:// URL"),
        ("url: postgresql://u@db.example/\n", "url names no database"),
        ("workspace: a/b\nurl: postgresql://u@db.example/m\n", "workspace must be a name without slashes"),
        ("host: db.example\n", "host"),
    ],
)
def test_the_settings_editor_refuses_a_store_file_that_cannot_act(workspace, text, said):
    editor = mw.SettingsEditor()
    with pytest.raises(mw.ConfigError, match=said) as info:
        editor.create(STORE_FILE, text)
    assert "hunter2" not in str(info.value)
    assert not (workspace / ".mewrk" / STORE_FILE).exists()  # a refused change writes nothing


def test_the_settings_editor_writes_the_store_file_and_says_it_waits_for_trust(workspace, postgres_url):
    editor = mw.SettingsEditor()
    written = editor.create(STORE_FILE, "url: postgresql://mewrk@db.example:5432/mewrk\n")
    assert written.notice is not None and "not trusted yet" in written.notice
    assert STORE_FILE in [f.path for f in editor.files()]
    mw.trust()
    text = editor.read(STORE_FILE)
    written = editor.save(STORE_FILE, text.text + "workspace: other\n", text.version)
    assert written.notice is not None and "ended the trust" in written.notice  # it names another server


def test_the_environment_wins_over_the_store_file_and_says_so(workspace, postgres_url, monkeypatch):
    _write(workspace, "url: postgresql://mewrk@db.invalid:5432/mewrk\n")
    mw.trust()
    monkeypatch.setenv("MEWRK_STORE_URL", postgres_url)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = mw.Session.new()
    assert "db.invalid" not in str(s.workspace.store)
    said = [str(w.message) for w in caught if issubclass(w.category, mw.ConfigNotice)]
    assert any(f"{STORE_FILE} is not used: MEWRK_STORE_URL is set" in line for line in said)


def test_an_invalid_store_file_is_a_problem_and_the_sessions_stay_in_the_sqlite_file(workspace):
    _write(workspace, "url: postgresql://u:literal@db.example/m\n")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        s = mw.Session.new()
    assert s.workspace.store == workspace / ".mewrk" / "mewrk.db"
    said = " ".join(str(w.message) for w in caught)
    assert STORE_FILE in said and "holds no password" in said and "literal" not in said
