"""The Codex CLI's own login file (`$CODEX_HOME/auth.json`, by default `~/.codex/auth.json`), read for a
vendor of protocol openai-codex whose file says `credentials: codex-cli`, and only then.

The Codex CLI writes it at `codex login` and refreshes its tokens itself; it is read at each request and
never kept, so a token the CLI refreshed is the next request's. Its fields, as the CLI writes them:
`OPENAI_API_KEY` (a login with an API key) or `tokens` (a ChatGPT login: `access_token`, a JWT,
`refresh_token`, `id_token` and `account_id`).
"""

from __future__ import annotations

import base64
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..errors import ConfigError

CODEX_CLI = "codex-cli"
# Where the Codex CLI sends a ChatGPT login's requests, and the header that names the account.
CHATGPT_CODEX_URL = "https://chatgpt.com/backend-api/codex"
OPENAI_URL = "https://api.openai.com/v1"
ACCOUNT_HEADER = "chatgpt-account-id"
_AUTH_CLAIMS = "https://api.openai.com/auth"
_SECRET_FIELDS = ("access_token", "refresh_token", "id_token")
_MAX_BYTES = 1_000_000


@dataclass(frozen=True)
class CodexLogin:
    """What one reading of the login file gives a request: the bearer token, the account, where to go."""

    token: str
    account_id: str | None
    base_url: str

    @property
    def headers(self) -> dict[str, str]:
        """The headers the ChatGPT backend wants beside the token: the account's id, when there is one."""
        return {ACCOUNT_HEADER: self.account_id} if self.account_id else {}


def codex_login_path() -> Path:
    """The login file the Codex CLI writes: in `$CODEX_HOME`, else in `~/.codex`."""
    home = os.environ.get("CODEX_HOME")
    return (Path(home).expanduser() if home else Path.home() / ".codex") / "auth.json"


def read_codex_login(path: Path | None = None) -> CodexLogin:
    """The login, read now; a ConfigError sentence when the file is missing, unreadable or has no login."""
    path = path or codex_login_path()
    data = _read(path)
    tokens = _tokens(data)
    token = tokens.get("access_token")
    if isinstance(token, str) and token:
        _check_not_expired(token, path)
        account = tokens.get("account_id") or _claims(tokens.get("id_token")).get("chatgpt_account_id")
        return CodexLogin(token, account if isinstance(account, str) and account else None, CHATGPT_CODEX_URL)
    key = data.get("OPENAI_API_KEY")
    if isinstance(key, str) and key:
        return CodexLogin(key, None, OPENAI_URL)  # the CLI sends an API key's requests to the API
    raise ConfigError(
        f"The Codex CLI's login file {path} holds no login (neither tokens.access_token nor "
        "OPENAI_API_KEY): run `codex login` again."
    )


def codex_login_secrets(path: Path | None = None) -> set[str]:
    """The login file's tokens and key, to hide wherever they turn up; none when it cannot be read."""
    try:
        data = _read(path or codex_login_path())
    except ConfigError:
        return set()
    tokens = _tokens(data)
    found = [tokens.get(name) for name in _SECRET_FIELDS] + [data.get("OPENAI_API_KEY")]
    return {value for value in found if isinstance(value, str) and value}


def _tokens(data: dict[str, Any]) -> dict[str, Any]:
    tokens = data.get("tokens")
    return tokens if isinstance(tokens, dict) else {}


def _read(path: Path) -> dict[str, Any]:
    try:
        if path.is_file() and path.stat().st_size > _MAX_BYTES:
            raise ConfigError(f"The Codex CLI's login file {path} is too large to be its login.")
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ConfigError(
            f"The Codex CLI's login file {path} does not exist: run `codex login`, or give the vendor "
            "an api_key reference instead of credentials: codex-cli."
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(
            f"The Codex CLI's login file {path} cannot be read: {type(exc).__name__}."
        ) from None
    try:
        data = json.loads(text)
    except ValueError:
        data = None
    if not isinstance(data, dict):
        raise ConfigError(
            f"The Codex CLI's login file {path} is not the JSON object it writes: run `codex login`."
        )
    return data


def _claims(jwt: Any) -> dict[str, Any]:
    """The claims of a JWT's payload (not verified: the server checks the token), or {}."""
    if not isinstance(jwt, str) or jwt.count(".") != 2:
        return {}
    payload = jwt.split(".")[1]
    try:
        claims = json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))
    except ValueError:
        return {}
    if not isinstance(claims, dict):
        return {}
    auth = claims.get(_AUTH_CLAIMS)
    return {**claims, **auth} if isinstance(auth, dict) else claims


def _check_not_expired(token: str, path: Path) -> None:
    expires = _claims(token).get("exp")
    if isinstance(expires, int | float) and expires < time.time():
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(expires))
        raise ConfigError(
            f"The Codex CLI's login in {path} expired on {when}: run a `codex` command (it refreshes the "
            "login) or `codex login`, then send again."
        )
