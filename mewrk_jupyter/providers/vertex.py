"""Anthropic's models on Google Vertex AI: the Messages adapter over the official SDK's Vertex client.

The requests are the Anthropic adapter's; the SDK's `AnthropicVertex` moves the model into the address
(`…/projects/P/locations/R/publishers/anthropic/models/M:streamRawPredict`) and signs each request with a
Google bearer token. The token comes from a reference (`access_token`), from a service-account key file
(`service_account`), or from Google's default chain (ADC), which google-auth reads — imported only here,
when a Vertex vendor is first used (the `vertex` extra installs it).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Callable
from typing import Any

import anthropic

from ..errors import ConfigError, ProviderError
from .anthropic import AnthropicExchange, AnthropicProvider
from .base import ModelInfo

PROTOCOL = "vertex"
# The version Vertex AI wants in the body of Anthropic's models, in place of the `anthropic-version` header.
VERTEX_VERSION = "vertex-2023-10-16"
CLOUD_PLATFORM = "https://www.googleapis.com/auth/cloud-platform"
NO_GOOGLE_AUTH = (
    "protocol vertex needs google-auth, which is not installed: pip install 'mewrk_jupyter[vertex]' "
    "(or 'anthropic[vertex]')."
)


class VertexExchange(AnthropicExchange):
    """One streamed Messages call on Vertex AI; Google's failure to give a token is said in a sentence."""

    def create_stream(self) -> Any:
        try:
            return super().create_stream()
        except Exception as exc:
            if not _google_auth_error(exc):
                raise
            raise ProviderError(
                f"`{self.model}` got no Google token for Vertex AI ({type(exc).__name__}: {exc}); sign in "
                "again (`gcloud auth application-default login`) or check the vendor's credentials."
            ) from None


def _google_auth_error(exc: Exception) -> bool:
    try:
        from google.auth.exceptions import GoogleAuthError
    except ImportError:  # signed with an access token, without google-auth installed
        return False
    return isinstance(exc, GoogleAuthError)


class VertexProvider(AnthropicProvider):
    """A vendor of protocol vertex: Anthropic Messages through `anthropic.AnthropicVertex`."""

    protocol = PROTOCOL
    body_fields = {"anthropic_version": VERTEX_VERSION}
    exchange_type = VertexExchange

    def __init__(
        self,
        models: dict[str, ModelInfo],
        project_id: str,
        region: str,
        access_token: Callable[[], str | None],
        service_account: Callable[[], str | None],
        base_url: str | None = None,
        headers: Callable[[], dict[str, str]] | None = None,
        max_retries: int = 2,
    ):
        super().__init__(models, lambda: None, base_url, headers, max_retries)
        self._project_id = project_id
        self._region = region
        self._access_token = access_token
        self._service_account = service_account
        # Google's credentials object refreshes its own token; one is kept per key file (by its digest),
        # and one for the default chain, so that each request does not fetch a new token.
        self._google: dict[str, Any] = {}
        self._google_lock = threading.Lock()

    def _client(self) -> anthropic.AnthropicVertex:
        return self._sdk_client(
            _vertex_client,
            anthropic.DefaultHttpxClient,
            project_id=self._project_id,
            region=self._region,
            base_url=self._base_url,
            **self._credentials(),
        )

    def _credentials(self) -> dict[str, Any]:
        """`access_token` read now from its reference, or Google's credentials object to sign with."""
        token = self._access_token()
        if token:
            return {"access_token": token}
        key_file = self._service_account()
        key = hashlib.sha256(key_file.encode()).hexdigest() if key_file else "adc"
        with self._google_lock:
            found = self._google.get(key)
        if found is None:
            found = _service_account(key_file) if key_file else _default_credentials()
            with self._google_lock:
                self._google = {key: found}  # a changed key file replaces the one before
        return {"credentials": found}


def _vertex_client(api_key: str | None = None, **arguments: Any) -> anthropic.AnthropicVertex:
    """The SDK's Vertex client; `api_key` is the Anthropic key's place, which Vertex has none for."""
    return anthropic.AnthropicVertex(**arguments)


def _service_account(text: str) -> Any:
    """Credentials from a service account's key file (its JSON text), scoped to Vertex AI."""
    try:
        from google.oauth2 import service_account
    except ImportError:
        raise ConfigError(NO_GOOGLE_AUTH) from None
    try:
        info = json.loads(text)
        return service_account.Credentials.from_service_account_info(info, scopes=[CLOUD_PLATFORM])
    except (ValueError, KeyError, TypeError) as exc:
        raise ConfigError(
            f"service_account is not a Google service account's key file ({type(exc).__name__}): download "
            "a JSON key of the account and point the reference at it."
        ) from None


def _default_credentials() -> Any:
    """Google's application default credentials (GOOGLE_APPLICATION_CREDENTIALS, gcloud's login, the
    metadata server), with a sentence when there are none."""
    try:
        import google.auth
        import google.auth.exceptions
    except ImportError:
        raise ConfigError(NO_GOOGLE_AUTH) from None
    try:
        credentials, _ = google.auth.default(scopes=[CLOUD_PLATFORM])
    except google.auth.exceptions.DefaultCredentialsError:
        raise ConfigError(
            "Vertex AI found no Google credentials: run `gcloud auth application-default login`, set "
            "GOOGLE_APPLICATION_CREDENTIALS, or give access_token or service_account in the vendor's file."
        ) from None
    return credentials
