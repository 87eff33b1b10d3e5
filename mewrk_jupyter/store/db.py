"""The workspace's SQLite database: opening it safely, its schema, and one transaction per change."""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import Any, cast

from ..errors import StoreError
from . import fence
from .address import PostgresPlace, StorePlace
from .faults import BUSY_SECONDS, damaged, store_connection

APPLICATION_ID = 0x4D57524B  # "MWRK": tells our database from any other SQLite file
SCHEMA_VERSION = 8

SCHEMA = """
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    title TEXT NOT NULL,
    parent_id TEXT,
    created_at REAL NOT NULL,
    settings TEXT NOT NULL,
    rev INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE cards (
    session_id TEXT NOT NULL,
    id TEXT NOT NULL,
    order_key TEXT NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, id)
) WITHOUT ROWID;
CREATE UNIQUE INDEX cards_order ON cards (session_id, order_key);
CREATE TABLE history (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id TEXT NOT NULL,
    run_id TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    model TEXT NOT NULL,
    protocol TEXT NOT NULL,
    request TEXT NOT NULL,
    response TEXT,
    error TEXT
);
CREATE INDEX history_session ON history (session_id, id);
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    state TEXT NOT NULL,
    owner TEXT NOT NULL,
    started_at REAL NOT NULL,
    heartbeat_at REAL NOT NULL,
    ended_at REAL,
    stop_requested INTEGER NOT NULL DEFAULT 0,
    error TEXT
);
CREATE INDEX runs_session ON runs (session_id, started_at);
CREATE UNIQUE INDEX runs_one_turn ON runs (session_id) WHERE state = 'running';
CREATE TABLE run_events (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    at REAL NOT NULL,
    kind TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
"""

# Each step takes a store from the version before it to its own; a fresh store runs them all.
_MIGRATIONS = {
    2: """
CREATE TABLE resume_points (
    session_id TEXT NOT NULL,
    approval_id TEXT NOT NULL,
    created_at REAL NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (session_id, approval_id)
) WITHOUT ROWID;
""",
    # Content stored once, named by its sha256: the parts of packed requests, the files of cards.
    # Rows written before keep their request whole (packed = 0) and read as they always did.
    3: """
CREATE TABLE blobs (
    hash TEXT PRIMARY KEY,
    data BLOB NOT NULL
);
ALTER TABLE history ADD COLUMN packed INTEGER NOT NULL DEFAULT 0;
""",
    # A session handed over from another (C3–C5) names it; a subagent's session never auto-compacts.
    4: """
ALTER TABLE sessions ADD COLUMN handover_of TEXT;
ALTER TABLE sessions ADD COLUMN subagent INTEGER NOT NULL DEFAULT 0;
CREATE INDEX sessions_handover_of ON sessions (handover_of) WHERE handover_of IS NOT NULL;
""",
    # Background work (subagents, background commands) with its owner's heartbeat, so that every
    # process sees what runs for a session, and a stop asked anywhere reaches the process that owns it.
    5: """
CREATE TABLE tasks (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    label TEXT NOT NULL,
    child_session TEXT,
    state TEXT NOT NULL,
    owner TEXT NOT NULL,
    started_at REAL NOT NULL,
    heartbeat_at REAL NOT NULL,
    ended_at REAL,
    stop_requested INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX tasks_running ON tasks (session_id) WHERE ended_at IS NULL;
""",
    # The session each notebook (by its path) used last, and the one each of its cells showed: a kernel
    # restarted (a new process, nothing in memory) finds them again when the person re-runs the cell.
    6: """
CREATE TABLE notebook_sessions (
    notebook TEXT NOT NULL,
    cell TEXT NOT NULL,
    session_id TEXT NOT NULL,
    used_at REAL NOT NULL,
    PRIMARY KEY (notebook, cell)
) WITHOUT ROWID;
""",
    # Beside each request as its vendor received it, the neutral request the assembly built (packed), so
    # that the engine reads what it sent in its own words; rows written before have none (NULL).
    7: """
ALTER TABLE history ADD COLUMN neutral TEXT;
""",
    # A session's approval cards by their place, so that whether a subagent's approval waits on it (its
    # state, read at every look) costs the same at 100 cards as at 10,000.
    8: """
CREATE INDEX cards_approvals ON cards (session_id, order_key) WHERE kind = 'approval';
""",
}


class _Lease:
    """A thread's hold on one connection. A thread's local data goes when the thread ends, and with it
    the lease, which hands the connection on to the next new thread: every run is a thread of its own,
    and a connection kept per ended thread would pile up, each holding files open."""

    __slots__ = ("conn", "release")

    def __init__(self, conn: sqlite3.Connection, release: Callable[[], None]) -> None:
        self.conn = conn
        self.release = release

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:  # at interpreter exit the database may already be gone
            pass


class Database:
    """One SQLite file in WAL mode; a connection per thread; every change in its own transaction."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self._local = threading.local()
        self._connections: list[sqlite3.Connection] = []
        self.opened = False  # set once the file passed the checks of opening
        self.damaged: StoreError | None = None  # set when damage was found: nothing more is written
        self._idle: list[sqlite3.Connection] = []  # connections of ended threads, for the next thread
        self._generation = 0  # close() starts a new one: a lease from before it hands back nothing
        # Reentrant: a lease may be dropped, and hand its connection back, while its thread holds it.
        self._lock = threading.RLock()
        self._open()
        self.opened = True

    def _connect(self) -> sqlite3.Connection:
        conn = store_connection(self.path, self)
        try:
            conn.execute(f"PRAGMA busy_timeout = {BUSY_SECONDS * 1000}")
            conn.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: a killed process loses no commit
            conn.execute("PRAGMA foreign_keys = ON")
            conn.execute("PRAGMA cache_size = -16000")  # 16 MB: a long session's index pages stay in memory
        except BaseException:
            conn.close()
            raise
        return conn

    def _open(self) -> None:
        self._check_place()
        exists = self.path.exists() and self.path.stat().st_size > 0
        try:
            conn = self._connect()
        except sqlite3.OperationalError as exc:  # SQLite says only "unable to open database file"
            raise StoreError(
                f"The store {self.path} cannot be opened ({exc}); check that its folder can be written, or "
                "set MEWRK_HOME to another folder."
            ) from None
        try:
            app_id = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
        except BaseException:
            conn.close()
            raise
        if exists and app_id != APPLICATION_ID and (tables or app_id):
            conn.close()
            raise StoreError(
                f"{self.path} is an SQLite file but not a mewrk_jupyter store. It was left untouched; "
                f"set MEWRK_HOME to another folder or move the file aside."
            )
        if version > SCHEMA_VERSION:
            conn.close()
            raise StoreError(
                f"The store {self.path} was written by a newer mewrk_jupyter (schema {version}; this "
                f"version reads up to {SCHEMA_VERSION}). Upgrade mewrk_jupyter; the store was left untouched."
            )
        if exists:
            self._check_pages(conn)
        if version < SCHEMA_VERSION:
            self._upgrade(conn)
        self._local.lease = _Lease(conn, partial(self._give_back, conn, self._generation))
        self._connections.append(conn)

    def _check_place(self) -> None:
        """The store's folder made, and its path free for a file or a file already: what is there
        otherwise (a folder made by a copy gone wrong) is refused with a sentence and left untouched."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(
                f"The store {self.path} cannot be made: its folder {self.path.parent} cannot be made "
                f"({exc.strerror or type(exc).__name__}); set MEWRK_HOME to another folder."
            ) from None
        if self.path.is_dir():
            raise StoreError(
                f"The store {self.path} is a folder, not a file, so no session can be kept there. It was left "
                "untouched: move it aside, or set MEWRK_HOME to another folder."
            )
        if self.path.exists() and not self.path.is_file():
            raise StoreError(
                f"The store {self.path} is not a regular file. It was left untouched: move it aside, or set "
                "MEWRK_HOME to another folder."
            )

    def _check_pages(self, conn: sqlite3.Connection) -> None:
        """Read every page once before anything is written: a store whose pages are damaged (its header
        intact) is refused untouched rather than written to (about 0.5 ms per MB, once per process)."""
        try:
            rows = [str(row[0]) for row in conn.execute("PRAGMA quick_check(3)").fetchall()]
        except BaseException:
            conn.close()
            raise
        if rows != ["ok"]:
            conn.close()
            lines = [line.strip() for row in rows for line in row.splitlines()]
            problems = [line for line in lines if line and not line.startswith("***")]
            raise damaged(self.path, "; ".join(problems[:2]) or "its pages do not check")

    def _upgrade(self, conn: sqlite3.Connection) -> None:
        """Create the schema, or bring an older store up to this version, in one transaction."""
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]  # another process may have won
            steps = [SCHEMA] if version == 0 else []
            steps += [_MIGRATIONS[v] for v in range(max(version, 1) + 1, SCHEMA_VERSION + 1)]
            for script in steps:
                for statement in script.split(";"):
                    if statement.strip():
                        conn.execute(statement)
            if version == 0:
                conn.execute(f"PRAGMA application_id = {APPLICATION_ID}")
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")

    def conn(self) -> sqlite3.Connection:
        """This thread's connection: an ended thread's if one is idle (its page cache is warm), else a new one."""
        lease = getattr(self._local, "lease", None)
        if lease is not None:
            return lease.conn
        with self._lock:
            conn = self._idle.pop() if self._idle else None
            generation = self._generation
        if conn is None:
            conn = self._connect()
            with self._lock:
                self._connections.append(conn)
        self._local.lease = _Lease(conn, partial(self._give_back, conn, generation))
        return conn

    def _give_back(self, conn: sqlite3.Connection, generation: int) -> None:
        """A thread ended: its connection waits for the next thread (closed if it was left mid-transaction)."""
        with self._lock:
            if generation != self._generation:
                return
            if not conn.in_transaction:
                self._idle.append(conn)
                return
            self._connections.remove(conn)
        try:
            conn.close()
        except sqlite3.Error:
            pass

    @contextmanager
    def tx(self) -> Iterator[sqlite3.Connection]:
        """A write transaction: all of it is committed, or none of it.

        A store found damaged takes no more writes, and a run that lost its claim on its session
        (store/fence.py) writes nothing: both are checked inside the transaction, before the change.
        """
        if self.damaged is not None:
            raise StoreError(str(self.damaged))
        conn = self.conn()
        if conn.in_transaction:  # nested use joins the outer transaction
            yield conn
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            fence.check(conn, self.path)
            yield conn
        except BaseException:
            if conn.in_transaction:  # SQLite rolls some failed transactions back by itself
                try:
                    conn.execute("ROLLBACK")
                except (sqlite3.Error, StoreError):
                    pass  # the error that ended the transaction is the one to report
            raise
        conn.execute("COMMIT")

    def read(self, sql: str, params: tuple = ()) -> list[sqlite3.Row]:
        """Run a query outside any write transaction."""
        return self.conn().execute(sql, params).fetchall()

    def close(self) -> None:
        """Close every connection this object opened."""
        with self._lock:
            self._generation += 1
            for conn in self._connections:
                try:
                    conn.close()
                except sqlite3.Error:
                    pass
            self._connections.clear()
            self._idle.clear()
        self._local = threading.local()


_DATABASES: dict[Any, Any] = {}
_DATABASES_LOCK = threading.Lock()


def database(place: StorePlace) -> Database:
    """The process's one store object for a place: a workspace's SQLite file, or its sessions in a
    PostgreSQL database (store/postgres.py), which answers as a Database does."""
    if isinstance(place, PostgresPlace):
        key: Any = place
    else:
        key = Path(place).resolve()
    with _DATABASES_LOCK:
        db = _DATABASES.get(key)
        if db is None:
            if isinstance(key, PostgresPlace):
                from .postgres import PgDatabase

                db = PgDatabase(key)
            else:
                db = Database(key)
            _DATABASES[key] = db
        return cast(Database, db)


def forget_databases() -> None:
    """Close and forget every open database (tests use it to simulate a new process)."""
    with _DATABASES_LOCK:
        for db in _DATABASES.values():
            db.close()
        _DATABASES.clear()
