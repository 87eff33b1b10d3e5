"""The widget's trust line, kernel side: the snapshot says what an untrusted folder would use, and the
Trust button (an action) and `/trust` both trust it through the one command table."""

from __future__ import annotations

import warnings

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.config import user_config_dir

from .recording import RecordingWidget


@pytest.fixture
def untrusted(tmp_path, monkeypatch):
    """A session in a workspace whose folder names a server and a secret, not trusted yet."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("MEWRK_USER_CONFIG", raising=False)
    monkeypatch.delenv("XDG_CONFIG_HOME", raising=False)
    llm = tmp_path / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "corp.yaml").write_text(
        "protocol: openai-chat\nbase_url: http://127.0.0.1:9/v1\napi_key: ${CORP_KEY}\nmodels:\n  m: {}\n"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", mw.ConfigNotice)
        session = mw.Session.new(workspace=tmp_path)
    widget = RecordingWidget(session)
    yield widget
    widget.close()


def test_the_snapshot_says_what_the_folder_would_use_and_the_button_trusts_it(untrusted):
    line = untrusted.hello()["trust"]
    assert "http://127.0.0.1:9/v1" in line and "${CORP_KEY}" in line and "not trusted" in line
    result = untrusted.do("trust")
    assert result["ok"] and result["data"]["trusted"] and result["message"].startswith("Trusted ")
    assert (user_config_dir() / "trusted.json").is_file()
    assert untrusted.hello()["trust"] is None


def test_slash_trust_does_the_same(untrusted):
    result = untrusted.do("command", text="/trust")
    assert result["ok"] and result["data"]["trusted"]
    assert untrusted.hello()["trust"] is None


def test_a_folder_with_nothing_to_trust_shows_no_line(widget):
    assert widget.hello()["trust"] is None
