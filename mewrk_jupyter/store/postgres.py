"""The team store: a workspace's sessions in PostgreSQL, through psycopg, behind the SQLite store's interface.

The store's modules speak to a connection as to sqlite3's, in SQL that both databases understand; a
`PgConnection` (store/pg_connection.py) speaks that to psycopg.

The promises the SQLite store keeps hold here too. A write transaction first takes the workspace's
advisory lock, so writes of one workspace follow one another as SQLite's BEGIN IMMEDIATE makes them,
across processes and machines; the run's fencing check (store/fence.py) then runs inside it. A fault of
the server or the network (down, a dropped connection, a full disk) is one sentence, and the transaction
it hit is rolled back by the server: nothing half written.
"""

from __future__ import annotations

import hashlib
import os
import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import partial
from typing import Any

from ..errors import StoreError
from . import fence
from .address import PostgresPlace
from .pg_connection import LOCK_SECONDS, PgConnection, reason
from .pg_schema import (
    APPLICATION,
    MIGRATIONS,
    PG_SCHEMA_VERSION,
    REGISTRY,
    REGISTRY_VERSION,
    WORKSPACE,
    statements,
)

CONNECT_SECONDS = 10  # how long opening a connection may take before the server counts as unreachable
LIFE_PROBE_SECONDS = 5.0  # how often a write asks whether this process's life lock is still held
_REGISTRY_LOCK = 0x4D57524B  # "MWRK": the advisory lock held while the registry or a schema is made


# This process, as the owner of its runs names it (`host:pid:…`, engine/turns/run.py): while it lives it
# holds an advisory lock of that name and its workspace's on a connection of its own, which the server
# lets go of when the process dies, wherever it ran.
LIFE = f"{socket.gethostname()}:{os.getpid()}"


def _lock_key(schema: str) -> int:
    """The advisory lock of a workspace's writes: a signed 64-bit number from its schema's name."""
    return int.from_bytes(hashlib.sha256(schema.encode()).digest()[:8], "big", signed=True)


class _Lease:
    """A thread's hold on one connection; it hands the connection back when the thread ends."""

    __slots__ = ("conn", "release")

    def __init__(self, conn: PgConnection, release: Any) -> None:
        self.conn = conn
        self.release = release

    def __del__(self) -> None:
        try:
            self.release()
        except Exception:
            pass


class PgDatabase:
    """A workspace's sessions in PostgreSQL: a connection per thread (an ended thread's goes to the next),
    every change in its own transaction, which holds the workspace's write lock."""

    def __init__(self, place: PostgresPlace, create: bool = True) -> None:
        """Open the workspace's sessions at `place`; `create=False` refuses a workspace the database does
        not hold yet (copying from it) instead of making its schema."""
        self.place = place
        self.create = create
        self.path = place  # what a run's claim names (store/fence.py), as a file's path does for SQLite
        self.opened = False
        self.damaged: StoreError | None = None
        self._local = threading.local()
        self._connections: list[PgConnection] = []
        self._idle: list[PgConnection] = []
        self._generation = 0
        self._lock = threading.RLock()
        self.schema = ""
        self._write_lock = 0
        first = self._connect(schema=None)
        try:
            self.schema = self._open(first)
        except BaseException:
            first.close()
            raise
        self._write_lock = _lock_key(self.schema)
        self._use_schema(first)
        self._life = self._hold_life()
        self._life_probed = time.monotonic()
        self._local.lease = _Lease(first, partial(self._give_back, first, self._generation))
        self._connections.append(first)
        self.opened = True

    def _connect(self, schema: str | None) -> PgConnection:
        try:
            import psycopg
            from psycopg.types.string import TextLoader
        except ImportError:
            raise StoreError(
                f"The team store {self.place} needs the PostgreSQL driver, which is not installed: "
                "pip install 'mewrk_jupyter[postgres]', or unset MEWRK_STORE_URL to keep the sessions in "
                "the workspace's SQLite file."
            ) from None
        password = self.place.resolved_password()
        extra: dict[str, Any] = {"password": password} if password is not None else {}
        try:
            raw = psycopg.connect(
                self.place.url,
                autocommit=True,
                connect_timeout=CONNECT_SECONDS,
                application_name="mewrk_jupyter",
                **extra,
            )
        except psycopg.Error as exc:
            raise self._refused(exc) from None
        raw.adapters.register_loader("json", TextLoader)  # JSON read with -> comes back as text, as in SQLite
        conn = PgConnection(raw, self)
        try:
            conn.execute(f"SET lock_timeout = '{LOCK_SECONDS}s'")
            if schema is not None:
                self._use_schema(conn, schema)
        except BaseException:
            conn.close()
            raise
        return conn

    def _use_schema(self, conn: PgConnection, schema: str | None = None) -> None:
        from psycopg import sql

        name = schema or self.schema
        conn.guarded(conn.raw.execute, sql.SQL("SET search_path TO {}").format(sql.Identifier(name)))

    def _refused(self, exc: Exception) -> StoreError:
        """The sentence for a connection the server refused or could not be made; nothing was written."""
        text = str(exc)
        if "password authentication failed" in text or "no password supplied" in text:
            return StoreError(
                f"The team store {self.place} refused to sign in its user ({reason(exc)}): check the "
                "password MEWRK_STORE_URL gives (or PGPASSWORD, ~/.pgpass). Nothing was written."
            )
        if "does not exist" in text and "database" in text:
            return StoreError(
                f"The team store {self.place} names a database the server does not have: create it "
                "(createdb), or correct MEWRK_STORE_URL. Nothing was written."
            )
        return StoreError(
            f"The team store {self.place} cannot be reached ({reason(exc)}): check that the PostgreSQL "
            "server runs and that MEWRK_STORE_URL names it. Nothing was written."
        )

    def _open(self, conn: PgConnection) -> str:
        """Check the database and find (or make) the workspace's schema, in one transaction under the
        registry's lock; returns the schema's name. A database of another application, or one written by a
        newer mewrk_jupyter, is refused with nothing written."""
        conn.execute("BEGIN")
        try:
            conn.execute("SELECT pg_advisory_xact_lock(?)", (_REGISTRY_LOCK,))
            registry = conn.execute("SELECT to_regclass('public.mewrk_store') IS NOT NULL").fetchone()[0]
            if not registry:
                self._check_empty(conn)
                if not self.create:
                    raise self._no_workspace([])
                for statement in statements(REGISTRY):
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO public.mewrk_store (application, version) VALUES (?, ?)",
                    (APPLICATION, REGISTRY_VERSION),
                )
            stored = conn.execute("SELECT application, version FROM public.mewrk_store").fetchall()
            if [row[0] for row in stored] != [APPLICATION]:
                raise self._foreign("its table mewrk_store names another application")
            if stored[0][1] > REGISTRY_VERSION:
                raise self._newer(stored[0][1])
            schema = self._workspace_schema(conn)
        except BaseException:
            if not conn.broken:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
        return schema

    def _check_empty(self, conn: PgConnection) -> None:
        """A database without our registry must hold no tables at all: another application's are left alone."""
        rows = conn.execute(
            "SELECT table_schema, table_name FROM information_schema.tables "
            "WHERE table_schema NOT IN ('pg_catalog', 'information_schema') "
            "AND table_schema NOT LIKE 'pg_toast%' ORDER BY 1, 2 LIMIT 3"
        ).fetchall()
        if rows:
            names = ", ".join(f"{row[0]}.{row[1]}" for row in rows)
            raise self._foreign(f"it holds tables such as {names}")

    def _foreign(self, why: str) -> StoreError:
        return StoreError(
            f"The database of the team store {self.place} belongs to another application ({why}), so "
            "mewrk_jupyter left it untouched: create an empty database for the sessions (createdb) and "
            "point MEWRK_STORE_URL at it."
        )

    def _newer(self, version: int) -> StoreError:
        return StoreError(
            f"The team store {self.place} was written by a newer mewrk_jupyter (schema {version}; this "
            f"version reads up to {PG_SCHEMA_VERSION}). Upgrade mewrk_jupyter; the store was left untouched."
        )

    def _no_workspace(self, names: list[str]) -> StoreError:
        held = ", ".join(repr(name) for name in names[:5]) + (", …" if len(names) > 5 else "")
        return StoreError(
            f"The team store {self.place} holds no workspace of that name (it holds {held or 'none'}): "
            "check the workspace's name (--workspace, or MEWRK_WORKSPACE). Nothing was written."
        )

    def _workspace_schema(self, conn: PgConnection) -> str:
        """The schema of this workspace's tables, made (or upgraded) if needed, inside the open transaction."""
        from psycopg import sql

        row = conn.execute(
            "SELECT schema_name, version FROM public.mewrk_workspaces WHERE name = ?", (self.place.workspace,)
        ).fetchone()
        if row is not None and row[1] > PG_SCHEMA_VERSION:
            raise self._newer(row[1])
        if row is None and not self.create:
            names = conn.execute("SELECT name FROM public.mewrk_workspaces ORDER BY name LIMIT 6").fetchall()
            raise self._no_workspace([str(name[0]) for name in names])
        if row is None:
            number = conn.execute("SELECT nextval('public.mewrk_workspace_numbers')").fetchone()[0]
            schema = f"mewrk_ws{number}"
            conn.guarded(conn.raw.execute, sql.SQL("CREATE SCHEMA {}").format(sql.Identifier(schema)))
            self._use_schema(conn, schema)
            for statement in statements(WORKSPACE):
                conn.execute(statement)
            conn.execute(
                "INSERT INTO public.mewrk_workspaces (name, schema_name, version, created_at) VALUES (?, ?, ?, ?)",
                (self.place.workspace, schema, PG_SCHEMA_VERSION, time.time()),
            )
            return schema
        schema, version = row[0], row[1]
        if version < PG_SCHEMA_VERSION:
            self._use_schema(conn, schema)
            for step in range(version + 1, PG_SCHEMA_VERSION + 1):
                for statement in statements(MIGRATIONS[step]):
                    conn.execute(statement)
            conn.execute(
                "UPDATE public.mewrk_workspaces SET version = ? WHERE name = ?",
                (PG_SCHEMA_VERSION, self.place.workspace),
            )
        return str(schema)

    def _hold_life(self) -> PgConnection:
        """A connection of its own that holds this process's life lock in the workspace while it lives.
        Another store object of this process for the same workspace (another spelling of the URL) may
        hold it already: then that one's connection says this process lives."""
        conn = self._connect(schema=None)
        conn.execute("SELECT pg_try_advisory_lock(?)", (self.life_key(LIFE),))
        return conn

    def _keep_life(self) -> None:
        """After the server dropped the life connection (a restart, a cut), hold the lock again on a new
        one, so that this process's next runs are not taken for a dead one's. An idle connection learns
        of its loss only when used: it is asked once every LIFE_PROBE_SECONDS."""
        now = time.monotonic()
        if now - self._life_probed < LIFE_PROBE_SECONDS and not self._life.broken:
            return
        with self._lock:
            self._life_probed = now
            try:
                self._life.execute("SELECT 1")
            except StoreError:
                pass
            if self._life.broken:
                self._life.close()
                try:
                    self._life = self._hold_life()
                except StoreError:
                    pass  # the server is away: the change's own connection says so; asked again next time

    def life_key(self, owner: str) -> int:
        """The advisory lock a process holds while it works in this workspace, from its owner's `host:pid`."""
        host, _, rest = owner.partition(":")
        return _lock_key(f"life:{self.schema}:{host}:{rest.partition(':')[0]}")

    def owner_gone(self, owner: str) -> bool:
        """Whether the process that owns a run no longer holds its life lock: it died, or lost its
        connection to the server (then its run is taken over, and fencing stops what it still writes)."""
        if owner.startswith(f"{LIFE}:"):
            return False  # this process
        conn = self.conn()
        key = self.life_key(owner)
        if not conn.execute("SELECT pg_try_advisory_lock(?)", (key,)).fetchone()[0]:
            return False
        conn.execute("SELECT pg_advisory_unlock(?)", (key,))
        return True

    def conn(self) -> PgConnection:
        """This thread's connection: an ended thread's if one is idle, else a new one; one the server
        dropped is replaced."""
        lease = getattr(self._local, "lease", None)
        if lease is not None and not lease.conn.broken:
            return lease.conn
        if lease is not None:
            self._local.lease = None
            self._forget(lease.conn)
        with self._lock:
            conn = None
            while self._idle and conn is None:
                candidate = self._idle.pop()
                if candidate.broken:
                    self._forget(candidate)
                else:
                    conn = candidate
            generation = self._generation
        if conn is None:
            conn = self._connect(self.schema)
            with self._lock:
                self._connections.append(conn)
        self._local.lease = _Lease(conn, partial(self._give_back, conn, generation))
        return conn

    def _forget(self, conn: PgConnection) -> None:
        with self._lock:
            if conn in self._connections:
                self._connections.remove(conn)
        conn.close()

    def _give_back(self, conn: PgConnection, generation: int) -> None:
        with self._lock:
            if generation != self._generation:
                return
            if not conn.broken and not conn.in_transaction:
                self._idle.append(conn)
                return
        self._forget(conn)

    @contextmanager
    def tx(self) -> Iterator[PgConnection]:
        """A write transaction holding the workspace's write lock: all of it is committed, or none of it;
        a run that lost its claim on its session writes nothing (store/fence.py)."""
        conn = self.conn()
        if conn.writing or conn.in_transaction:  # nested use joins the outer transaction
            yield conn
            return
        self._keep_life()
        # One flight for BEGIN, the lock, the rows and COMMIT, answered where a result is read (#37,
        # benchmarks/bench_store_backends.py): an edit of a card's transaction in two round trips, not four.
        conn.writing = True
        try:
            with conn.pipelined():
                conn.execute("BEGIN")
                conn.execute(f"SELECT pg_advisory_xact_lock({int(self._write_lock)})")
                fence.check(conn, self.path)  # type: ignore[arg-type]
                yield conn
                conn.execute("COMMIT")
        except BaseException:
            if not conn.broken and conn.in_transaction:
                try:
                    conn.execute("ROLLBACK")
                except StoreError:
                    pass  # the error that ended the transaction is the one to report
            raise
        finally:
            conn.writing = False

    def put_card_seen(
        self, session_id: str, card_id: str, order_key: str, kind: str, data: str, seen: int
    ) -> int | None:
        """Write a card's row in one call to the server (mw_put_card_seen, store/pg_schema.py) if the session
        is still at revision `seen` and no run of it is marked running: the new revision, or None with nothing
        written. Also None, untried, inside a transaction or for a run whose claim its writes must check."""
        conn = self.conn()
        if conn.writing or conn.in_transaction or fence.claimed(self.path):  # type: ignore[arg-type]
            return None
        self._keep_life()
        rev = conn.call_one(
            "SELECT mw_put_card_seen(?, ?, ?, ?, ?, ?, ?)",
            (self._write_lock, session_id, card_id, order_key, kind, data, seen),
        )
        return None if rev is None else int(rev)

    def read(self, sql: str, params: tuple = ()) -> list[Any]:
        """Run a query outside any write transaction."""
        return self.conn().execute(sql, params).fetchall()

    def close(self) -> None:
        """Close every connection this object opened."""
        with self._lock:
            self._generation += 1
            for conn in self._connections:
                conn.close()
            self._life.close()
            self._connections.clear()
            self._idle.clear()
        self._local = threading.local()
