"""SQLite errors that are the file's fault — damage, a full disk, a lock held too long — said as the
store's sentences. Every connection to the store is a `StoreConnection`, so no raw sqlite3 error about
the file reaches a person, and damage found on any read or write stops the store's writes."""

from __future__ import annotations

import sqlite3
import sys
import threading
from pathlib import Path
from typing import Any, Protocol, cast

from ..errors import StoreError

BUSY_SECONDS = 15  # how long a write waits for another process's transaction before it gives up

# SQLite's primary result codes that say the file, not the query, is at fault (sqlite3.h).
CORRUPT, NOTADB = 11, 26
FULL, IOERR, READONLY, CANTOPEN = 13, 10, 8, 14
BUSY, LOCKED = 5, 6


class Owner(Protocol):
    """The store a connection belongs to: its file, whether it passed the checks of opening, its damage."""

    path: Path
    opened: bool
    damaged: StoreError | None


def result_code(exc: sqlite3.Error) -> int | None:
    """SQLite's primary result code of an error, or None for an error raised by Python's module itself."""
    code = getattr(exc, "sqlite_errorcode", None)
    return code & 0xFF if isinstance(code, int) else None


def damaged(path: Path, detail: object, opened: bool = False) -> StoreError:
    """The sentence for a damaged store: found while opening it (untouched) or later (no more writes)."""
    done = "nothing more is written to it" if opened else "it was left untouched"
    return StoreError(
        f"The store {path} is damaged ({detail}) and {done}: move it aside to start with an empty store, "
        f"or restore it from a backup."
    )


def store_error(path: Path, exc: sqlite3.Error, opened: bool = True) -> StoreError | None:
    """The product's sentence for an SQLite error that is the file's fault; None for an error of the
    query itself, which is a bug and stays as it is."""
    code = result_code(exc)
    if code in (CORRUPT, NOTADB):
        return damaged(path, exc, opened)
    if code == FULL:
        return StoreError(
            f"The store {path} could not be written because the disk is full, so nothing of this change "
            f"was stored: free some space and try again."
        )
    if code in (IOERR, READONLY, CANTOPEN):
        return StoreError(
            f"The store {path} could not be read or written ({exc}), so nothing of this change was stored: "
            f"check the file's disk and permissions, then try again."
        )
    if code in (BUSY, LOCKED):
        return StoreError(
            f"The store {path} stayed locked by another process for {BUSY_SECONDS} s, so nothing of this "
            f"change was stored: try again, or end the process that holds it."
        )
    return None


class StoreCursor(sqlite3.Cursor):
    """A cursor whose errors that are the file's fault become the store's sentence (see store_error).

    Each step holds its connection's guard: SQLite runs a statement with Python's lock released, and a
    connection closed by another thread meanwhile (Database.close) would free what the step is using.
    """

    def _guard(self) -> threading.RLock:
        return cast(StoreConnection, self.connection).guard

    def _fail(self, exc: sqlite3.DatabaseError) -> BaseException:
        conn = self.connection
        return conn.failure(exc) if isinstance(conn, StoreConnection) else exc

    def execute(self, sql: str, parameters: Any = (), /) -> StoreCursor:
        try:
            with self._guard():
                super().execute(sql, parameters)
        except sqlite3.DatabaseError as exc:
            raise self._fail(exc) from None
        return self

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> StoreCursor:
        try:
            with self._guard():
                super().executemany(sql, seq_of_parameters)
        except sqlite3.DatabaseError as exc:
            raise self._fail(exc) from None
        return self

    def fetchone(self) -> Any:
        try:
            with self._guard():
                return super().fetchone()
        except sqlite3.DatabaseError as exc:
            raise self._fail(exc) from None

    def fetchmany(self, size: int | None = 1) -> list[Any]:
        try:
            with self._guard():
                return super().fetchmany(size)
        except sqlite3.DatabaseError as exc:
            raise self._fail(exc) from None

    def fetchall(self) -> list[Any]:
        try:
            with self._guard():
                return super().fetchall()
        except sqlite3.DatabaseError as exc:
            raise self._fail(exc) from None

    def __next__(self) -> Any:
        try:
            with self._guard():
                return super().__next__()
        except sqlite3.DatabaseError as exc:
            raise self._fail(exc) from None


class StoreConnection(sqlite3.Connection):
    """A connection to the store whose statements raise the store's sentences rather than raw SQLite
    errors about the file, and that marks its store damaged when they find damage."""

    owner: Owner | None = None
    # Held while a statement steps (StoreCursor) and while the connection closes (close): reentrant, since
    # the thread that closes may be inside a statement of its own connection's cursor.
    guard: threading.RLock

    def execute(self, sql: str, parameters: Any = (), /) -> StoreCursor:
        return self.cursor(StoreCursor).execute(sql, parameters)

    def executemany(self, sql: str, parameters: Any, /) -> StoreCursor:
        return self.cursor(StoreCursor).executemany(sql, parameters)

    def close(self) -> None:
        """Close once no other thread is inside one of this connection's statements.

        Not while the interpreter shuts down: its daemon threads (a heartbeat, a turn) stop wherever they
        are, a statement's guard with them, and the process's end closes the file anyway. A statement that
        outlasts the busy timeout and more leaves its connection open rather than hang the caller.
        """
        if sys.is_finalizing() or not self.guard.acquire(timeout=BUSY_SECONDS + 5):
            return
        try:
            super().close()
        finally:
            self.guard.release()

    def failure(self, exc: sqlite3.DatabaseError) -> BaseException:
        """What to raise for an error of one of this connection's statements."""
        owner = self.owner
        mapped = store_error(owner.path, exc, opened=owner.opened) if owner is not None else None
        if mapped is None:
            return exc
        if owner is not None and result_code(exc) in (CORRUPT, NOTADB):
            owner.damaged = mapped  # the store takes no more writes
        return mapped


def store_connection(path: Path, owner: Owner) -> StoreConnection:
    """A new connection to the store file, rows read as sqlite3.Row, no implicit transactions."""
    conn = sqlite3.connect(
        path, timeout=BUSY_SECONDS, isolation_level=None, check_same_thread=False, factory=StoreConnection
    )
    assert isinstance(conn, StoreConnection)
    conn.owner = owner
    conn.guard = threading.RLock()
    conn.row_factory = sqlite3.Row
    return conn
