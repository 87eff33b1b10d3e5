"""The registry: which tools it offers, their specs, and run() that never raises."""

from __future__ import annotations

from pathlib import Path

import pytest

from mewrk_jupyter.config import Config, ToolConfig
from mewrk_jupyter.errors import ConfigError
from mewrk_jupyter.providers.base import ToolSpec
from mewrk_jupyter.tools import BUILTIN_TOOLS, REEXECUTABLE, Tool, ToolRegistry, ToolResult


def _raising(error: Exception) -> Tool:
    def handler(params, cancel):
        raise error

    return Tool("boom", "Always fails.", {"type": "object", "properties": {}}, handler)


def test_the_builtins_in_order_and_the_reexecutable_ones():
    assert BUILTIN_TOOLS == ("ls", "read", "grep", "find", "write", "edit", "bash", "lsp")
    assert frozenset({"ls", "grep", "find", "read", "lsp"}) == REEXECUTABLE


def test_build_offers_every_builtin_with_a_spec(registry: ToolRegistry):
    assert registry.names == list(BUILTIN_TOOLS)
    specs = registry.specs()
    assert all(isinstance(spec, ToolSpec) for spec in specs)
    assert [spec.name for spec in specs] == list(BUILTIN_TOOLS)
    read = registry.get("read")
    assert read is not None
    assert read.spec().input_schema["required"] == ["path"]
    assert set(read.spec().input_schema["properties"]) == {"path", "offset", "limit"}
    assert registry.get("nope") is None


def test_parameters_are_those_of_the_design(registry: ToolRegistry):
    shapes = {
        spec.name: (spec.input_schema["required"], list(spec.input_schema["properties"]))
        for spec in registry.specs()
    }
    assert shapes == {
        "ls": (["path"], ["path"]),
        "read": (["path"], ["path", "offset", "limit"]),
        "grep": (["pattern"], ["pattern", "path"]),
        "find": (["pattern"], ["pattern", "path"]),
        "write": (["path", "content"], ["path", "content"]),
        "edit": (["path", "old", "new"], ["path", "old", "new"]),
        "bash": (["command"], ["command", "timeout"]),
        "lsp": (["action", "path"], ["action", "path", "line", "column"]),
    }


def test_enabled_keeps_only_those_names_in_builtin_order(ws: Path):
    registry = ToolRegistry.build(ws, enabled=["bash", "ls"])
    assert registry.names == ["ls", "bash"]
    assert registry.run("read", {"path": "x"}) == ToolResult(
        text="There is no tool `read`; the tools are: ls, bash.", is_error=True
    )


def test_unknown_enabled_names_are_a_config_error_naming_them(ws: Path):
    with pytest.raises(ConfigError) as raised:
        ToolRegistry.build(ws, enabled=["ls", "telepathy", "box"])
    assert str(raised.value).startswith("Unknown tools: telepathy, box (the tools are: ls, read,")


def test_a_configured_tool_may_not_take_a_builtin_name(ws: Path):
    shadow = ToolConfig(name="ls", description="Not ls.", command="echo", parameters={"type": "object"})
    with pytest.raises(ConfigError, match="`.mewrk/tools/ls.yaml` declares `ls`, which is a built-in tool"):
        ToolRegistry.build(ws, Config(tools={"ls": shadow}))


def test_wrong_parameters_never_reach_the_tool(registry: ToolRegistry, ws: Path):
    result = registry.run("write", {"path": "a.txt", "content": "x", "mode": "append"})
    assert result.is_error
    assert result.text.startswith("Invalid parameters for `write`: `mode` is not a parameter here")
    assert not (ws / "a.txt").exists()
    assert registry.run("read", None).text == "The parameters of `read` must be a JSON object, not null."


def test_a_tool_that_raises_still_gives_an_error_result():
    broken = ToolRegistry([_raising(KeyError("x"))])
    assert broken.run("boom", {}) == ToolResult(
        text="`boom` failed unexpectedly: KeyError: 'x'", is_error=True
    )
    failing_io = ToolRegistry([_raising(PermissionError(13, "Permission denied", "/etc/x"))])
    assert failing_io.run("boom", {}) == ToolResult(
        text="`boom` failed: Permission denied (/etc/x).", is_error=True
    )


def test_every_tool_output_is_cut_with_a_note(registry: ToolRegistry, ws: Path):
    (ws / "many.txt").write_text("hit\n" * 3000)
    result = registry.run("grep", {"pattern": "hit"})
    assert result.truncated and not result.is_error
    lines = [f"many.txt:{n}:hit\n" for n in range(1, 3001)]
    kept = max(k for k in range(len(lines) + 1) if sum(map(len, lines[:k])) <= 30_000)
    shown = "".join(lines[:kept])
    total = sum(map(len, lines)) - 1  # the last match has no newline
    assert result.text == shown + (
        f"[output truncated: {total:,} characters, 3,000 lines; "
        f"showing the first {len(shown):,} characters ({kept:,} lines)]"
    )
