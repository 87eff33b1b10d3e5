"""The environment of the commands the engine starts: the kernel's, less the variables that hold secrets.

A safety level's `environment:` (in `policy/<level>.yaml`) says which names to drop or keep. By default
a command sees neither the variables a configuration file references (`api_key: ${NAME}`) nor those
whose names look like credentials. The values of the dropped variables, the files that `@file:`
references point to and the Codex CLI's tokens (of a vendor with `credentials: codex-cli`) are the
secrets the redactor hides wherever they still turn up.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path
from urllib.parse import unquote, urlsplit

from pydantic import ValidationInfo, field_validator

from .base import ConfigModel
from .codex_login import codex_login_secrets
from .problems import invalid
from .store_file import STORE_FILE

# Names that usually hold credentials, whatever the configuration says (matched ignoring case); the team
# store's URL may hold its password, and PostgreSQL's own variables may name one (PGPASSFILE).
SECRET_NAMES: tuple[str, ...] = ("*KEY*", "*SECRET*", "*TOKEN*", "*PASSWORD*", "MEWRK_STORE_URL", "PGPASS*")
_NAME_PATTERN = re.compile(r"^[A-Za-z0-9_*?]+$")
# A reference is a whole YAML value: `key: ${NAME}`, `- ${NAME}`, quoted or not, a comment after it.
# `${NAME}` inside a longer text (a tool's shell command) is the shell's own variable, not a reference.
_REFERENCE_LINE = re.compile(
    r"""^\s*(?:-\s+)?(?:(?:"[^"]*"|'[^']*'|[^\s:#'"][^:#]*?)\s*:\s+)?(['"]?)"""
    r"""(?:\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}|@file:(?P<file>[^'"\s#]+))\1\s*(?:\#.*)?$""",
    re.MULTILINE,
)
# The same inside a flow collection (`headers: {X-Key: "${NAME}"}`), where YAML wants it quoted.
_REFERENCE_IN_FLOW = re.compile(
    r"""[\[{,]\s*(?:(?:"[^"]*"|'[^']*'|[^\s:#'",{}\[\]][^:#,{}\[\]]*?)\s*:\s*)?(['"])"""
    r"""(?:\$\{(?P<name>[A-Za-z_][A-Za-z0-9_]*)\}|@file:(?P<file>[^'"\s#]+))\1\s*(?=[,}\]])"""
)
# The password of the team store's URL written as a reference: `postgresql://user:${NAME}@host/db`.
_STORE_PASSWORD_REF = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
# A vendor's `credentials: codex-cli`: the Codex CLI's login file holds its secrets.
_CODEX_CLI_LINE = re.compile(r"""^\s*credentials\s*:\s*(['"]?)codex-cli\1\s*(?:\#.*)?$""", re.MULTILINE)
# The fields of a JSON key file that hold its secrets (a Google service account's, an OAuth client's).
_KEY_FILE_FIELDS = ("private_key", "client_secret", "refresh_token", "access_token")
# Bounds on what is read to find references and secrets: a configuration file, a secret file.
_MAX_CONFIG_BYTES = 1_000_000
_MAX_SECRET_BYTES = 65_536


class EnvironmentPolicy(ConfigModel):
    """`environment:` of a safety level: variable names (`*` and `?` wildcards, any case) to drop or keep.

    A variable is passed on when it matches `keep`, or matches neither `drop`, nor the credential-like
    names, nor a reference of the configuration; `keep` wins, so `drop: ['*']` with a `keep` list is an
    allow-list.
    """

    drop: list[str] = []
    keep: list[str] = []

    @field_validator("drop", "keep")
    @classmethod
    def _patterns(cls, value: list[str], info: ValidationInfo) -> list[str]:
        field = str(info.field_name)
        for index, pattern in enumerate(value):
            if not _NAME_PATTERN.match(pattern):
                # The path is the whole one: this model is only ever the `environment` of a policy file.
                raise invalid(
                    f"environment.{field}: {pattern!r} is not a variable name or pattern "
                    f"(letters, digits, '_', and the wildcards '*' and '?')",
                    "environment",
                    field,
                    str(index),
                )
        return value

    def passes(self, name: str, referenced: frozenset[str]) -> bool:
        """Whether a command may see the variable `name`, given the names the configuration references."""
        if _matches(name, self.keep):
            return True
        return not (name in referenced or _matches(name, SECRET_NAMES) or _matches(name, self.drop))


def _matches(name: str, patterns: list[str] | tuple[str, ...]) -> bool:
    upper = name.upper()
    return any(fnmatchcase(upper, pattern.upper()) for pattern in patterns)


@dataclass(frozen=True)
class References:
    """The secret references written anywhere in a configuration folder, valid files or not."""

    names: frozenset[str] = frozenset()
    files: frozenset[Path] = frozenset()
    codex_cli: bool = False  # a file reads the Codex CLI's login


_cache: dict[Path, tuple[tuple[tuple[str, int, int], ...], References]] = {}
_cache_lock = threading.Lock()


def find_references(home: Path | None) -> References:
    """Every `${NAME}` and `@file:` reference in the YAML files of `home`, re-read when a file changes.

    The text is scanned rather than the validated configuration, so that a file that fails validation
    still keeps its secrets out of commands.
    """
    if home is None or not home.is_dir():
        return References()
    files = _yaml_files(home)
    signature = tuple((str(path), st.st_mtime_ns, st.st_size) for path, st in files)
    with _cache_lock:
        cached = _cache.get(home)
        if cached is not None and cached[0] == signature:
            return cached[1]
    names: set[str] = set()
    paths: set[Path] = set()
    codex_cli = False
    for path, st in files:
        if st.st_size > _MAX_CONFIG_BYTES:
            continue  # the loader refuses such a file; it configures nothing
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in (*_REFERENCE_LINE.finditer(text), *_REFERENCE_IN_FLOW.finditer(text)):
            if match.group("name"):
                names.add(match.group("name"))
            elif match.group("file"):
                paths.add(Path(match.group("file")).expanduser())
        if path.name == STORE_FILE and path.parent == home:  # the team store's password, inside its URL
            names.update(_STORE_PASSWORD_REF.findall(text))
        codex_cli = codex_cli or bool(_CODEX_CLI_LINE.search(text))
    found = References(frozenset(names), frozenset(paths), codex_cli)
    with _cache_lock:
        _cache[home] = (signature, found)
    return found


def _yaml_files(home: Path) -> list[tuple[Path, os.stat_result]]:
    found = []
    for pattern in ("*.yaml", "*.yml", "*/*.yaml", "*/*.yml"):
        for path in home.glob(pattern):
            try:
                st = path.stat()
            except OSError:
                continue
            if path.is_file():
                found.append((path, st))
    return sorted(found, key=lambda item: str(item[0]))


def command_environment(
    policy: EnvironmentPolicy, home: Path | None, environ: Mapping[str, str] | None = None
) -> dict[str, str]:
    """The environment for a command the engine starts (bash, a command tool, a language server, a hook,
    an MCP server): the kernel's own, less what the policy drops."""
    environ = os.environ if environ is None else environ
    referenced = find_references(home).names | store_reference(environ)
    return {name: value for name, value in environ.items() if policy.passes(name, referenced)}


def secret_values(
    policy: EnvironmentPolicy, home: Path | None, environ: Mapping[str, str] | None = None
) -> set[str]:
    """The values to hide wherever they turn up: of dropped variables, of referenced ones (even kept),
    and of the files `@file:` references point to."""
    environ = os.environ if environ is None else environ
    references = find_references(home)
    names = references.names | store_reference(environ)
    values = {value for name, value in environ.items() if name in names or not policy.passes(name, names)}
    values |= store_password(environ)
    for path in references.files:
        value = _read_secret_file(path)
        if value:
            values.add(value)
            values |= _key_file_secrets(value)
    if references.codex_cli:
        values |= codex_login_secrets()
    return values


def store_reference(environ: Mapping[str, str]) -> frozenset[str]:
    """The variable the team store's URL takes its password from (`postgresql://u:${NAME}@…`), if any."""
    found = _STORE_PASSWORD_REF.search(environ.get("MEWRK_STORE_URL", ""))
    return frozenset([found.group(1)]) if found else frozenset()


def store_password(environ: Mapping[str, str]) -> set[str]:
    """The team store's password as written in its URL (or in the variable it names), to hide wherever it
    turns up; the URL as a whole is a dropped variable's value already."""
    url = environ.get("MEWRK_STORE_URL", "")
    try:
        written = urlsplit(url).password if url else None
    except ValueError:
        return set()
    if not written:
        return set()
    ref = _STORE_PASSWORD_REF.fullmatch(unquote(written))
    value = environ.get(ref.group(1), "") if ref else unquote(written)
    return {value, written} - {""}


def _key_file_secrets(text: str) -> set[str]:
    """The secrets inside a key file written as JSON (a Google service account's `private_key`), which
    turn up alone more often than the whole file does."""
    if not text.startswith("{"):
        return set()
    try:
        data = json.loads(text)
    except ValueError:
        return set()
    if not isinstance(data, dict):
        return set()
    return {value.strip() for name in _KEY_FILE_FIELDS if isinstance(value := data.get(name), str) and value}


def _read_secret_file(path: Path) -> str | None:
    """A secret file's text, read only when it is a regular file of a sensible size (never a device)."""
    try:
        if not path.is_file() or path.stat().st_size > _MAX_SECRET_BYTES:
            return None
        return path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError):
        return None
