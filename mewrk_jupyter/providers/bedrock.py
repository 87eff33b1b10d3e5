"""Anthropic models on Amazon Bedrock (X7, protocol `bedrock`) over the official SDK's Bedrock client.

It is the Anthropic Messages adapter with another client: `anthropic.AnthropicBedrock` sends the same
body to InvokeModelWithResponseStream (`/model/{id}/invoke-with-response-stream`), signs it with SigV4
(or a Bedrock API key), and reads back AWS event-stream frames, each carrying one Messages event; so
the events, tool use, signed thinking and usage are read as on Anthropic Messages.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import anthropic

from ..errors import ConfigError
from .anthropic import AnthropicExchange, AnthropicProvider
from .base import ModelInfo

PROTOCOL = "bedrock"
# The media type of InvokeModelWithResponseStream's body: binary frames, not SSE.
AWS_EVENT_STREAM = "application/vnd.amazon.eventstream"
EXTRA = "pip install 'mewrk_jupyter[bedrock]'"


class BedrockExchange(AnthropicExchange):
    """One streamed InvokeModelWithResponseStream call, read as a Messages stream."""

    stream_type = AWS_EVENT_STREAM
    protocol_name = "Amazon Bedrock's InvokeModelWithResponseStream for Anthropic models"


class BedrockProvider(AnthropicProvider):
    """A Bedrock region serving Anthropic models, reached through `anthropic.AnthropicBedrock`.

    The credentials are a callable, as the key is: read at each request, never kept by the provider.
    """

    protocol = PROTOCOL
    exchange_type = BedrockExchange

    def __init__(
        self,
        models: dict[str, ModelInfo],
        api_key: Callable[[], str | None],
        base_url: str,
        headers: Callable[[], dict[str, str]],
        aws_region: str,
        credentials: Callable[[], dict[str, str | None]],
    ):
        super().__init__(models, api_key, base_url, headers)
        self._region = aws_region
        self._credentials = credentials

    def _client(self) -> anthropic.AnthropicBedrock:
        # The SDK imports botocore only when it signs or decodes: without it the first request would
        # fail deep inside with an import error.
        if importlib.util.find_spec("botocore") is None:
            raise ConfigError(
                f"protocol bedrock signs its requests with botocore, which is not installed: {EXTRA}"
            )
        # The address is always given, so that ANTHROPIC_BEDROCK_BASE_URL cannot send the requests
        # somewhere the folder's trust did not name.
        fixed: dict[str, Any] = {"base_url": self._base_url, "aws_region": self._region}
        try:
            return self._sdk_client(
                anthropic.AnthropicBedrock, anthropic.DefaultHttpxClient, **fixed, **self._credentials()
            )
        except ValueError:  # the SDK took AWS_BEARER_TOKEN_BEDROCK from the environment as well
            raise ConfigError(
                "AWS_BEARER_TOKEN_BEDROCK is set in the environment, and the vendor file gives AWS "
                "credentials too: the Bedrock client takes one of them; unset the variable, or use it "
                "alone (api_key: ${AWS_BEARER_TOKEN_BEDROCK})."
            ) from None
