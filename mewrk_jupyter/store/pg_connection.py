"""The team store's connection: psycopg spoken to as the store's modules speak to sqlite3's.

The store's modules use a connection as sqlite3's (`execute`, `executemany`, `fetchone`, rows read by index
or by name, `in_transaction`), in SQL that both databases understand. A `PgConnection` speaks that to
psycopg, with four spellings translated: `?` parameters become `%s` (and a literal `%` doubles), SQLite's
implicit `rowid` is the `row_seq` column the PostgreSQL tables carry, and a JSON column read with `->` or
`->>` is read through `mw_json` (store/pg_schema.py). A fault of the server or the network is one sentence.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from functools import partial
from typing import Any, Protocol

from ..errors import StoreError
from .address import PostgresPlace


class Owner(Protocol):
    """The store a connection belongs to: its place names it in the sentences of its faults, and it
    knows whether the process that owns a run is still connected (store/postgres.py)."""

    place: PostgresPlace

    def owner_gone(self, owner: str) -> bool: ...


LOCK_SECONDS = 15  # how long a write waits for another process's transaction, as SQLite's busy timeout

# The columns whose JSON the store's queries read with -> and ->> (store/pg_schema.py: mw_json).
JSON_COLUMNS = ("data", "response", "settings")
_PARAMETER = re.compile(r"'(?:[^']|'')*'|\?|%|\browid\b|\b(?:" + "|".join(JSON_COLUMNS) + r")(?= ->)")


@functools.lru_cache(maxsize=1024)
def translate(sql: str) -> str:
    """SQLite's spelling of a statement in psycopg's: `?` → `%s`, `%` → `%%`, `rowid` → `row_seq`,
    `data ->` → `mw_json(data) ->`, with string literals left as they are."""

    def one(match: re.Match[str]) -> str:
        token = match.group(0)
        if token == "?":
            return "%s"
        if token == "%":
            return "%%"
        if token == "rowid":
            return "row_seq"
        if token in JSON_COLUMNS:
            return f"mw_json({token})"
        return token.replace("%", "%%")  # a literal's text, whose % psycopg would read as a placeholder

    return _PARAMETER.sub(one, sql)


class Row(Sequence[Any]):
    """A row read by index or by column name, as sqlite3.Row is."""

    __slots__ = ("_names", "_source", "_values")

    def __init__(self, source: PgConnection, names: dict[str, int], values: Sequence[Any]) -> None:
        self._source = source
        self._names = names
        self._values = tuple(values)

    def owner_gone(self, owner: str) -> bool:
        """Whether the process that owns a run (`host:pid:…`) is no longer connected to this store."""
        return self._source.owner.owner_gone(owner)

    def __getitem__(self, key: Any) -> Any:
        if isinstance(key, str):
            return self._values[self._names[key]]
        return self._values[key]

    def __len__(self) -> int:
        return len(self._values)

    def __iter__(self) -> Iterator[Any]:
        return iter(self._values)

    def keys(self) -> list[str]:
        """The column names, in order."""
        return list(self._names)

    def __repr__(self) -> str:
        return f"Row({dict(zip(self._names, self._values, strict=True))!r})"


def _rows(source: PgConnection, cursor: Any) -> Any:
    """psycopg's row factory for Row: the names are read once per result."""
    result = cursor.pgresult  # its field names, without building psycopg's Column objects (many per query)
    names = {} if result is None else {result.fname(i).decode(): i for i in range(result.nfields)}
    return partial(Row, source, names)


class PgCursor:
    """The result of one statement: fetchone, fetchall and iteration, as sqlite3's cursor has them."""

    __slots__ = ("_cursor", "_owner")

    def __init__(self, cursor: Any, owner: PgConnection) -> None:
        self._cursor = cursor
        self._owner = owner

    @property
    def rowcount(self) -> int:
        self._owner.settle()
        return int(self._cursor.rowcount)

    def fetchone(self) -> Any:
        self._owner.settle()
        if self._cursor.description is None:
            return None
        return self._owner.guarded(self._cursor.fetchone)

    def fetchall(self) -> list[Any]:
        self._owner.settle()
        if self._cursor.description is None:
            return []
        return list(self._owner.guarded(self._cursor.fetchall))

    def __iter__(self) -> Iterator[Any]:
        return iter(self.fetchall())


class PgConnection:
    """A psycopg connection that the store's modules use as they use sqlite3's (see the module's text)."""

    def __init__(self, raw: Any, owner: Owner) -> None:
        self.raw = raw
        self.owner = owner
        self.writing = False  # inside the store's write transaction (its BEGIN may not have come back yet)
        self._pipeline: Any = None
        self._caller: Any = None  # the cursor of call_one

    @contextmanager
    def pipelined(self) -> Iterator[None]:
        """Send the statements of a block without waiting for each one's answer: they go in one flight,
        answered when a result is read (settle) and at the block's end, where an error of any of them is
        raised as the store's sentence. A transaction's BEGIN, lock, rows and COMMIT make two round trips
        to a team store's server instead of one each."""
        import psycopg

        try:
            with self.raw.pipeline() as pipeline:
                self._pipeline = pipeline
                try:
                    yield
                finally:
                    self._pipeline = None
        except psycopg.Error as exc:
            mapped = store_fault(self.owner.place, exc)
            if mapped is None:
                raise
            raise mapped from None

    def settle(self) -> None:
        """Wait for the answers of what was sent so far, in a pipelined block; a result is read next."""
        if self._pipeline is not None:
            self.guarded(self._pipeline.sync)

    def guarded(self, call: Any, *args: Any) -> Any:
        """Run a psycopg call; an error of the server or the network becomes the store's sentence."""
        import psycopg

        try:
            return call(*args)
        except psycopg.Error as exc:
            mapped = store_fault(self.owner.place, exc)
            if mapped is None:
                raise
            raise mapped from None

    def execute(self, sql: str, parameters: Sequence[Any] = ()) -> PgCursor:
        cursor = self.raw.cursor(row_factory=partial(_rows, self))
        self.guarded(cursor.execute, translate(sql), tuple(parameters))
        return PgCursor(cursor, self)

    def executemany(self, sql: str, parameters: Any) -> PgCursor:
        cursor = self.raw.cursor(row_factory=partial(_rows, self))
        self.guarded(cursor.executemany, translate(sql), [tuple(p) for p in parameters])
        return PgCursor(cursor, self)

    def call_one(self, sql: str, parameters: Sequence[Any]) -> Any:
        """The first value of the one row a statement returns, through a cursor kept for such calls and
        the statement prepared on the server from its first run: the way of a call a person waits on (an
        edit, store/postgres.py put_card_seen). psycopg still encodes the text in the connection's
        encoding, cancels the statement on an interrupt and prepares again after its DEALLOCATE ALL; a
        fault of the server or the network is the store's sentence."""
        if self._caller is None:
            self._caller = self.raw.cursor()
        cursor = self._caller
        self.guarded(partial(cursor.execute, prepare=True), translate(sql), tuple(parameters))
        row = self.guarded(cursor.fetchone)
        return None if row is None else row[0]

    @property
    def in_transaction(self) -> bool:
        from psycopg.pq import TransactionStatus

        return bool(self.raw.info.transaction_status != TransactionStatus.IDLE)

    @property
    def broken(self) -> bool:
        return bool(self.raw.broken or self.raw.closed)

    def close(self) -> None:
        try:
            self.raw.close()
        except Exception:  # a connection the server dropped closes all the same
            pass


def store_fault(place: PostgresPlace, exc: Exception) -> StoreError | None:
    """The product's sentence for a PostgreSQL error that is the server's or the network's fault; None
    for an error of the query itself, which is a bug and stays as it is."""
    import psycopg
    from psycopg import errors

    if isinstance(exc, errors.DiskFull | errors.OutOfMemory | errors.InsufficientResources):
        return StoreError(
            f"The team store {place} could not be written because its server ran out of room, so nothing of "
            f"this change was stored: free some space there and try again."
        )
    if isinstance(exc, errors.LockNotAvailable | errors.QueryCanceled):
        return StoreError(
            f"The team store {place} stayed locked by another process for {LOCK_SECONDS} s, so nothing of "
            f"this change was stored: try again, or end the process that holds it."
        )
    if isinstance(exc, psycopg.OperationalError | psycopg.InterfaceError):
        return StoreError(
            f"The connection to the team store {place} was lost ({reason(exc)}), so nothing of this change "
            f"was stored: check that the server runs, then try again."
        )
    return None


def reason(exc: Exception) -> str:
    """What went wrong, in a few words, from libpq's message (which never holds the password)."""
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    text = re.sub(r"^connection to server at .*? failed: ", "", text)
    return text.rstrip(".")[:160]
