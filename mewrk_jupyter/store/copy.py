"""Moving in: a workspace's whole store copied into another, SQLite into PostgreSQL and back.

`python -m mewrk_jupyter store copy SRC DST` (the command line is in __main__). Each side is a workspace
folder (its `.mewrk/mewrk.db`, whatever MEWRK_STORE_URL says), an SQLite file, or a `postgresql://` URL;
in PostgreSQL the workspace goes by its name (--workspace, else MEWRK_WORKSPACE, else the name of the
workspace folder on the other side, else the current folder's).

What is copied: every row of every table of TABLES, each column as it is stored: session and card ids,
the cards' order keys, the history's ids (so its requests keep their numbers), JSON as the text that was
written, timestamps, the stored parts that requests and files are packed into. The target then holds
exactly the source's sessions, cards, history, runs, approvals waiting, tasks, grants (kept in a session's
settings) and notebook links. A table of the schema that is neither in TABLES nor in SKIPPED (with its
reason) stops the copy, so a new table cannot be forgotten silently.

Safe to interrupt, and to run again: the copy is one transaction on the target, which holds the target's
write lock (its other writers wait) and is rolled back by anything that stops it — Ctrl-C, a lost
connection, a killed process — leaving the target as it was. Each source row is matched by its key with
the target's rows: one already there and equal is left, so a second run copies nothing and says so; a
row there that differs, or a row of the target the source lacks (another workspace's sessions, or sessions
changed on either side since the last copy), refuses the whole copy with one sentence, with nothing written.

The source is read in one snapshot (one read transaction), as it stood at one moment. A turn running in
it at that moment, or background work, would be copied half-way: the copy is refused until it ends. A
turn whose process died is copied as it stands, and the target ends it as interrupted when the session is
next used, as the source would.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from ..errors import StoreError
from .address import PostgresPlace, StorePlace, is_url, named_place, workspace_name
from .db import Database
from .pg_connection import PgConnection
from .postgres import PgDatabase
from .runs import is_stale

PAGE_ROWS = 500  # rows read and written at a time: a long history is never held whole in memory

Store = Database | PgDatabase
Connection = sqlite3.Connection | PgConnection


@dataclass(frozen=True)
class Table:
    """A table as the copy sees it: the words for its rows, the columns that name a row, those its
    rows are read in order of (the key, unless the order they were made in matters), and the column
    that names a row's session."""

    name: str
    one: str
    many: str
    key: tuple[str, ...]
    order: tuple[str, ...] = ()
    session: str | None = "session_id"

    @property
    def page_by(self) -> tuple[str, ...]:
        """The columns a page of rows is read after, in order."""
        return self.order or self.key


# Every table of the store's schema (store/db.py, store/pg_schema.py), in the order they are copied.
TABLES = (
    # In the order they were made (rowid): sessions made at one instant list in it.
    Table("sessions", "session", "sessions", ("id",), ("rowid",), session="id"),
    Table("cards", "card", "cards", ("session_id", "id")),
    Table("history", "history row", "history rows", ("id",)),
    # rowid is a run's fencing number (store/fence.py), which must keep growing in the target.
    Table("runs", "run", "runs", ("id",), ("rowid",)),
    Table("run_events", "run event", "run events", ("run_id", "seq"), session=None),
    Table("resume_points", "approval waiting", "approvals waiting", ("session_id", "approval_id")),
    Table("blobs", "stored part", "stored parts", ("hash",), session=None),
    Table("tasks", "task", "tasks", ("id",)),
    Table("notebook_sessions", "notebook link", "notebook links", ("notebook", "cell")),
)
# Tables of the schema left out on purpose, each with why. None is: a process's hold on its runs is an
# advisory lock of the server (store/postgres.py), not a row, and SQLite's own tables are not the store's.
SKIPPED: dict[str, str] = {}
GRANTS = ("grant", "grants")  # counted in the sessions' settings: a grant is not a row of its own


@dataclass(frozen=True)
class Plan:
    """What a copy reads and writes, and how the workspace's name in PostgreSQL was chosen ("" if no
    side is PostgreSQL)."""

    source: StorePlace
    target: StorePlace
    naming: str = ""

    def heading(self) -> str:
        """The line that says what is copied where."""
        line = f"Copying {self.source} to {self.target}"
        return line + (f"; the workspace's name in PostgreSQL is {self.naming}." if self.naming else ".")


def plan_copy(
    source: str, target: str, workspace: str | None = None, environ: Mapping[str, str] | None = None
) -> Plan:
    """The places SRC and DST name, or a StoreError that says what is wrong with one (nothing written)."""
    env = os.environ if environ is None else environ
    texts = {"SRC": source, "DST": target}
    name, naming = "", ""
    if any(is_url(text) for text in texts.values()):
        folders = [Path(text).expanduser() for text in texts.values() if not is_url(text)]
        name, naming = workspace_name(workspace, env, [f for f in folders if f.is_dir()])
    places = {role: named_place(role, text, name) for role, text in texts.items()}
    if places["SRC"] == places["DST"]:
        raise StoreError(
            f"SRC and DST are the same store, {places['SRC']}, so nothing was copied: name another DST."
        )
    return Plan(places["SRC"], places["DST"], naming)


class Progress:
    """The copy's progress on a stream (stderr): one line rewritten in place on a terminal, a plain line
    per table (and one every few seconds of a long table) otherwise."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream
        self.tty = stream.isatty()
        self.every = 0.1 if self.tty else 5.0
        self.shown_at = 0.0
        self.table = ""
        self.open_line = False

    def say(self, text: str) -> None:
        """A line of its own (a heading, or the sentence that stopped the copy)."""
        self.end_line()
        self.stream.write(text + "\n")
        self.stream.flush()

    def count(self, table: Table, done: int, total: int, last: bool = False) -> None:
        """`done` of a table's `total` rows are copied (or found there already)."""
        now = time.monotonic()
        if table.name != self.table:  # a table's first page: a terminal shows it, a log waits a while
            self.table, self.shown_at = table.name, now - self.every if self.tty else now
        if not last and now - self.shown_at < self.every:
            return
        self.shown_at = now
        text = f"copying {table.many} {done}/{total}"
        if self.tty:
            self.stream.write(f"\r{text}\x1b[K")
            self.open_line = True
            if last:
                self.end_line()
        else:
            self.stream.write(text + "\n")
        self.stream.flush()

    def end_line(self) -> None:
        """End a line rewritten in place, so that what follows starts on a line of its own."""
        if self.open_line:
            self.stream.write("\n")
            self.open_line = False


@dataclass
class Summary:
    """What a copy did: per kind of row (a table's name, or "grants"), how many were copied and how many
    were there already."""

    source: StorePlace
    target: StorePlace
    copied: dict[str, int] = field(default_factory=dict)
    there: dict[str, int] = field(default_factory=dict)

    def line(self) -> str:
        """The one line that says it, counts per kind."""
        copied, there = _counts(self.copied), _counts(self.there)
        if not copied and not there:
            return f"The source {self.source} holds no sessions, so nothing was copied."
        if not copied:
            return f"Nothing new to copy: {there} already there in {self.target}."
        return f"Copied {copied} to {self.target}" + (f"; {there} already there." if there else ".")


def _counts(numbers: dict[str, int]) -> str:
    """`4 sessions, 1 grant, … and 2 notebook links`: the kinds of rows in the order they are copied."""
    words = {t.name: (t.one, t.many) for t in TABLES} | {"grants": GRANTS}
    kinds = ["sessions", "grants", *(t.name for t in TABLES[1:])]
    said = [f"{numbers[kind]} {words[kind][numbers[kind] != 1]}" for kind in kinds if numbers.get(kind)]
    return " and ".join([", ".join(said[:-1]), said[-1]] if len(said) > 1 else said)


def copy_store(plan: Plan, progress: Progress) -> Summary:
    """Copy the plan's source into its target in one transaction; a StoreError (nothing written) when the
    source is busy or the target holds other data."""
    summary = Summary(plan.source, plan.target)
    source = _open(plan.source, create=False)
    try:
        with _snapshot(source) as reading:
            _check_tables(source, plan.source)
            _check_quiet(reading, plan.source)
            totals = {
                t.name: int(reading.execute(f"SELECT count(*) FROM {t.name}").fetchone()[0]) for t in TABLES
            }
            if not any(totals.values()):
                return summary
            made = isinstance(plan.target, Path) and not plan.target.exists()
            try:
                target = _open(plan.target, create=True)
                try:
                    _copy(reading, source, target, totals, progress, summary)
                finally:
                    target.close()
            except BaseException:
                if made:  # a new file that holds nothing: not left behind
                    for suffix in ("", "-wal", "-shm"):
                        Path(f"{plan.target}{suffix}").unlink(missing_ok=True)
                raise
    finally:
        source.close()
    return summary


def _open(place: StorePlace, create: bool) -> Store:
    if isinstance(place, PostgresPlace):
        return PgDatabase(place, create=create)
    return Database(place)


@contextmanager
def _snapshot(store: Store) -> Iterator[Connection]:
    """A connection that reads the store as it stands now, whatever is written meanwhile."""
    conn: Connection = store.conn()
    conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ" if isinstance(conn, PgConnection) else "BEGIN")
    try:
        yield conn
    finally:
        broken = isinstance(conn, PgConnection) and conn.broken
        if not broken and conn.in_transaction:
            conn.execute("ROLLBACK")


def tables_of(store: Store) -> set[str]:
    """The names of the tables of a store's schema (the workspace's, in PostgreSQL)."""
    if isinstance(store, PgDatabase):
        sql = "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()"
    else:
        sql = "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%'"
    return {str(row[0]) for row in store.read(sql)}


def _columns(store: Store, table: str) -> list[str]:
    """A table's columns, in order; PostgreSQL's row_seq is its rowid, which each database numbers itself."""
    if isinstance(store, PgDatabase):
        rows = store.read(
            "SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema() "
            "AND table_name = ? ORDER BY ordinal_position",
            (table,),
        )
        return [str(row[0]) for row in rows if row[0] != "row_seq"]
    return [str(row[1]) for row in store.read(f"PRAGMA table_info({table})")]


def _check_tables(store: Store, place: StorePlace) -> None:
    unknown = sorted(tables_of(store) - {t.name for t in TABLES} - set(SKIPPED))
    if unknown:
        raise StoreError(
            f"The store {place} holds tables that the copy does not know ({', '.join(unknown)}), so nothing "
            "was copied: this is a bug of mewrk_jupyter, to be reported."
        )


def _check_quiet(conn: Connection, place: StorePlace) -> None:
    """Refuse a source in which a turn runs, or background work, at the moment of the snapshot."""
    busy = [
        (row, "runs a turn") for row in conn.execute("SELECT * FROM runs WHERE state = 'running'").fetchall()
    ]
    tasks = conn.execute("SELECT * FROM tasks WHERE ended_at IS NULL ORDER BY started_at").fetchall()
    busy += [(row, f"has background work running ({row['label']})") for row in tasks]
    for row, doing in busy:
        if not is_stale(row):
            raise StoreError(
                f"The session {_title(conn, row['session_id'])} of {place} {doing}, so nothing was copied: "
                "wait for it to end (or stop it), then copy again."
            )


def _title(conn: Connection, session_id: str) -> str:
    row = conn.execute("SELECT title FROM sessions WHERE id = ?", (session_id,)).fetchone()
    return f"{row[0]!r} ({session_id})" if row is not None else session_id


def _copy(
    reading: Connection,
    source: Store,
    target: Store,
    totals: dict[str, int],
    progress: Progress,
    summary: Summary,
) -> None:
    with target.tx() as writing:
        for table in TABLES:
            columns = _columns(source, table.name)
            if set(columns) != set(_columns(target, table.name)):
                raise StoreError(
                    f"The table {table.name} of {summary.target} has other columns than the source's, so "
                    "nothing was copied: open each store once with this version of mewrk_jupyter, then copy."
                )
            _copy_table(reading, writing, table, columns, totals[table.name], progress, summary)
        if isinstance(target, PgDatabase):
            _advance_counters(writing)


def _copy_table(
    reading: Connection,
    writing: Connection,
    table: Table,
    columns: list[str],
    total: int,
    progress: Progress,
    summary: Summary,
) -> None:
    """Copy the rows of one table the target lacks; refuse a row there that differs, or one the source lacks."""
    key = [columns.index(name) for name in table.key]
    session = columns.index(table.session) if table.session else None
    theirs: dict[tuple[Any, ...], tuple[bytes, Any]] = {}
    for page in _pages(writing, table, columns):
        for values in page:
            theirs[tuple(values[i] for i in key)] = (
                _digest(values),
                values[session] if session is not None else None,
            )
    insert = f"INSERT INTO {table.name} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
    done = 0
    for page in _pages(reading, table, columns):
        fresh = []
        for values in page:
            had = theirs.pop(tuple(values[i] for i in key), None)
            if had is None:
                fresh.append(values)
            elif had[0] != _digest(values):
                raise _refused(summary.target, table, had[1], reading, differs=True)
            _tally(summary.copied if had is None else summary.there, table, columns, values)
        if fresh:
            writing.executemany(insert, fresh)
        done += len(page)
        progress.count(table, done, total)
    if theirs:
        _, session_id = next(iter(theirs.values()))
        raise _refused(summary.target, table, session_id, writing, differs=False)
    if total:
        progress.count(table, done, total, last=True)


def _pages(conn: Connection, table: Table, columns: list[str]) -> Iterator[list[tuple[Any, ...]]]:
    """A table's rows, a page at a time in the order of its page columns, each as the values of `columns`."""
    by = table.page_by
    order = ", ".join(by)
    select = f"SELECT {order}, {', '.join(columns)} FROM {table.name}"
    after: tuple[Any, ...] | None = None
    while True:
        where = f" WHERE ({order}) > ({', '.join('?' * len(by))})" if after is not None else ""
        rows = conn.execute(f"{select}{where} ORDER BY {order} LIMIT {PAGE_ROWS}", after or ()).fetchall()
        if not rows:
            return
        page = [tuple(row) for row in rows]
        yield [values[len(by) :] for values in page]
        after = page[-1][: len(by)]


def _digest(values: tuple[Any, ...]) -> bytes:
    """A row's values in short: ints, floats, text, bytes and None read alike from either database."""
    return hashlib.blake2b(repr(values).encode(), digest_size=16).digest()


def _tally(counts: dict[str, int], table: Table, columns: list[str], values: tuple[Any, ...]) -> None:
    counts[table.name] = counts.get(table.name, 0) + 1
    if table.name == "sessions":
        settings = json.loads(values[columns.index("settings")])
        counts["grants"] = counts.get("grants", 0) + len(settings.get("approved_always") or [])


def _refused(
    target: StorePlace, table: Table, session_id: Any, conn: Connection, differs: bool
) -> StoreError:
    """The sentence for a target that holds other data than the source's."""
    if isinstance(target, PostgresPlace):
        remedy = "copy into an empty database, or under another workspace name (--workspace)"
    else:
        remedy = "copy into a new .db file, or a folder without a store"
    if session_id is None:
        what = f"{table.many} that the source does not have, or that differ from the source's"
    elif table.name == "sessions" and not differs:
        what = f"the session {_title(conn, session_id)}, which the source does not have"
    elif table.name == "sessions":
        what = f"the session {_title(conn, session_id)}, and it differs from the source's"
    else:
        what = f"the session {_title(conn, session_id)} with other {table.many} than the source's"
    return StoreError(f"The target {target} holds {what}, so nothing was copied: {remedy}.")


def _advance_counters(conn: Connection) -> None:
    """PostgreSQL numbers a new row past the rows the copy gave their ids (the history's), not after 1."""
    rows = conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = "
        "current_schema() AND is_identity = 'YES' AND column_name != 'row_seq'"
    ).fetchall()
    for table, column in rows:
        conn.execute(
            f"SELECT setval(pg_get_serial_sequence(?, ?), top) FROM (SELECT max({column}) AS top FROM {table}) "
            "AS highest WHERE top IS NOT NULL",
            (table, column),
        )
