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
    return shown_address(str(getattr(client, "base_url", "") or ""), "the configured server")


def shown_address(url: str | None, otherwise: str) -> str:
    """An address as a sentence may show it: scheme, host, port and path — no user, password, query or
    fragment, where a key may be (`?api-key=…`); `otherwise` when there is none."""
    parts = urlsplit(url or "")
    host = parts.hostname or ""
    try:
        port = parts.port
    except ValueError:
        port = None
    netloc = f"{host}:{port}" if port else host
    return urlunsplit((parts.scheme, netloc, parts.path.rstrip("/"), "", "")) or otherwise


def client_secrets(client: Any) -> list[str]:
    """The credentials an SDK client carries: its key (and AWS keys), and the values of the headers it
    was configured with (a vendor's headers may hold a token read from a reference)."""
    secrets = [str(getattr(client, name, "") or "") for name in SECRET_ATTRIBUTES]
    headers = getattr(client, "_custom_headers", None)
    if isinstance(headers, dict):
        secrets += [str(value) for value in headers.values()]
    return [secret for secret in secrets if secret]


def quoted(text: str, secrets: list[str], shown: int = SHOWN) -> str:
    """The first `shown` characters of what a server said, on one line, with every secret taken out."""
    for secret in sorted(secrets, key=len, reverse=True):
        if secret:
            text = text.replace(secret, "[redacted]")
    text = " ".join(text.split())
    return text if len(text) <= shown else text[:shown] + "…"


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


def not_a_reply(model: str, client: Any, response: Any, raw: bytes, protocol: str) -> ProviderError:
    """The error for a body that is neither a stream nor a whole message of the protocol."""
    shown = quoted(raw.decode("utf-8", errors="replace"), client_secrets(client)) or "an empty body"
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
