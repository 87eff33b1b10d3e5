"""`%mewrk trust`: trusts the workspace's configuration folder, with or without a current session."""

from __future__ import annotations

import pytest

import mewrk_jupyter as mw


@pytest.fixture
def vendor(workspace):
    llm = workspace / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "corp.yaml").write_text(
        "protocol: openai-chat\nbase_url: http://127.0.0.1:9/v1\napi_key: ${CORP_KEY}\nmodels:\n  m: {}\n"
    )


def test_new_with_an_untrusted_model_says_what_the_folder_would_use(mewrk, vendor):
    out = mewrk("new --model corp/m")
    assert "not trusted yet" in out and "${CORP_KEY}" in out and "%mewrk trust" in out
    assert "Traceback" not in out


def test_trust_then_new_uses_the_folders_model(mewrk, vendor, workspace):
    out = mewrk("trust")
    assert out.startswith(f"Trusted {workspace / '.mewrk'}") and "http://127.0.0.1:9/v1" in out
    assert "corp/m" in mewrk("new --model corp/m")
    assert mw.Session.new(model="corp/m").settings.model == "corp/m"


def test_trust_from_a_session_on_the_offline_model_says_it_keeps_it(mewrk, vendor):
    with pytest.warns(mw.ConfigNotice):
        mewrk("new")
    out = mewrk("trust")
    assert "This session keeps `offline/echo`; start a new session to use the folder's models." in out
