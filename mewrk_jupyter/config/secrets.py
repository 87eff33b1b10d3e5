"""Secret references (`${ENV_VAR}`, `@file:/path`): checked when loaded, resolved only when used (S3)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ..errors import ConfigError
from .problems import invalid

# A header whose name says it carries a credential (`Authorization`, `X-Auth-Key`, `X-Access`, a cookie)
# takes a reference, never the credential itself.
SECRET_HEADER = re.compile(
    r"auth|key|token|secret|passw|cookie|session|credential|signature|access", re.IGNORECASE
)
_ENV_REF = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
_FILE_PREFIX = "@file:"


def is_reference(value: Any) -> bool:
    """Whether `value` is a well-formed secret reference."""
    if not isinstance(value, str):
        return False
    if _ENV_REF.match(value):
        return True
    return value.startswith(_FILE_PREFIX) and _file_path_ok(value[len(_FILE_PREFIX) :])


def check_reference(value: Any, *path: str) -> str:
    """Return `value` if it is a reference; else raise a validation error that never echoes the value."""
    if is_reference(value):
        return value
    field = ".".join(path)
    if isinstance(value, str) and value.startswith(_FILE_PREFIX):
        raise invalid(f"{field}: @file: needs an absolute path (@file:/… or @file:~/…)", *path)
    if isinstance(value, str) and value.startswith("${"):
        raise invalid(f"{field}: write an environment reference as ${{ENV_VAR}}", *path)
    raise invalid(f"{field} must be a reference, not a literal", *path)


def resolve_secret(ref: str) -> str:
    """Read the secret a reference points to, now; the value is returned, never kept."""
    if not isinstance(ref, str) or not is_reference(ref):
        raise ConfigError("A secret must be a reference: ${ENV_VAR} or @file:/path")
    env = _ENV_REF.match(ref)
    if env:
        value = os.environ.get(env.group(1))
        if not value:
            raise ConfigError(f"The secret {ref} is not available: the environment variable is not set")
        return value
    path = Path(ref[len(_FILE_PREFIX) :]).expanduser()
    try:
        value = path.read_text(encoding="utf-8").strip()
    except FileNotFoundError:
        raise ConfigError(f"The secret {ref} is not available: the file does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"The secret {ref} cannot be read: {type(exc).__name__}") from None
    if not value:
        raise ConfigError(f"The secret {ref} is not available: the file is empty")
    return value


def _file_path_ok(path: str) -> bool:
    return path.startswith("/") or path.startswith("~/") or Path(path).is_absolute()


def check_headers(value: Any) -> Any:
    """HTTP headers as written; a credential's header (by its name) or any reference-looking value must be
    a well-formed reference, refused otherwise without echoing it."""
    if isinstance(value, dict):
        for name, text in value.items():
            if SECRET_HEADER.search(str(name)) or (
                isinstance(text, str) and text.startswith(("${", _FILE_PREFIX))
            ):
                check_reference(text, "headers", str(name))
    return value
