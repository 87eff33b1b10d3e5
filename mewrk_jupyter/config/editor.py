"""The settings editor of a configuration folder: list, read, save, create and delete its files. Every
change is checked first — YAML syntax, the file's fields, secrets by reference — and a file changed
elsewhere since it was read is not overwritten unless asked (S1–S5); a refused change writes nothing."""

from __future__ import annotations

import os
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import NamedTuple

from ..errors import ConfigConflict, ConfigError
from . import files
from .atomic import create, current_bytes, folder_lock, replace, version_of
from .editpaths import (
    PREFERENCES_FILE,
    PREFERENCES_KIND,
    ConfigFile,
    Target,
    listing,
    locate,
    read_only_reason,
)
from .files import KINDS, STORE, SUFFIXES, read_text, validate_file, validate_text
from .loader import TRUST_FOLDERS, read_config
from .problems import fail
from .store_file import STORE_KIND
from .trust import TrustState, trust_state
from .yamlfile import MAX_FILE_BYTES, parse_yaml, too_large

PathLike = str | os.PathLike[str]


class ConfigText(NamedTuple):
    """A file's text and its version (the SHA-256 of its bytes), to give back when saving it."""

    text: str
    version: str


@dataclass(frozen=True)
class Written:
    """What a save, create or delete did: the file, its new version (None once deleted), and a sentence
    when the change ended the folder's trust."""

    path: str
    version: str | None
    notice: str | None = None


def validate_preferences(text: str) -> None:
    """The check of preferences.yaml: its own kind's, once config/files.py registers a `preferences` kind;
    until then its YAML syntax and that it holds a mapping of settings."""
    if PREFERENCES_KIND in KINDS or getattr(files, "PREFERENCES_KIND", None) == PREFERENCES_KIND:
        validate_file(PREFERENCES_KIND, text, name="preferences")
        return
    data = parse_yaml(text, PREFERENCES_FILE).data
    if data is not None and not isinstance(data, dict):
        fail(PREFERENCES_FILE, f"the file must be a mapping of settings, not a {type(data).__name__}", 1)


class ConfigEditor:
    """Lists, reads and changes the files of one configuration folder (`.mewrk/` or $MEWRK_HOME)."""

    def __init__(self, home: PathLike):
        self.home = Path(home).expanduser()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.home)!r})"

    def files(self) -> list[ConfigFile]:
        """Each file of llm/, agents/, policy/, tools/, prompts/, preferences.yaml and store.yaml, and server/'s files
        marked read-only with the reason."""
        return listing(self.home)

    def read(self, path: PathLike) -> ConfigText:
        """The text of `path` (relative to the configuration folder) and its version."""
        target = locate(self.home, path)
        if not target.file.is_file():
            raise ConfigError(f"{target.rel} does not exist; create it with create(path, text).")
        text = read_text(target.file, target.rel)
        return ConfigText(text, version_of(text.encode("utf-8")))

    def save(self, path: PathLike, text: str, version: str | None, overwrite: bool = False) -> Written:
        """Check `text` and write it to `path`, if the file is still at `version` (what read() gave).

        Raises InvalidConfig naming the line and field of each problem, or ConfigConflict when the file
        changed on disk since: `overwrite=True` writes over that change. A refused save writes nothing.
        """
        target = self._writable(path)
        data = self._checked(target, text)
        before = self._trust_now(target)
        if overwrite or version is None:  # None: the caller saw no file, so this save may make it
            self._make_folder(target)
        with self._locked(target):
            current = current_bytes(target.file)
            now = version_of(current) if current is not None else None
            if now != version and not overwrite:
                raise ConfigConflict(_conflict(target.rel, now), now)
            if current != data:
                replace(target.file, data)
        return Written(target.rel, version_of(data), self._notice("Saving", target, before))

    def create(self, path: PathLike, text: str) -> Written:
        """Create the file `path` holding `text`, checked like a save; an existing file is refused."""
        target = self._writable(path)
        data = self._checked(target, text)
        for suffix in SUFFIXES:  # the loader refuses a name written as both .yaml and .yml
            twin = target.file.with_suffix(suffix)
            if twin != target.file and twin.exists():
                other = f"{target.rel.rsplit('/', 1)[0]}/{twin.name}"
                raise ConfigError(
                    f"{target.rel} cannot be created: {other} exists already and a file is kept as .yaml "
                    f"or .yml, not both; edit {other} instead."
                )
        before = self._trust_now(target)
        self._make_folder(target)
        with self._locked(target):
            if not create(target.file, data):
                current = current_bytes(target.file)
                raise ConfigConflict(
                    f"{target.rel} exists already, so it was not created; read it and save your text over "
                    "it, or pick another name.",
                    version_of(current) if current is not None else None,
                )
        return Written(target.rel, version_of(data), self._notice("Creating", target, before))

    def delete(self, path: PathLike, version: str | None, overwrite: bool = False) -> Written:
        """Delete `path` if it is still at `version`; ConfigConflict when it changed since (unless
        `overwrite=True`)."""
        target = self._writable(path)
        before = self._trust_now(target)
        with self._locked(target):
            current = current_bytes(target.file)
            now = version_of(current) if current is not None else None
            if now is None:
                raise ConfigConflict(
                    f"{target.rel} does not exist any more (deleted or renamed elsewhere); nothing was deleted.",
                    None,
                )
            if now != version and not overwrite:
                raise ConfigConflict(_conflict(target.rel, now, deleting=True), now)
            target.file.unlink()
        return Written(target.rel, None, self._notice("Deleting", target, before))

    # ---- the gates ---------------------------------------------------------------------------------

    def _writable(self, path: PathLike) -> Target:
        target = locate(self.home, path)
        reason = read_only_reason(target.kind)
        if reason is not None:
            raise ConfigError(f"{target.rel} is read-only in the settings editor: {reason}.")
        return target

    def _checked(self, target: Target, text: str) -> bytes:
        """The bytes to write, once the text passed every check of its kind (InvalidConfig otherwise)."""
        if not isinstance(text, str):
            raise ConfigError(f"{target.rel}: the text to save must be a str, not {type(text).__name__}.")
        try:
            data = text.encode("utf-8")
        except UnicodeEncodeError:
            fail(target.rel, "the text holds characters that cannot be written as UTF-8 (lone surrogates)")
        if len(data) > MAX_FILE_BYTES:
            fail(target.rel, too_large(len(data)))
        if target.kind == PREFERENCES_KIND:
            validate_preferences(text)
        elif target.kind == STORE_KIND:
            validate_text(STORE, text, target.name, target.rel)
        else:
            validate_text(KINDS[target.kind], text, target.name, target.rel)
        return data

    def _make_folder(self, target: Target) -> None:
        try:
            target.file.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            reason = exc.strerror or type(exc).__name__
            raise ConfigError(
                f"{target.rel} cannot be written: its folder cannot be made ({reason})."
            ) from None

    def _locked(self, target: Target) -> AbstractContextManager[None]:
        folder = target.file.parent
        if not folder.is_dir():  # no folder, so no file: the version check below says so
            return nullcontext()
        return folder_lock(folder)

    # ---- trust -------------------------------------------------------------------------------------

    def _trust_now(self, target: Target) -> TrustState | None:
        """The folder's trust before a change to a file that can ask for trust; None for other files."""
        if target.kind not in TRUST_FOLDERS and target.kind != STORE_KIND:
            return None
        return trust_state(read_config(self.home))

    def _notice(self, verb: str, target: Target, before: TrustState | None) -> str | None:
        """One sentence when, after the change, the folder waits for trust; None when nothing changed."""
        if before is None:
            return None
        after = trust_state(read_config(self.home))
        if after.trusted:
            return None
        if before.trusted and before.exposure.needs_trust:
            return (
                f"{verb} {target.rel} ended the trust given to this folder: until you trust it again with "
                "mw.trust() (or %mewrk trust), sessions here send nothing to its servers and run none of its "
                "commands."
            )
        return (
            f"This folder is not trusted yet, so what {target.rel} asks for is not used until you trust it "
            "with mw.trust() (or %mewrk trust)."
        )


def _conflict(rel: str, now: str | None, deleting: bool = False) -> str:
    action = "deleted" if deleting else "saved"
    if now is None:
        return (
            f"{rel} was deleted since you read it (in another window, an editor or git), so your text was not "
            "saved; save with overwrite=True to write it again."
        )
    return (
        f"{rel} changed on disk since you read it (in another window, an editor or git), so it was not "
        f"{action}; read it again to see the change, or pass overwrite=True to replace it."
    )
