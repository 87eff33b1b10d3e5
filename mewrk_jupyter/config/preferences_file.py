"""Read and write `preferences.yaml`: an invalid file is left out (defaults act), a write is checked first."""

from __future__ import annotations

import os
import re
import tempfile
from pathlib import Path
from typing import Any

import yaml

from ..errors import InvalidInput
from .filecache import FileCache
from .files import PREFERENCES, validate_text
from .preferences import PREFERENCES_FILE, Preferences, allowed_values
from .problems import InvalidConfig, Problem
from .yamlfile import parse_yaml

FIELDS: tuple[str, ...] = tuple(Preferences.model_fields)


# What reading the file found: the preferences, what is wrong with the file (then the defaults act),
# and what was read otherwise than it is written now (an older fraction as its percent).
Read = tuple[Preferences, tuple[Problem, ...], tuple[Problem, ...]]


def _read_path(path: str) -> Read:
    return _read_file(Path(path))


# Every request asks for the preferences: they are read again only when the file changed.
_READ: FileCache[Read] = FileCache(_read_path)


def read_preferences(home: Path) -> tuple[Preferences, tuple[Problem, ...]]:
    """The folder's preferences, and what is wrong with its file; a missing or invalid file gives defaults."""
    preferences, problems, _ = _READ.get(os.path.join(os.fspath(home), PREFERENCES_FILE))
    return preferences.model_copy(), problems


def preference_notes(home: Path) -> tuple[Problem, ...]:
    """What the folder's file holds that was read otherwise than it is written now, each with its advice."""
    return _READ.get(os.path.join(os.fspath(home), PREFERENCES_FILE))[2]


def _read_file(path: Path) -> Read:
    if not path.exists():
        return Preferences(), (), ()
    if not path.is_file():
        return Preferences(), (Problem(PREFERENCES_FILE, None, "must be a file, not a folder"),), ()
    notes: list[Problem] = []
    try:
        return _parse(path.read_bytes(), notes), (), tuple(notes)
    except InvalidConfig as exc:
        return Preferences(), exc.problems, ()
    except OSError as exc:
        problem = Problem(PREFERENCES_FILE, None, f"the file cannot be read ({exc.strerror or 'error'})")
        return Preferences(), (problem,), ()


def write_preferences(home: Path, changes: dict[str, Any]) -> Preferences:
    """Validate `changes` against the file's current values and write them; a refusal changes nothing.

    Raises InvalidInput naming the field and what it may be, or the file's own problems when the file
    on disk is invalid (it is then left as it is, for the person to fix).
    """
    unknown = [name for name in changes if name not in FIELDS]
    if unknown:
        listed = ", ".join(repr(name) for name in unknown)
        raise InvalidInput(f"There is no preference {listed}; the preferences are {', '.join(FIELDS)}.")
    path = Path(home) / PREFERENCES_FILE
    text = path.read_bytes().decode("utf-8", "replace") if path.is_file() else ""
    current, problems = read_preferences(home)
    if problems:
        found = "; ".join(p.message for p in problems)
        raise InvalidInput(
            f"{PREFERENCES_FILE} is invalid ({found}), so it was not changed; fix or delete the file, "
            "then set the preferences again."
        )
    # An older fraction the file still holds is written as the percent it was read as: the same meaning.
    changes = {**{n.field: getattr(current, n.field) for n in preference_notes(home) if n.field}, **changes}
    try:
        merged = Preferences.model_validate({**current.model_dump(), **changes})
    except Exception as exc:  # a ValidationError: say it in the preference's own words
        name = next(iter(changes)) if len(changes) == 1 else None
        message = _first_message(exc) or (f"{name} must be {allowed_values(name)}" if name else str(exc))
        raise InvalidInput(f"Preference refused: {message}; nothing was changed.") from None
    new_text = _edited(text, changes, merged)
    if new_text != text:
        _replace(path, new_text)
    return merged


def _parse(data: bytes, notes: list[Problem] | None = None) -> Preferences:
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise InvalidConfig([Problem(PREFERENCES_FILE, None, "the file is not UTF-8 text")]) from None
    if not text.strip() or parse_yaml(text, PREFERENCES_FILE).data is None:
        return Preferences()  # an empty file (or only comments) keeps every default
    return validate_text(PREFERENCES, text, "preferences", PREFERENCES_FILE, notes)


def _first_message(exc: Exception) -> str | None:
    errors = getattr(exc, "errors", None)
    if errors is None:
        return None
    for error in errors(include_url=False, include_input=False):
        ctx = error.get("ctx") or {}
        if "message" in ctx:
            return str(ctx["message"])
    return None


def _scalar(value: Any) -> str:
    """A value as YAML writes it on one line."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return repr(value) if isinstance(value, float) else str(value)


def _edited(text: str, changes: dict[str, Any], merged: Preferences) -> str:
    """The file with each changed value rewritten on its own line, comments and other lines kept.

    A file this cannot edit line by line (a flow mapping, a quoted key) is written out again whole,
    which keeps every value but not the comments.
    """
    lines = text.splitlines(keepends=True)
    for name, value in changes.items():
        pattern = re.compile(rf"^{re.escape(name)}[ \t]*:[ \t]*([^#\n]*?)([ \t]+#[^\n]*)?(\r?\n)?$")
        hits = [i for i, line in enumerate(lines) if pattern.match(line)]
        if len(hits) == 1:
            match = pattern.match(lines[hits[0]])
            assert match is not None
            comment, end = match.group(2) or "", match.group(3) or ""
            lines[hits[0]] = f"{name}: {_scalar(value)}{comment}{end}"
        elif not hits:
            if lines and not lines[-1].endswith("\n"):
                lines[-1] += "\n"
            lines.append(f"{name}: {_scalar(value)}\n")
        else:
            lines = []  # written twice: the file was invalid and refused before; kept for safety
            break
    edited = "".join(lines)
    try:
        if lines and _parse(edited.encode()) == merged:
            return edited
    except InvalidConfig:
        pass
    data = {name: getattr(merged, name) for name in _written(text) | set(changes)}
    return yaml.safe_dump({k: data[k] for k in FIELDS if k in data}, sort_keys=False)


def _written(text: str) -> set[str]:
    """The preferences the file writes now (so a rewrite does not add the defaults it left out)."""
    data = parse_yaml(text, PREFERENCES_FILE).data if text.strip() else None
    return {k for k in data if k in FIELDS} if isinstance(data, dict) else set()


def _replace(path: Path, text: str) -> None:
    """Write `text` to `path` at once: a reader sees the old file or the new one, never half of it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, temp = tempfile.mkstemp(prefix=".preferences.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as stream:
            stream.write(text)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temp, path)
    except BaseException:
        Path(temp).unlink(missing_ok=True)
        raise
