"""The kinds of configuration file, and the validation of one file's text (shared by loading and the editor)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from ..errors import ConfigError
from .agents import AgentConfig
from .base import FILE_NAME
from .credentials import credential_problems
from .hooks import HookConfig
from .llm import VendorConfig
from .mcp import McpServerConfig
from .policy import PolicyConfig
from .preferences import PREFERENCES_FILE, Preferences
from .problems import Problem, describe, fail, optional_fields, raise_problems, required_fields
from .prompts import PromptProfile
from .server import ServerConfig
from .shares import read_fractions
from .store_file import STORE_FILE, STORE_KIND, StoreFile
from .tools import ToolConfig
from .workflows import WorkflowConfig
from .yamlfile import MAX_FILE_BYTES, parse_yaml, too_large

SUFFIXES = (".yaml", ".yml")


@dataclass(frozen=True)
class FileKind:
    """One subfolder of the configuration folder: the model of its files and how it may be changed."""

    folder: str
    model: type[BaseModel]
    noun: str
    editable: bool = True
    hot_reloadable: bool = True

    def subject(self, name: str) -> str:
        """Whose fields a message talks about, e.g. "tool 'grep2'"."""
        return f"{self.noun} '{name}'"


KINDS: dict[str, FileKind] = {
    "llm": FileKind("llm", VendorConfig, "vendor"),
    "agents": FileKind("agents", AgentConfig, "agent"),
    "policy": FileKind("policy", PolicyConfig, "policy"),
    "tools": FileKind("tools", ToolConfig, "tool"),
    # S2: the server reads its settings once at start; the settings editor leaves them alone.
    "server": FileKind("server", ServerConfig, "server", editable=False, hot_reloadable=False),
    # S1: the settings editor also edits prompt profiles (read at each request, like the folders above).
    "prompts": FileKind("prompts", PromptProfile, "prompt profile"),
    "hooks": FileKind("hooks", HookConfig, "hook"),
    "mcp": FileKind("mcp", McpServerConfig, "MCP server"),
    "workflows": FileKind("workflows", WorkflowConfig, "workflow"),
}
EDITABLE_KINDS: tuple[str, ...] = tuple(k for k, v in KINDS.items() if v.editable)

# `preferences.yaml` is one file at the top of the folder, not a subfolder: validate_file("preferences", ...).
PREFERENCES_KIND = "preferences"
PREFERENCES = FileKind("", Preferences, "preferences")
# `store.yaml`, likewise one file at the top: the team store the folder's sessions are kept in.
STORE = FileKind("", StoreFile, "team store")


def validate_file(kind: str, source: Path | str, *, name: str | None = None) -> Any:
    """Validate one file: `source` is its Path, or its text (then `name` is the stem); returns its model.

    `kind` is a subfolder of KINDS, or "preferences" for `preferences.yaml` and "store" for `store.yaml`
    (then `name` is not needed).

    Raises InvalidConfig (a ConfigError) whose message names the file and the field.
    """
    if kind == PREFERENCES_KIND:
        text = read_text(source, PREFERENCES_FILE) if isinstance(source, Path) else source
        return validate_text(PREFERENCES, text, "preferences", PREFERENCES_FILE)
    if kind == STORE_KIND:
        text = read_text(source, STORE_FILE) if isinstance(source, Path) else source
        return validate_text(STORE, text, "store", STORE_FILE)
    spec = _kind(kind)
    if isinstance(source, Path):
        name = name or source.stem
        rel = f"{spec.folder}/{source.name}"
        text = read_text(source, rel)
    else:
        if not name:
            raise TypeError("validate_file needs the file's name (its stem) when given text")
        rel, text = f"{spec.folder}/{name}.yaml", source
    return validate_text(spec, text, name, rel)


def validate_text(spec: FileKind, text: str, name: str, rel: str, notes: list[Problem] | None = None) -> Any:
    """Validate the text of the file `rel` (stem `name`) against its kind's model.

    With `notes` (a file being read, not a change being checked), an older file's fraction where a
    percent belongs is read as the percent it meant, and `notes` gets a sentence saying so.
    """
    if not FILE_NAME.match(name):
        fail(rel, "the file name must be letters, digits, '.', '_' or '-'")
    doc = parse_yaml(text, rel)
    if doc.data is None:
        fail(rel, f"the file holds no YAML content (empty or only comments); {_needs(spec, name)}")
    if not isinstance(doc.data, dict):
        found = type(doc.data).__name__
        fail(rel, f"the file must be a mapping of fields, not a {found}; {_needs(spec, name)}", 1)
    data = doc.data
    if notes is not None:
        data, read_as_percent = read_fractions(data, rel, doc.line_of)
        notes.extend(read_as_percent)
    literals = credential_problems(data, rel, doc.line_of)
    try:
        model = spec.model.model_validate(data, context={"name": name})
    except ValidationError as exc:
        problems = describe(exc, rel, spec.subject(name), spec.model, doc.line_of)
        said = {p.field for p in problems}
        problems += [p for p in literals if p.field not in said]
        raise_problems(sorted(problems, key=lambda p: (p.line is None, p.line or 0)))
    if literals:
        raise_problems(literals)
    return model


def read_text(path: Path, rel: str) -> str:
    """A file's text, or a ConfigError naming it when it cannot be read as UTF-8 or is too large."""
    try:
        size = path.stat().st_size  # measured before reading: a huge file is refused without loading it
        if size > MAX_FILE_BYTES:
            fail(rel, too_large(size))
        with path.open("rb") as stream:  # a file that grew since: read no more than the bound allows
            data = stream.read(MAX_FILE_BYTES + 1)
        if len(data) > MAX_FILE_BYTES:
            fail(rel, too_large(len(data)))
        return data.decode("utf-8")
    except UnicodeDecodeError:
        fail(rel, "the file is not UTF-8 text")
    except OSError as exc:
        fail(rel, f"the file cannot be read ({exc.strerror or type(exc).__name__})")


def _kind(kind: str) -> FileKind:
    if kind not in KINDS:
        raise ConfigError(
            f"There is no configuration folder {kind!r}; the folders are {', '.join(KINDS)} "
            f"(and {PREFERENCES_KIND!r} for {PREFERENCES_FILE}, {STORE_KIND!r} for {STORE_FILE})"
        )
    return KINDS[kind]


def _needs(spec: FileKind, name: str) -> str:
    required = required_fields(spec.model)
    optional = ", ".join(optional_fields(spec.model))
    if not required:
        return f"it may hold: {optional}"
    lacks = ", ".join(f"'{field}'" for field in required)
    return f"{spec.subject(name)} lacks {lacks}" + (f" (optional: {optional})" if optional else "")
