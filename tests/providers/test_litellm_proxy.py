"""Through LiteLLM's proxy, a real Anthropic- and OpenAI-compatible server: a turn ends with the reply.

LiteLLM answers a streamed `/v1/messages` request with the whole message as JSON; its
`/v1/chat/completions` streams. Either way the session shows the reply card and records it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import mewrk_jupyter as mw

from .litellm_proxy import MASTER_KEY, REPLY, litellm_proxy
from .vendors import write_vendor


@pytest.fixture(scope="module")
def proxy(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """LiteLLM's proxy with mocked models, once for this module; its base URL."""
    with litellm_proxy(Path(tmp_path_factory.mktemp("litellm"))) as url:
        yield url


def _session(workspace: Path, monkeypatch: pytest.MonkeyPatch, protocol: str, base_url: str, model: str):
    monkeypatch.setenv("TEST_LITELLM_KEY", MASTER_KEY)
    write_vendor(
        workspace,
        "litellm",
        protocol,
        base_url,
        f"  {model}: {{context_window: 100000}}\n",
        "TEST_LITELLM_KEY",
    )
    return mw.Session.new(model=f"litellm/{model}")


def test_anthropic_messages_through_litellm_gives_the_reply_card(proxy, workspace, monkeypatch):
    s = _session(workspace, monkeypatch, "anthropic-messages", proxy, "mock-claude")
    s.send("hi")
    reply = s.cards[-1]
    assert [c.kind for c in s.cards] == ["user_input", "model_reply"]
    assert reply.text == REPLY and reply.stop_reason == "end_turn" and not reply.interrupted
    entry = s.history[-1]
    assert entry.request["model"] == "mock-claude" and not entry.error
    assert entry.response["parts"] == [{"type": "text", "text": REPLY}]
    s.send("and again")  # the second request carries the first reply back
    assert s.cards[-1].text == REPLY and len(s.history) == 2


def test_openai_chat_through_litellm_gives_the_reply_card(proxy, workspace, monkeypatch):
    s = _session(workspace, monkeypatch, "openai-chat", f"{proxy}/v1", "mock-gpt")
    s.send("hi")
    reply = s.cards[-1]
    assert [c.kind for c in s.cards] == ["user_input", "model_reply"]
    assert reply.text == REPLY and reply.stop_reason == "end_turn" and not reply.interrupted
    assert s.history[-1].response["parts"] == [{"type": "text", "text": REPLY}]
    assert reply.usage is not None and reply.usage.output_tokens > 0  # the proxy's usage chunk arrived


def test_a_wrong_key_is_the_proxys_refusal_in_a_sentence(proxy, workspace, monkeypatch):
    s = _session(workspace, monkeypatch, "anthropic-messages", proxy, "mock-claude")
    monkeypatch.setenv("TEST_LITELLM_KEY", "sk-not-the-master-key")
    with pytest.raises(
        mw.ProviderError, match=r"`litellm/mock-claude` (refused the API key|answered HTTP 40)"
    ):
        s.send("hi")
    assert [c.kind for c in s.cards] == ["user_input"] and s.history[-1].error
