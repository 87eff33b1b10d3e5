"""A real PostgreSQL server for the tests: Debian's, made by initdb in a temporary folder as a non-root
user, on a free loopback port, with password sign-in (scram-sha-256) and its sockets in that folder, so it
never meets a cluster of the machine's own."""

from __future__ import annotations

import glob
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from .ports import free_port

USER = "mewrk"
START_SECONDS = 60


def server_binaries() -> Path:
    """The folder of Debian's PostgreSQL server programs (initdb, pg_ctl, postgres)."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=lambda p: int(p.split("/")[4]))
    if not found:
        raise RuntimeError(
            "The PostgreSQL server is not installed (no /usr/lib/postgresql/*/bin/initdb): `bash tests/run.sh` "
            "installs Debian's postgresql."
        )
    return Path(found[-1]).parent


def _runner() -> tuple[int, int] | None:
    """The (uid, gid) to run the server as when this process is root (initdb refuses root), else None."""
    if os.getuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            entry = pwd.getpwnam(name)
        except KeyError:
            continue
        return entry.pw_uid, entry.pw_gid
    raise RuntimeError("Running as root, and there is no `postgres` or `nobody` user to run PostgreSQL as.")


@dataclass
class Postgres:
    """A running server: where it listens, the superuser's password, and its process."""

    folder: Path
    port: int
    password: str
    process: subprocess.Popen
    command: list[str] = field(default_factory=list)
    as_user: dict = field(default_factory=dict)
    host: str = "127.0.0.1"
    user: str = USER
    _numbers: list[int] = field(default_factory=list)

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}:{self.password}@{self.host}:{self.port}/{database}"

    def new_database(self) -> str:
        """The URL of a new, empty database on this server."""
        import psycopg

        name = f"test_{len(self._numbers) + 1}"
        self._numbers.append(1)
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def restart(self) -> None:
        """Start the server again on its folder and port, after stop()."""
        self.stop()
        with open(self.folder / "server.log", "ab") as out:
            self.process = subprocess.Popen(self.command, stdout=out, stderr=subprocess.STDOUT, cwd=self.folder,
                                            **self.as_user)  # fmt: skip
        _wait_ready(self, self.folder / "server.log")

    def drop_database(self, url: str) -> None:
        """Drop the database a URL of new_database() names, cutting off whoever is still connected."""
        import psycopg

        name = url.rsplit("/", 1)[1]
        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.send_signal(signal.SIGINT)  # PostgreSQL's fast shutdown: clients are cut off
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)


def _wait_ready(server: Postgres, log: Path) -> None:
    import psycopg

    deadline = time.monotonic() + START_SECONDS
    last: Exception | None = None
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            break
        try:
            with psycopg.connect(server.url(), connect_timeout=2):
                return
        except psycopg.OperationalError as exc:
            last = exc
            time.sleep(0.1)
    text = log.read_text(errors="replace")[-3000:] if log.exists() else ""
    raise RuntimeError(f"PostgreSQL did not start ({last}); its log:\n{text}")


@contextmanager
def start_postgres() -> Iterator[Postgres]:
    """A new PostgreSQL server in a new temporary folder, stopped and removed at the end. The folder is
    the temporary directory's own child, not pytest's: the server's user must be able to reach it."""
    binaries = server_binaries()
    runner = _runner()
    folder = Path(tempfile.mkdtemp(prefix="mewrk-postgres-"))
    data, log, secret = folder / "data", folder / "server.log", folder / "password"
    password = secrets.token_urlsafe(18)
    secret.write_text(password)
    as_user: dict = {"env": {k: v for k, v in os.environ.items() if not k.startswith("PG")}}
    if runner is not None:
        for path in (folder, secret):
            os.chown(path, *runner)
        as_user |= {"user": runner[0], "group": runner[1], "extra_groups": []}
    made = subprocess.run(
        [str(binaries / "initdb"), "-D", str(data), "-U", USER, f"--pwfile={secret}", "--auth=scram-sha-256",
         "-E", "UTF8", "--locale=C.UTF-8", "--no-sync"],
        capture_output=True, text=True, cwd=folder, **as_user,
    )  # fmt: skip
    if made.returncode != 0:
        shutil.rmtree(folder, ignore_errors=True)
        raise RuntimeError(f"initdb failed (exit status {made.returncode}): {made.stderr.strip()[-2000:]}")
    port = free_port()
    with open(log, "wb") as out:
        if runner is not None:
            os.chown(log, *runner)
        command = [str(binaries / "postgres"), "-D", str(data), "-p", str(port), "-k", str(folder),
                   "-c", "listen_addresses=127.0.0.1", "-c", "fsync=off", "-c", "synchronous_commit=off",
                   "-c", "full_page_writes=off", "-c", "shared_buffers=32MB", "-c", "max_connections=200"]  # fmt: skip
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=folder, **as_user)
    server = Postgres(folder, port, password, process, command, as_user)
    try:
        _wait_ready(server, log)
        yield server
    finally:
        server.stop()
        shutil.rmtree(folder, ignore_errors=True)
