"""Provider failures in plain words: what happened and what the person can do."""

from __future__ import annotations

import sys
from types import ModuleType

from ..errors import MewrkError

# The SDKs read streams with httpx (or its successor httpx2); a broken body surfaces as their error.
_TRANSPORT_MODULES = ("httpx", "httpx2", "httpcore")


def describe_failure(exc: BaseException, model: str, mid_stream: bool = False) -> str:
    """One sentence for a failed exchange with a model, from the SDK's exception classes."""
    if isinstance(exc, MewrkError):  # an adapter's own sentence already says what happened
        return str(exc)
    broken = f"The stream from `{model}` broke mid-reply ({type(exc).__name__}); the partial reply is kept."
    sdks = _imported_sdks()
    if mid_stream and any(isinstance(exc, sdk.APIConnectionError) for sdk in sdks):
        return broken
    for sdk in sdks:
        if isinstance(exc, sdk.APITimeoutError):
            return f"The request to `{model}` timed out; the partial reply is kept — send again to continue."
        if isinstance(exc, sdk.APIConnectionError):
            return f"Could not reach `{model}` ({exc}); check the network or base_url, then send again."
        if isinstance(exc, sdk.RateLimitError):
            return (
                f"`{model}` is rate-limited (HTTP 429) and the retries ran out; wait a moment and send again."
            )
        if isinstance(exc, sdk.AuthenticationError):
            return f"`{model}` refused the API key (HTTP 401); check the api_key reference in .mewrk/llm/."
        if isinstance(exc, sdk.APIStatusError) and exc.status_code != 200:  # 200: an error event mid-stream
            return f"`{model}` answered HTTP {exc.status_code}: {_message(exc)}"
        if isinstance(exc, sdk.APIError):
            return f"`{model}` reported an error mid-reply: {_message(exc)}; the partial reply is kept."
    if type(exc).__module__.split(".")[0] in _TRANSPORT_MODULES:
        return broken
    return f"The exchange with `{model}` failed: {type(exc).__name__}: {exc}"


def _imported_sdks() -> list[ModuleType]:
    """The vendor SDKs this process imported: an exception of an SDK never imported cannot occur, and
    importing one only to ask would cost the offline models a second at `%load_ext`."""
    return [module for name in ("anthropic", "openai") if (module := sys.modules.get(name)) is not None]


def _message(exc: BaseException) -> str:
    body = getattr(exc, "body", None)
    if isinstance(body, dict):
        error = body.get("error")
        if isinstance(error, dict) and error.get("message"):
            return str(error["message"])
    return str(getattr(exc, "message", exc))
