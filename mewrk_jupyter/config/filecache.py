"""What a file says, worked out again only when the file changed: every request reads the same few files
(MEMORY.md, preferences.yaml), and a stat is much cheaper than reading and parsing them."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

Value = TypeVar("Value")

# The file's type, modification time, size and inode: a file replaced by a rename (an editor's save) is
# seen even when its size is the same and the file system's clock did not move. None: there is no file.
Signature = tuple[int, int, int, int] | None


class FileCache(Generic[Value]):
    """`derive(path)`'s value for each path, derived again only when the file's stat changed.

    A file that cannot be looked at (no permission, a bad name) is derived at every call and not kept,
    so that `derive` says what is wrong each time."""

    def __init__(self, derive: Callable[[str], Value]):
        self._derive = derive
        self._kept: dict[str, tuple[Signature, Value]] = {}
        self._lock = threading.Lock()

    def get(self, path: str) -> Value:
        try:
            found = os.stat(path)
            signature: Signature = (found.st_mode, found.st_mtime_ns, found.st_size, found.st_ino)
        except (FileNotFoundError, NotADirectoryError):
            signature = None
        except (OSError, ValueError):
            return self._derive(path)
        with self._lock:
            kept = self._kept.get(path)
        if kept is not None and kept[0] == signature:
            return kept[1]
        value = self._derive(path)
        with self._lock:
            self._kept[path] = (signature, value)
        return value
