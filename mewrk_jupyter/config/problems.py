"""What is wrong with a configuration file, as plain sentences that name the file and the field."""

from __future__ import annotations

import types
import typing
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, NoReturn
from urllib.parse import urlsplit

from pydantic import BaseModel, ValidationError
from pydantic_core import PydanticCustomError

from ..errors import ConfigError

# Pydantic's wording for the commonest type mistakes names Python types; these say it in YAML's terms.
_PLAIN = {
    "model_type": "must be a mapping of fields",
    "dict_type": "must be a mapping (key: value)",
    "list_type": "must be a list",
    "string_type": "must be text",
    "bool_type": "must be true or false",
    "bool_parsing": "must be true or false",
    "int_type": "must be a whole number",
    "int_parsing": "must be a whole number",
    "float_type": "must be a number",
    "float_parsing": "must be a number",
}


@dataclass(frozen=True)
class Problem:
    """One finding: the file (relative to the config folder), the field path, a sentence, and the line."""

    file: str
    field: str | None
    message: str
    line: int | None = None

    def __str__(self) -> str:
        return f"{self.file}: {self.message}"

    def said(self) -> str:
        """The sentence with its line, where known: "… is not something this step can read (line 4)"."""
        return f"{self.message} (line {self.line})" if self.line else self.message

    def located(self) -> str:
        """The problem with its file and line: "workflows/fix.yaml: … (line 4)"."""
        return f"{self.file}: {self.said()}"


class InvalidConfig(ConfigError):
    """A ConfigError that also lists its problems one by one, for the settings editor to point at."""

    def __init__(self, problems: Iterable[Problem]):
        self.problems: tuple[Problem, ...] = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


def raise_problems(problems: Iterable[Problem]) -> NoReturn:
    """Raise one InvalidConfig holding every problem."""
    # `from None`: pydantic's and PyYAML's own errors quote the input, which may be a literal secret.
    raise InvalidConfig(problems) from None


def fail(file: str, message: str, line: int | None = None) -> NoReturn:
    """Raise an InvalidConfig holding one problem about the whole file."""
    raise_problems([Problem(file, None, message, line)])


def describe(
    exc: ValidationError, rel: str, subject: str, model: type[BaseModel], line_of: Any = None
) -> list[Problem]:
    """Turn pydantic's errors into sentences; `subject` says whose fields they are, e.g. "tool 'grep2'"."""
    problems: list[Problem] = []
    unknown: dict[tuple[str, ...], list[str]] = {}
    for error in exc.errors(include_url=False, include_input=False):
        loc = tuple(str(part) for part in error["loc"])
        kind = error["type"]
        ctx = error.get("ctx") or {}
        if kind == "extra_forbidden":
            unknown.setdefault(loc[:-1], []).append(loc[-1])
            continue
        if kind == "mewrk":
            loc = tuple(ctx.get("path") or loc)
            field, message = _dotted(loc), ctx["message"]
        elif kind == "missing":
            field, message = _dotted(loc), f"{subject} lacks '{_dotted(loc)}'"
        elif kind in _PLAIN and loc:
            field, message = _dotted(loc), f"{_dotted(loc)} {_PLAIN[kind]}"
        else:
            field = _dotted(loc)
            text = error["msg"][:1].lower() + error["msg"][1:]
            message = f"{field}: {text}" if field else text
        problems.append(Problem(rel, field or None, message, _line(line_of, loc)))
    for parent, names in unknown.items():
        full = [_dotted((*parent, name)) for name in names]
        allowed = _allowed_fields(model, parent)
        noun = "unknown field" if len(full) == 1 else "unknown fields"
        listed = ", ".join(f"'{name}'" for name in full)
        hint = f" (allowed: {', '.join(allowed)})" if allowed else ""
        problems.append(Problem(rel, full[0], f"{noun} {listed}{hint}", _line(line_of, (*parent, names[0]))))
    problems.sort(key=lambda p: (p.line is None, p.line or 0))
    return problems


def invalid(message: str, *path: str) -> PydanticCustomError:
    """A validation error whose sentence is shown as written; `path` is the field it is about."""
    return PydanticCustomError("mewrk", "{message}", {"message": message, "path": path})


def required_fields(model: type[BaseModel]) -> list[str]:
    """The fields a file of this model must hold."""
    return [info.alias or name for name, info in model.model_fields.items() if info.is_required()]


def optional_fields(model: type[BaseModel]) -> list[str]:
    """The fields a file of this model may hold."""
    return [info.alias or name for name, info in model.model_fields.items() if not info.is_required()]


def _dotted(loc: tuple[str, ...]) -> str:
    return ".".join(loc)


def _line(line_of: Any, loc: tuple[str, ...]) -> int | None:
    return line_of(loc) if line_of is not None else None


def _allowed_fields(model: type[BaseModel], parent: tuple[str, ...]) -> list[str]:
    """The field names of the model found at `parent`, walking through sub-models and mappings."""
    current: Any = model
    for part in parent:
        current = _unwrap(current)
        if isinstance(current, type) and issubclass(current, BaseModel):
            fields = {info.alias or name: info for name, info in current.model_fields.items()}
            if part not in fields:
                return []
            current = fields[part].annotation
        elif typing.get_origin(current) is dict:
            current = typing.get_args(current)[1]
        else:
            return []
    current = _unwrap(current)
    if isinstance(current, type) and issubclass(current, BaseModel):
        return [info.alias or name for name, info in current.model_fields.items()]
    return []


def _unwrap(annotation: Any) -> Any:
    """`X | None` → X, so that an optional sub-model is walked like a plain one."""
    if typing.get_origin(annotation) in (typing.Union, types.UnionType):
        args = [arg for arg in typing.get_args(annotation) if arg is not type(None)]
        if len(args) == 1:
            return args[0]
    return annotation


def http_address(value: str | None, field: str, instead: str) -> str | None:
    """`value` if it is an http(s) address without credentials in it; `instead` says where those go."""
    if value is None:
        return value
    parts = urlsplit(value)
    if parts.scheme not in ("http", "https") or not parts.netloc:
        raise invalid(f"{field} must be an http:// or https:// address", field)
    if "@" in parts.netloc:
        raise invalid(f"{field} must not carry credentials; {instead}", field)
    return value
