"""The official SDK clients pointed at a scripted server, closed after each test."""

from __future__ import annotations

import anthropic
import openai

from .server import WireServer

MESSAGES = [{"role": "user", "content": "hi"}]

# Clients made during the current test; the providers' conftest closes them afterwards.
_open: list[anthropic.Anthropic | openai.OpenAI] = []


def anthropic_client(server: WireServer, max_retries: int = 0) -> anthropic.Anthropic:
    """An Anthropic client whose base_url is the scripted server."""
    client = anthropic.Anthropic(base_url=server.url, api_key="test-key", max_retries=max_retries)
    _open.append(client)
    return client


def openai_client(server: WireServer, max_retries: int = 0) -> openai.OpenAI:
    """An OpenAI client whose base_url is the scripted server's `/v1`."""
    client = openai.OpenAI(base_url=server.openai_base_url, api_key="test-key", max_retries=max_retries)
    _open.append(client)
    return client


def closed_after_test(client: openai.OpenAI) -> openai.OpenAI:
    """Close this client too when the test ends (one made by hand, e.g. an Azure client)."""
    _open.append(client)
    return client


def close_clients() -> None:
    """Close every client made since the last call."""
    while _open:
        _open.pop().close()
