"""Read one YAML file: syntax errors with their line, duplicate keys refused, and a map of field lines."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from .problems import Problem, fail, raise_problems


class _Loader(yaml.SafeLoader):
    """A safe loader that refuses a key written twice in one mapping (YAML would keep the last silently)."""

    def construct_mapping(self, node: yaml.MappingNode, deep: bool = False) -> dict[Any, Any]:
        seen: set[Any] = set()
        for key_node, _ in node.value:
            key = self.construct_object(key_node, deep=True)
            if isinstance(key, (str, int, float, bool)) and key in seen:
                raise _DuplicateKey(str(key), key_node.start_mark.line + 1)
            if isinstance(key, (str, int, float, bool)):
                seen.add(key)
        return super().construct_mapping(node, deep=deep)


class _DuplicateKey(Exception):
    def __init__(self, key: str, line: int):
        super().__init__(key)
        self.key = key
        self.line = line


@dataclass(frozen=True)
class YamlDocument:
    """The parsed content of a file and the line (1-based) where each field path starts."""

    data: Any
    lines: dict[tuple[str, ...], int] = field(default_factory=dict)

    def line_of(self, path: tuple[str, ...]) -> int | None:
        """The line of the deepest known prefix of `path`, if any."""
        for end in range(len(path), -1, -1):
            if path[:end] in self.lines:
                return self.lines[path[:end]]
        return None


def parse_yaml(text: str, rel: str) -> YamlDocument:
    """Parse `text` (the file `rel`); raise a ConfigError naming file and line on bad syntax."""
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        data = loader.construct_document(node) if node is not None else None
    except _DuplicateKey as dup:
        raise_problems([Problem(rel, dup.key, f"the key '{dup.key}' is written twice", dup.line)])
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark else None
        where = f"line {line}, column {mark.column + 1}" if mark else "unknown line"
        # The offending snippet is left out on purpose: the line may hold a literal secret.
        reason = exc.problem or exc.context or "invalid YAML"
        fail(rel, f"YAML syntax error at {where}: {reason}", line)
    except yaml.YAMLError as exc:
        fail(rel, f"YAML error: {type(exc).__name__}")
    finally:
        loader.dispose()
    lines: dict[tuple[str, ...], int] = {}
    if node is not None:
        _collect_lines(node, (), lines)
    return YamlDocument(data, lines)


def _collect_lines(node: yaml.Node, path: tuple[str, ...], lines: dict[tuple[str, ...], int]) -> None:
    lines.setdefault(path, node.start_mark.line + 1)
    if isinstance(node, yaml.MappingNode):
        for key_node, value_node in node.value:
            key_path = (*path, str(key_node.value))
            lines[key_path] = key_node.start_mark.line + 1
            _collect_lines(value_node, key_path, lines)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            _collect_lines(item, (*path, str(index)), lines)
