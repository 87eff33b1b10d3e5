"""A session's secrets: the environment its commands get, and the redaction of known secret values.

The engine calls `redact`/`redact_data`/`redact_request` at the few points where text is stored or sent:
a tool's result, a request going out, a response and an error stored in the history, the run's log.
"""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path
from typing import Any

from ...config import EnvironmentPolicy, Redactor, command_environment, policy_for, secret_values, trust_state
from ...config.codex_login import codex_login_path
from ...config.environment import find_references
from ...config.sandbox import SandboxPolicy
from ...config.trust import user_config_dir
from ...providers.base import ModelRequest
from ...providers.registry import config_for
from ...tools.sandbox import Sandbox
from ..settings.model import StoredSettings
from ..workspace import Workspace

# Opaque request fields: an attachment's base64, a vendor's signature or encrypted reasoning. Changing a
# byte of them breaks them, and they do not hold a secret as text the redactor could recognise.
# Seconds a redactor is reused while nothing it depends on changed: a turn asks for it several times.
RECHECK_EVERY = 5.0

# The redactor last made for each configuration folder, with what it was made from and when: every
# session of a workspace shares it, and a turn asks for it several times.
_CACHE: dict[Path | None, tuple[tuple[Any, ...], Any, float, Redactor]] = {}
_CACHE_LOCK = threading.Lock()

OPAQUE_FIELDS = frozenset({"data", "signature", "encrypted"})


def _environment_stamp() -> tuple[Any, ...]:
    """The process's environment variables as they stand, to compare with an earlier stamp: CPython's own
    mapping of raw bytes copies in about 2 µs where decoding every name and value takes ten times that."""
    raw = getattr(os.environ, "_data", None)
    return tuple(raw.items()) if isinstance(raw, dict) else tuple(os.environ.items())


class SessionSecrets:
    """The environment policy of the session's safety level and the secrets it makes known."""

    def __init__(self, workspace: Workspace, settings: StoredSettings) -> None:
        self.workspace = workspace
        self.settings = settings

    def policy(self) -> EnvironmentPolicy:
        """The `environment:` of the session's safety level; the default one when the folder is broken."""
        try:
            config = config_for(self.workspace.home)
            policy = policy_for(config, self.settings.value.safety_level).environment
            if policy.keep and config is not None and not trust_state(config).trusted:
                # An untrusted folder may hide more from commands, never pass them a credential.
                return EnvironmentPolicy(drop=policy.drop)
            return policy
        except Exception:  # ConfigError, or whatever a damaged folder raises while it is read
            # Redaction runs on error paths too: it must not fail, and a broken configuration still
            # hides what the default hides.
            return EnvironmentPolicy()

    def sandbox(self) -> Sandbox:
        """Where a command the session starts runs (see `sandbox_at`)."""
        return sandbox_at(self.workspace, self.settings.value.safety_level)

    def environment(self) -> dict[str, str]:
        """The environment of a command the session starts (bash, a command tool, the language server,
        and the hooks and MCP servers to come): the kernel's, less what the policy drops."""
        return command_environment(self.policy(), self.workspace.home)

    def redactor(self) -> Redactor:
        """A redactor for the secrets known now (variables set in the kernel later are included)."""
        # What the values depend on: the environment (compared whole, a few microseconds), the
        # configuration as loaded (re-read only when a file changed) and the safety level. A secret
        # file rewritten in place is read again after RECHECK_EVERY seconds at the latest.
        home = self.workspace.home
        config = config_for(home)
        # Trust lets a level's `keep` act (see policy()), so it is part of the key where there is one.
        keeps = config is not None and any(p.environment.keep for p in config.policies.values())
        trusted = config is not None and keeps and trust_state(config).trusted
        key = (_environment_stamp(), self.settings.value.safety_level, trusted)
        now = time.monotonic()
        with _CACHE_LOCK:
            cached = _CACHE.get(home)
        if (
            cached is not None
            and cached[1] is config
            and cached[0] == key
            and now - cached[2] < RECHECK_EVERY
        ):
            return cached[3]
        redactor = Redactor(secret_values(self.policy(), home))
        with _CACHE_LOCK:
            _CACHE[home] = (key, config, now, redactor)
        return redactor

    def redact(self, text: str) -> str:
        """`text` with every known secret replaced by `[redacted]`."""
        return self.redactor().text(text)

    def redact_data(self, value: Any) -> Any:
        """JSON-like data (a history record, a run event) with every known secret replaced."""
        return self.redactor().data(value)

    def redact_request(self, request: ModelRequest) -> ModelRequest:
        """The request with every known secret replaced, wherever on the timeline it came from."""
        redactor = self.redactor()
        if not redactor:
            return request
        dumped = request.model_dump()
        if not redactor.found_in(dumped, OPAQUE_FIELDS):
            return request
        return ModelRequest.model_validate(redactor.data(dumped, OPAQUE_FIELDS))


def sandbox_policy(workspace: Workspace, level: str) -> SandboxPolicy:
    """The `sandbox:` of the safety level `level`; a folder not trusted yet may only tighten it."""
    try:
        config = config_for(workspace.home)
        policy = policy_for(config, level).sandbox
        if config is not None and not trust_state(config).trusted:
            return policy.untrusted()
        return policy
    except Exception:  # a broken folder still confines its commands as the default does
        return SandboxPolicy()


def sandbox_at(workspace: Workspace, level: str) -> Sandbox:
    """Where a command started at the safety level `level` runs: the workspace writable, its configuration
    folder read-only, and the secret files, the Jupyter runtime folder, the trust records and the Codex CLI's
    login out of sight."""
    policy = sandbox_policy(workspace, level)
    hidden = [
        *sorted(find_references(workspace.home).files),  # in one order, so that two looks compare equal
        user_config_dir(),
        _jupyter_runtime(),
        codex_login_path(),
    ]
    return Sandbox(
        workspace.root,
        policy.mode,
        protected=(workspace.home,),
        read=policy.paths("read"),
        write=policy.paths("write"),
        hidden=tuple(path for path in hidden if path is not None),
    )


def _jupyter_runtime() -> Path | None:
    """The folder of the kernels' connection files and the servers' tokens, where Jupyter says it is."""
    try:
        from jupyter_core.paths import jupyter_runtime_dir
    except ImportError:
        return None
    return Path(jupyter_runtime_dir())
