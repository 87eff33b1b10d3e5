"""Replace, create or remove one file so that no reader ever sees half of it, under a lock that every
settings editor on this machine takes for the file's folder (so a version check and its write are one step)."""

from __future__ import annotations

import contextlib
import hashlib
import os
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path

try:  # POSIX: the lock also holds between processes (two kernels on one workspace)
    import fcntl
except ImportError:  # pragma: no cover - Windows: the lock holds within this process only
    fcntl = None  # type: ignore[assignment]

NEW_FILE_MODE = 0o644
_locks: dict[Path, threading.Lock] = {}
_locks_guard = threading.Lock()


def version_of(data: bytes) -> str:
    """The version of a file's bytes: their SHA-256, so any change of content gives another version."""
    return hashlib.sha256(data).hexdigest()


def current_bytes(path: Path) -> bytes | None:
    """The file's bytes now, or None when there is no file."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        return None


@contextlib.contextmanager
def folder_lock(folder: Path) -> Iterator[None]:
    """Hold the editors' lock of `folder`: a thread lock, and on POSIX an flock on the folder itself (no
    lock file is left in the configuration folder)."""
    key = folder.resolve()
    with _locks_guard:
        lock = _locks.setdefault(key, threading.Lock())
    with lock:
        if fcntl is None:
            yield
            return
        fd = os.open(key, os.O_RDONLY)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)  # closing releases the flock


def replace(path: Path, data: bytes) -> None:
    """Write `data` beside `path` and rename it over `path`: readers see the old file or the new one."""
    mode = _mode_of(path)
    tmp = _written_beside(path, data, mode)
    try:
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def create(path: Path, data: bytes) -> bool:
    """Create `path` holding `data`, all at once; False (and nothing written) when it exists already."""
    tmp = _written_beside(path, data, NEW_FILE_MODE)
    try:
        os.link(tmp, path)  # unlike a rename, a link never replaces a file that appeared meanwhile
    except FileExistsError:
        return False
    except OSError:  # a file system without hard links: claim the name first, then rename over it
        try:
            os.close(os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, NEW_FILE_MODE))
        except FileExistsError:
            return False
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)
    return True


def _written_beside(path: Path, data: bytes, mode: int) -> Path:
    # Hidden and not .yaml: the loader never reads a half-written temp file as configuration.
    fd, name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    tmp = Path(name)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, mode)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    return tmp


def _mode_of(path: Path) -> int:
    try:
        return path.stat().st_mode & 0o777
    except FileNotFoundError:
        return NEW_FILE_MODE
