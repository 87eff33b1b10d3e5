"""Which paths the settings editor may touch: a file of a configuration folder, preferences.yaml or
store.yaml, never
a path that leaves the configuration folder (absolute, `..`, or through a symbolic link)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from ..errors import ConfigError
from .base import FILE_NAME
from .files import KINDS, SUFFIXES
from .store_file import STORE_FILE, STORE_KIND

PREFERENCES_FILE = "preferences.yaml"
PREFERENCES_KIND = "preferences"
# The files at the top of the folder the editor knows, each its own kind.
TOP_FILES = {PREFERENCES_FILE: PREFERENCES_KIND, STORE_FILE: STORE_KIND}
# The folders the editor lists, in the order a person meets them; server/ is listed but read-only.
EDITOR_FOLDERS = ("llm", "agents", "policy", "tools", "hooks", "mcp", "prompts", "server")


@dataclass(frozen=True)
class ConfigFile:
    """One file the settings editor shows: its path in the configuration folder, its kind, and whether
    (and why not) it may be changed here."""

    path: str
    kind: str
    read_only: bool = False
    reason: str | None = None


@dataclass(frozen=True)
class Target:
    """A checked path: the file's kind, its stem, and where it is on disk."""

    rel: str
    kind: str
    name: str
    file: Path


def read_only_reason(kind: str) -> str | None:
    """Why the editor does not change files of `kind`; None when it does."""
    spec = KINDS.get(kind)
    if spec is None or spec.editable:
        return None
    if not spec.hot_reloadable:
        return (
            f"{spec.folder}/ is read once when the Jupyter server starts and is not reloaded, so it is "
            "changed by hand and takes effect after a restart"
        )
    return f"{spec.folder}/ is not changed from the settings editor"


def locate(home: Path, path: str | os.PathLike[str]) -> Target:
    """The file `path` names (relative to the configuration folder `home`), or a ConfigError saying why
    the editor does not touch it."""
    rel = os.fspath(path) if isinstance(path, (str, os.PathLike)) else None
    if not isinstance(rel, str) or not rel.strip():
        raise ConfigError(f"A configuration file is named by its path, like agents/main.yaml; got {path!r}.")
    pure = PurePosixPath(rel)
    if pure.is_absolute() or Path(rel).is_absolute():
        raise ConfigError(
            f"{rel} is an absolute path; give the path inside the configuration folder, like agents/main.yaml."
        )
    if ".." in pure.parts:
        raise ConfigError(
            f"{rel} uses '..'; give the path inside the configuration folder, like agents/main.yaml."
        )
    parts = pure.parts
    if len(parts) == 1 and parts[0] in TOP_FILES:
        kind = TOP_FILES[parts[0]]
        name = kind
    elif len(parts) == 2 and parts[0] in EDITOR_FOLDERS and _is_file_name(parts[1]):
        kind, name = parts[0], PurePosixPath(parts[1]).stem
    else:
        folders = ", ".join(f"{f}/" for f in EDITOR_FOLDERS)
        raise ConfigError(
            f"{rel} is not a configuration file: the editor knows NAME.yaml files in {folders} "
            f"(NAME in letters, digits, '.', '_' or '-'), {PREFERENCES_FILE} and {STORE_FILE}."
        )
    clean = "/".join(parts)
    base = home.resolve()
    expected = base.joinpath(*parts)
    found = (home / clean).resolve()
    if not found.is_relative_to(base):
        raise ConfigError(
            f"{clean} leads outside the configuration folder through a symbolic link, so the editor does "
            "not touch it."
        )
    if found != expected:
        raise ConfigError(
            f"{clean} is reached through a symbolic link, so the editor does not change it; edit the file "
            "it points to."
        )
    return Target(clean, kind, name, expected)


def listing(home: Path) -> list[ConfigFile]:
    """Every file of the editor's folders, preferences.yaml and store.yaml, in folder then name order."""
    found: list[ConfigFile] = []
    if not home.is_dir():
        return found
    for top, kind in TOP_FILES.items():
        if (home / top).is_file():
            found.append(_entry(home, top, kind))
    for folder in EDITOR_FOLDERS:
        directory = home / folder
        if not directory.is_dir():
            continue
        names = sorted(
            p.name
            for p in directory.iterdir()
            if p.suffix in SUFFIXES and not p.name.startswith(".") and (p.is_file() or p.is_symlink())
        )
        found.extend(_entry(home, f"{folder}/{name}", folder) for name in names)
    return found


def _entry(home: Path, rel: str, kind: str) -> ConfigFile:
    reason = read_only_reason(kind)
    if reason is None:
        try:
            locate(home, rel)
        except ConfigError as exc:  # a link out of the folder is shown, and why it is left alone
            reason = str(exc).rstrip(".")
    return ConfigFile(rel, kind, read_only=reason is not None, reason=reason)


def _is_file_name(name: str) -> bool:
    pure = PurePosixPath(name)
    return pure.suffix in SUFFIXES and bool(FILE_NAME.match(pure.stem)) and not name.startswith(".")
