"""OpenAI's error replies, shared by Chat Completions and Responses."""

from __future__ import annotations

from typing import Any

from .core import JSONReply, Reply, fault_options, new_id, retry_headers

_OPENAI_ERROR_TYPES = {
    400: ("invalid_request_error", None),
    401: ("invalid_request_error", "invalid_api_key"),
    403: ("invalid_request_error", None),
    404: ("invalid_request_error", "model_not_found"),
    429: ("requests", "rate_limit_exceeded"),
    500: ("server_error", None),
    503: ("server_error", None),
}


def openai_error(
    status: int = 500,
    message: str | None = None,
    *,
    type: str | None = None,
    code: str | None = None,
    param: str | None = None,
    retry_after: float | str | None = None,
    retry_after_ms: float | None = None,
    should_retry: bool | None = None,
    **faults: Any,
) -> Reply:
    """An HTTP error in OpenAI's shape: ``{"error":{"message","type","param","code"}}``."""
    default_type, default_code = _OPENAI_ERROR_TYPES.get(status, ("server_error", None))
    body = {
        "error": {
            "message": message or f"Test error {status}",
            "type": type or default_type,
            "param": param,
            "code": code if code is not None else default_code,
        }
    }
    headers = {"x-request-id": new_id("req"), **retry_headers(retry_after, retry_after_ms, should_retry)}
    headers.update(faults.pop("headers", {}) or {})
    return JSONReply(status=status, body=body, headers=headers, **fault_options(faults))
