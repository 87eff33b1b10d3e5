"""Workspace trust: a folder that would reach a server, send a secret or run a command acts only once the
person trusted it. Trust is kept outside every workspace, in the person's own configuration directory
(`~/.config/mewrk/trusted.json`, or $MEWRK_USER_CONFIG), keyed by the folder's absolute path with a digest
of the files that can ask for such things; editing one of them ends the trust until it is given again.
"""

from __future__ import annotations

import functools
import json
import os
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from .exposure import Exposure, exposure_of
from .loader import Config, read_config

TRUST_FILE = "trusted.json"


@dataclass(frozen=True)
class TrustState:
    """Whether a folder may act, and if not, the sentence that says what it would do."""

    home: Path
    exposure: Exposure
    trusted: bool

    @property
    def sentence(self) -> str:
        """What the folder would use and how to trust it; empty when nothing waits for trust."""
        if self.trusted:
            return ""
        return (
            f"The configuration folder {self.home} is not trusted yet, so nothing in it that reaches beyond "
            f"it is used: it would {self.exposure.summary()}. If you wrote this folder or have read it, "
            "trust it with mw.trust() (or %mewrk trust); until then sessions here run on the offline model."
        )


def user_config_dir() -> Path:
    """The person's own mewrk folder, outside every workspace: $MEWRK_USER_CONFIG, else ~/.config/mewrk."""
    override = os.environ.get("MEWRK_USER_CONFIG")
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path("~/.config").expanduser())
    return Path(base) / "mewrk"


# The state last worked out for each folder, with the Config object and trust-file stamp it was worked
# out from: a turn asks several times, and a folder's exposure only changes with its Config.
_cache: dict[Path | None, tuple[Config, tuple, TrustState]] = {}
_cache_lock = threading.Lock()


def trust_state(config: Config) -> TrustState:
    """Whether `config`'s folder may act now; read again when the folder's files or the trust file change."""
    stamp = _stamp(_trust_path())
    with _cache_lock:
        cached = _cache.get(config.home)
        # The same Config object (kept alive here, so its identity is never reused) and trust file.
        if cached is not None and cached[0] is config and cached[1] == stamp:
            return cached[2]
    home = Path(config.home or ".").resolve()
    exposure = exposure_of(config)
    if not exposure.needs_trust:
        state = TrustState(home, exposure, trusted=True)
    else:
        record = _read_records().get(str(home))
        # The digest is of the very bytes this Config was built from, not of the files as they are now.
        trusted = isinstance(record, dict) and record.get("digest") == config.digest
        state = TrustState(home, exposure, trusted)
    with _cache_lock:
        _cache[config.home] = (config, stamp, state)
    return state


def trust_folder(home: Path | str) -> TrustState:
    """Remember that the person trusts the folder `home` as its files stand now; returns its new state."""
    home = Path(home).expanduser().resolve()
    config = read_config(home)
    records = _read_records()
    records[str(home)] = {"digest": config.digest, "trusted_at": time.time()}
    _write_records(records)
    return trust_state(config)


def distrust_folder(home: Path | str) -> bool:
    """Forget the trust given to `home`; False when it had none."""
    home = Path(home).expanduser().resolve()
    records = _read_records()
    if records.pop(str(home), None) is None:
        return False
    _write_records(records)
    return True


def _trust_path() -> str:
    # Worked out once for the variables it depends on: a turn asks for the trust file several times.
    environ = os.environ
    return _trust_path_for(
        environ.get("MEWRK_USER_CONFIG"), environ.get("XDG_CONFIG_HOME"), environ.get("HOME")
    )


@functools.lru_cache(maxsize=8)
def _trust_path_for(override: str | None, xdg: str | None, home: str | None) -> str:
    """The trust file's path while these variables hold these values (they are the cache's key)."""
    return str(user_config_dir() / TRUST_FILE)


def _stamp(path: str) -> tuple:
    try:
        stat = os.stat(path)
    except OSError:
        return (path, None)
    return (path, stat.st_mtime_ns, stat.st_size, stat.st_ino)


def _read_records() -> dict[str, object]:
    """The trusted folders; a missing or unreadable trust file trusts nothing (never the other way)."""
    try:
        data = json.loads(Path(_trust_path()).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    folders = data.get("folders") if isinstance(data, dict) else None
    return dict(folders) if isinstance(folders, dict) else {}


def _write_records(records: dict[str, object]) -> Path:
    path = Path(_trust_path())
    path.parent.mkdir(parents=True, exist_ok=True)
    # Written beside and renamed: a reader never sees half a file, and only the person may read it.
    fd, tmp = tempfile.mkstemp(prefix=".trusted-", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as out:
            json.dump({"folders": records}, out, indent=1, sort_keys=True)
        os.chmod(tmp, 0o600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
