"""Where a workspace keeps its sessions: its SQLite file, or a PostgreSQL database shared by a team.

`MEWRK_STORE_URL=postgresql://user@host:port/db` puts the sessions of a workspace in PostgreSQL; unset,
they stay in the workspace's SQLite file. In a shared database a workspace is known by its name
(`MEWRK_WORKSPACE`, else its folder's name), so two clones of one project see the same sessions.

The URL's password is a secret like a vendor's key: written in the URL (in the environment only), or
as a reference in its place (`postgresql://mewrk:${PG_PASSWORD}@host/db`), or left to PostgreSQL's own
`PGPASSWORD` and `~/.pgpass`. It is resolved when a connection opens and never shown: the place
prints as its URL without the password.

A command that copies a store (`store copy SRC DST`) names each side as a URL, a workspace folder or an
SQLite file: `named_place` reads which.
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote, unquote, urlsplit, urlunsplit

from ..errors import StoreError

URL_VARIABLE = "MEWRK_STORE_URL"
WORKSPACE_VARIABLE = "MEWRK_WORKSPACE"
SCHEMES = ("postgresql", "postgres")
_ENV_REF = re.compile(r"^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$")
# A workspace's name: what a folder is called, within reason (it is shown and stored, never run).
_NAME = re.compile(r"^[^\x00-\x1f\x7f/\\]{1,200}$")


@dataclass(frozen=True)
class PostgresPlace:
    """A workspace's sessions in a PostgreSQL database: the URL (its password kept apart) and the name
    the workspace goes by there."""

    url: str  # without the password
    workspace: str
    password: str | None = field(default=None, repr=False, compare=False)  # as written: a value or ${VAR}

    def __str__(self) -> str:
        return f"{self.url} (workspace {self.workspace!r})"

    def resolved_password(self) -> str | None:
        """The password to sign in with, read now; None leaves it to PGPASSWORD and ~/.pgpass."""
        if self.password is None:
            return None
        ref = _ENV_REF.match(self.password)
        if ref is None:
            return self.password
        value = os.environ.get(ref.group(1))
        if not value:
            raise StoreError(
                f"The team store {self} takes its password from ${{{ref.group(1)}}}, which is not set: set "
                "it, then try again. Nothing was written."
            )
        return value


StorePlace = Path | PostgresPlace


def store_place(sqlite_file: Path, root: Path, environ: Mapping[str, str] | None = None) -> StorePlace:
    """The store of the workspace at `root`: PostgreSQL when MEWRK_STORE_URL is set, else `sqlite_file`."""
    env = os.environ if environ is None else environ
    url = env.get(URL_VARIABLE, "").strip()
    if not url:
        return sqlite_file
    return postgres_place(url, env.get(WORKSPACE_VARIABLE, "").strip() or root.name)


def postgres_place(url: str, workspace: str, named: str = URL_VARIABLE) -> PostgresPlace:
    """The PostgreSQL place a URL names, or a StoreError that says what is wrong with it (never echoing
    the password); `named` is where the URL was given, as the sentence says it."""
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError:
        raise StoreError(
            f"{named} is not a URL that can be read (write it as postgresql://user@host:port/database)."
        ) from None
    if parts.scheme not in SCHEMES:
        shown = parts.scheme or "no scheme"
        raise StoreError(
            f"{named} must be a postgresql:// URL (it has {shown}); unset it to keep the sessions in "
            "the workspace's SQLite file."
        )
    if not parts.hostname:
        raise StoreError(f"{named} names no host: write it as postgresql://user@host:port/database.")
    database = unquote(parts.path.lstrip("/"))
    if not database or "/" in database:
        raise StoreError(f"{named} names no database: write it as postgresql://user@host:port/database.")
    if parts.query or parts.fragment:
        raise StoreError(
            f"{named} takes no options after the database's name (?… or #…): write it as "
            "postgresql://user@host:port/database."
        )
    if not _NAME.match(workspace):
        raise StoreError(
            f"The workspace's name {workspace!r} cannot name it in the team store: set {WORKSPACE_VARIABLE} "
            "to a name without slashes or control characters."
        )
    user = unquote(parts.username) if parts.username else None
    password = unquote(parts.password) if parts.password is not None else None
    host = parts.hostname if ":" not in parts.hostname else f"[{parts.hostname}]"
    netloc = f"{quote(user, safe='')}@{host}" if user else host
    if port is not None:
        netloc += f":{port}"
    bare = urlunsplit(("postgresql", netloc, f"/{quote(database, safe='')}", "", ""))
    return PostgresPlace(bare, workspace, password or None)


def file_password_refusal(place: PostgresPlace) -> str | None:
    """Why a URL written in a configuration file cannot be used: a file is no place for a password, which
    it gives only as a reference. None when it can be used."""
    written = place.password
    if written is None or _ENV_REF.match(written):
        return None
    return (
        "a configuration file holds no password: write it as a reference "
        "(postgresql://user:${NAME}@host/db, NAME an environment variable) or leave it to PGPASSWORD or "
        "~/.pgpass."
    )


def is_url(text: str) -> bool:
    """Whether a place named on the command line is a URL (`scheme://…`) rather than a path."""
    return re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", text) is not None


def workspace_name(option: str | None, env: Mapping[str, str], folders: list[Path]) -> tuple[str, str]:
    """The workspace's name in PostgreSQL for a command (`store copy`) and how it was chosen: --workspace,
    else MEWRK_WORKSPACE, else the name of the workspace folder named beside the URL (as that workspace's
    own store would be named), else the current folder's."""
    if option and option.strip():
        return option.strip(), "given by --workspace"
    named = env.get(WORKSPACE_VARIABLE, "").strip()
    if named:
        return named, f"{named!r}, from {WORKSPACE_VARIABLE}"
    folder = folders[0].resolve() if folders else Path.cwd()
    which = "the workspace folder" if folders else "the current folder"
    return folder.name, f"the name of {which} {folder} (--workspace names another)"


def named_place(role: str, text: str, workspace: str) -> StorePlace:
    """The store a command line names as `role` (SRC or DST): a postgresql:// URL, a workspace folder (its
    .mewrk/mewrk.db, whatever MEWRK_STORE_URL says) or an SQLite file; a source must exist, and a new
    target file end in .db."""
    if is_url(text):
        scheme = text.partition(":")[0]
        if scheme.lower() not in SCHEMES:
            raise StoreError(
                f"{role} must be a workspace folder, an SQLite .db file or a postgresql:// URL (it has the "
                f"scheme {scheme}), so nothing was copied."
            )
        return postgres_place(text, workspace, named=role)
    path = Path(text).expanduser().resolve()
    if path.is_dir():
        store = path / ".mewrk" / "mewrk.db"
        if role == "SRC" and not store.is_file():
            raise StoreError(
                f"The folder {path} holds no store (.mewrk/mewrk.db), so nothing was copied: SRC names a "
                "workspace folder that has sessions, an SQLite .db file or a postgresql:// URL."
            )
        return store
    if role == "SRC" and not path.is_file():
        raise StoreError(
            f"There is no store at {path}, so nothing was copied: SRC names a workspace folder, an SQLite "
            ".db file or a postgresql:// URL."
        )
    if role == "DST" and not path.exists() and path.suffix != ".db":
        raise StoreError(
            f"DST {path} does not exist, so nothing was copied: name a workspace folder, a new file ending "
            "in .db, or a postgresql:// URL."
        )
    return path
