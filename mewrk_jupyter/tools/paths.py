"""Workspace confinement: every path a file tool touches resolves, symlinks followed, inside the root."""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from .base import ToolFailure


def _inside(path: Path, root: Path) -> bool:
    return path == root or root in path.parents


class Workspace:
    """The folder file tools work in; turns the model's relative paths into real paths inside it."""

    def __init__(self, root: Path, protected: Sequence[Path] = ()) -> None:
        self.root = Path(root).resolve()
        # Folders the model may read but not change: the configuration folder holds the safety levels.
        self.protected = [Path(p).resolve() for p in protected]

    def resolve(self, raw: str) -> Path:
        """The real path `raw` names, or a ToolFailure when it (or a symlink on the way) leaves the root."""
        if not raw.strip():
            raise ToolFailure(f"The path is empty; paths are relative to {self.root}.")
        candidate = Path(raw) if os.path.isabs(raw) else self.root / raw
        lexically_inside = _inside(Path(os.path.normpath(candidate)), self.root)
        outside = f"`{raw}` is outside the workspace; paths are relative to {self.root}."
        # An absolute path is judged by where it resolves to: the root itself may be reached via a symlink.
        if not lexically_inside and not os.path.isabs(raw):
            raise ToolFailure(outside)
        try:
            real = candidate.resolve()
        except (OSError, RuntimeError) as exc:  # a symlink loop
            raise ToolFailure(f"`{raw}` cannot be resolved: {exc}.") from exc
        if not _inside(real, self.root):
            if not lexically_inside:
                raise ToolFailure(outside)
            raise ToolFailure(
                f"`{raw}` leads outside the workspace through a symlink; paths are relative to {self.root}."
            )
        return real

    def writable(self, raw: str) -> Path:
        """The real path `raw` names, refused when it lies in a protected folder as well as outside."""
        real = self.resolve(raw)
        for folder in self.protected:
            if _inside(real, folder):
                raise ToolFailure(
                    f"`{raw}` is in the configuration folder {folder}, which tools may not change; "
                    "the person edits it."
                )
        return real

    def contains(self, path: Path) -> bool:
        """True when `path`, with every symlink followed, lies inside the workspace."""
        try:
            return _inside(path.resolve(), self.root)
        except (OSError, RuntimeError):
            return False

    def display(self, path: Path) -> str:
        """`path` as the model should see it: relative to the root, with forward slashes."""
        relative = os.path.relpath(path, self.root)
        return Path(relative).as_posix()
