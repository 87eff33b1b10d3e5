"""OpenAI Codex: the Responses adapter at a Codex endpoint (the ChatGPT backend by default), signed in
with a reference or with the Codex CLI's own login, its models compacting natively."""

from __future__ import annotations

import openai

from ..config.codex_login import CHATGPT_CODEX_URL, read_codex_login
from .openai_responses import OpenAIResponsesProvider

PROTOCOL = "openai-codex"


class CodexProvider(OpenAIResponsesProvider):
    """A vendor of protocol openai-codex signed in with its api_key reference."""

    def _client(self) -> openai.OpenAI:
        return self._sdk_client(
            openai.OpenAI, openai.DefaultHttpxClient, base_url=self._base_url or CHATGPT_CODEX_URL
        )


class CodexCLIProvider(CodexProvider):
    """A vendor of protocol openai-codex with `credentials: codex-cli`: each request reads the login."""

    def _client(self) -> openai.OpenAI:
        # Read now, never kept: the Codex CLI refreshes its tokens in the file itself.
        login = read_codex_login()
        return self._sdk_client(
            openai.OpenAI,
            openai.DefaultHttpxClient,
            api_key=login.token,
            default_headers={**self._headers(), **login.headers},
            base_url=self._base_url or login.base_url,
        )
