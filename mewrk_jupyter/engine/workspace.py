"""Where a session lives: the workspace root and its `.mewrk` folder (or MEWRK_HOME)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from ..store.address import StorePlace, store_place


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
        by the workspaces of one name), else its SQLite file."""
        return store_place(self.db_path, self.root)

    @classmethod
    def at(cls, root: str | os.PathLike | None = None) -> Workspace:
        """The workspace rooted at `root` (default: the current directory)."""
        base = Path(root if root is not None else os.getcwd()).resolve()
        override = os.environ.get("MEWRK_HOME")
        home = Path(override).expanduser().resolve() if override else base / ".mewrk"
        return cls(root=base, home=home)
