"""Where a session lives: the workspace root and its `.mewrk` folder (or MEWRK_HOME)."""

from __future__ import annotations

import os
import warnings
from dataclasses import dataclass
from pathlib import Path

from ..config.store_file import STORE_FILE
from ..errors import ConfigNotice
from ..store.address import URL_VARIABLE, WORKSPACE_VARIABLE, StorePlace, postgres_place, store_place


@dataclass(frozen=True)
class Workspace:
    """A project folder: files the tools may touch, and the folder holding config and the store."""

    root: Path
    home: Path

    @property
    def db_path(self) -> Path:
        """The SQLite store of this workspace."""
        return self.home / "mewrk.db"

    @property
    def store(self) -> StorePlace:
        """Where this workspace keeps its sessions: the PostgreSQL database MEWRK_STORE_URL names (shared
        by the workspaces of one name), else the one its trusted `store.yaml` names, else its SQLite file."""
        from ..config.trust import trust_state
        from ..providers.registry import config_for

        config = config_for(self.home)
        written = config.store if config is not None else None
        if os.environ.get(URL_VARIABLE, "").strip():
            if written is not None:
                _say_once(
                    self.home,
                    f"{self.home / STORE_FILE} is not used: {URL_VARIABLE} is set in the environment (or by "
                    "the Jupyter server's configuration), which wins.",
                )
            return store_place(self.db_path, self.root)
        if config is None or written is None or not trust_state(config).trusted:
            return self.db_path  # an untrusted folder's file waits for trust: the trust sentence says so
        name = os.environ.get(WORKSPACE_VARIABLE, "").strip() or written.workspace or self.root.name
        return postgres_place(written.url, name)

    @classmethod
    def at(cls, root: str | os.PathLike | None = None) -> Workspace:
        """The workspace rooted at `root` (default: the current directory)."""
        base = Path(root if root is not None else os.getcwd()).resolve()
        override = os.environ.get("MEWRK_HOME")
        home = Path(override).expanduser().resolve() if override else base / ".mewrk"
        return cls(root=base, home=home)


_said: set[tuple[Path, str]] = set()


def _say_once(home: Path, sentence: str) -> None:
    """A ConfigNotice said once per process for a folder (the store is looked up at every open)."""
    if (home, sentence) in _said:
        return
    _said.add((home, sentence))
    warnings.warn(sentence, ConfigNotice, stacklevel=3)
