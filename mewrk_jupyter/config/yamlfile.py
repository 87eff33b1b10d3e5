"""Read one YAML file: syntax errors with their line, duplicate keys refused, and a map of field lines."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import yaml

from .problems import Problem, fail, raise_problems

# A configuration file is a few hundred lines: these bounds refuse a hostile one (a "billion laughs" of
# nested aliases, a file of megabytes) in milliseconds, before it costs time or memory.
MAX_FILE_BYTES = 256 * 1024
MAX_NODES = 100_000  # values once every alias is expanded
MAX_DEPTH = 64


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
    if len(text) > MAX_FILE_BYTES:
        fail(rel, too_large(len(text.encode("utf-8", "replace"))))
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is not None:
            check_size(node, rel)
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
    except RecursionError:
        fail(
            rel,
            f"the file nests values too deeply to read (a configuration file needs {MAX_DEPTH} levels at most)",
        )
    finally:
        loader.dispose()
    lines: dict[tuple[str, ...], int] = {}
    if node is not None:
        _collect_lines(node, (), lines)
    return YamlDocument(data, lines)


def too_large(size: int) -> str:
    """Why a file of `size` bytes is refused."""
    return (
        f"the file is {size:,} bytes, more than the {MAX_FILE_BYTES // 1024} KB a configuration file may "
        "have, so it was not read"
    )


def check_size(root: yaml.Node, rel: str) -> None:
    """Refuse a document whose values, with every alias expanded, are too many or nested too deeply.

    Each node is measured once (aliases share their node), so a document of nested aliases that would
    expand to billions of values is refused after looking at its few dozen nodes.
    """
    sizes: dict[int, int] = {}
    # Iterative post-order walk: (node, depth, children measured?).
    stack: list[tuple[yaml.Node, int, bool]] = [(root, 1, False)]
    open_nodes: set[int] = set()
    while stack:
        node, depth, ready = stack.pop()
        key = id(node)
        if depth > MAX_DEPTH:
            fail(rel, f"values are nested more than {MAX_DEPTH} levels deep", node.start_mark.line + 1)
        children = _children(node)
        if ready:
            open_nodes.discard(key)
            sizes[key] = 1 + sum(sizes[id(child)] for child in children)
            if sizes[key] > MAX_NODES:
                fail(
                    rel,
                    f"its aliases expand to more than {MAX_NODES:,} values, more than a configuration file "
                    "holds, so it was not read",
                    node.start_mark.line + 1,
                )
            continue
        if key in sizes:
            continue
        if key in open_nodes:
            fail(rel, "an alias refers to the value that contains it", node.start_mark.line + 1)
        open_nodes.add(key)
        stack.append((node, depth, True))
        stack.extend((child, depth + 1, False) for child in children if id(child) not in sizes)


def _children(node: yaml.Node) -> list[yaml.Node]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []


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
