"""What came back instead of a complete stream, so that no turn ends silently.

A server may answer a request that asks for a stream with the whole message as JSON (LiteLLM's proxy
does so for Anthropic Messages), with a page that is no reply at all, or with a stream that ends before
its final event. The SDKs read none of these as events: they yield nothing and the turn would end with
no reply and no error. An adapter uses a whole message as if it had been streamed; anything else is one
sentence that names the server, what came back and what to check.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ..errors import ProviderError

EVENT_STREAM = "text/event-stream"
# The client's attributes that hold a credential (Bedrock's client holds AWS keys beside its api_key).
SECRET_ATTRIBUTES = ("api_key", "aws_secret_key", "aws_session_token")
SHOWN = 160  # characters of an unexpected body quoted in the sentence
# How an event stream's body starts, whatever content type it was sent with.
SSE_STARTS = (b"event:", b"data:", b"id:", b"retry:", b":")


def server_of(client: Any) -> str:
    """The server an SDK client talks to, as people read it: its base URL without credentials or query."""
    parts = urlsplit(str(getattr(client, "base_url", "") or ""))
    host = parts.hostname or ""
    netloc = f"{host}:{parts.port}" if parts.port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", "")) or "the configured server"


def content_type(response: Any) -> str:
    """The response's media type, without parameters such as the charset."""
    raw = str(response.headers.get("content-type") or "")
    return raw.split(";", 1)[0].strip().lower() or "no content type"


def whole_body(response: Any, stream_type: str = EVENT_STREAM) -> bytes | None:
    """The body of a response that is not an event stream, read whole now; None when it is one.

    `stream_type` is the protocol's stream (Bedrock's is AWS event-stream frames). A body that is an
    SSE stream under another content type stays for the SDK to read from memory.
    """
    if content_type(response) == stream_type:
        return None
    raw: bytes = response.read()
    return None if raw.lstrip().startswith(SSE_STARTS) else raw


def json_object(raw: bytes) -> dict[str, Any] | None:
    """The body as a JSON object, or None when it is not one."""
    try:
        value = json.loads(raw)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _quoted(raw: bytes, secrets: list[str]) -> str:
    """The first characters of a body on one line, with the key the request carried taken out."""
    text = raw.decode("utf-8", errors="replace")
    for secret in secrets:
        if secret:
            text = text.replace(secret, "[redacted]")
    text = " ".join(text.split())
    return text if len(text) <= SHOWN else text[:SHOWN] + "…"


def not_a_reply(model: str, client: Any, response: Any, raw: bytes, protocol: str) -> ProviderError:
    """The error for a body that is neither a stream nor a whole message of the protocol."""
    secrets = [str(getattr(client, name, "") or "") for name in SECRET_ATTRIBUTES]
    shown = _quoted(raw, secrets) or "an empty body"
    return ProviderError(
        f"The server at {server_of(client)} answered `{model}` with {content_type(response)} that is "
        f"neither a stream nor a whole reply (“{shown}”); check that base_url points at a server "
        f"speaking {protocol}."
    )


def ended_early(model: str, client: Any, response: Any) -> ProviderError:
    """The error for an event stream that ended before the event that completes the reply."""
    size = getattr(response, "num_bytes_downloaded", None)
    received = f", {size:,} bytes" if isinstance(size, int) else ""
    return ProviderError(
        f"The stream from `{model}` at {server_of(client)} ({content_type(response)}{received}) ended "
        "before the reply was complete; the partial reply is kept — send again to continue."
    )
