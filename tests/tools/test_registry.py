"""The registry: which tools it offers, their specs, and run() that never raises."""

from __future__ import annotations

import threading
import time
from pathlib import Path

import pytest
from pydantic import ValidationError

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


def test_claude_codes_own_names_stand_for_the_projects_tools(ws: Path):
    # On protocol claude-agent the model is offered the CLI's own definition; elsewhere the project's tool.
    registry = ToolRegistry.build(ws, enabled=["Read", "grep", "Bash", "Glob"])
    assert registry.names == ["read", "grep", "find", "bash"]
    marked = {spec.name: spec.claude_code for spec in registry.specs()}
    assert {name: (m.name, m.root) for name, m in marked.items() if m is not None} == {
        "read": ("Read", str(ws.resolve())),
        "find": ("Glob", str(ws.resolve())),
        "bash": ("Bash", str(ws.resolve())),
    }
    assert marked["grep"] is None  # listed by the project's name: an MCP tool on claude-agent too
    assert registry.get("Read") is None  # calls come back under the project's name


def test_claude_codes_tools_without_a_project_equivalent_are_refused_saying_why(ws: Path):
    with pytest.raises(ConfigError) as raised:
        ToolRegistry.build(ws, enabled=["read", "WebFetch", "Task", "telepathy"])
    said = str(raised.value)
    assert said.startswith("Unknown tools: WebFetch, Task, telepathy (the tools are: ls, read,")
    assert "Claude Code's own Read, Write, Edit, Bash, Grep, Glob may be listed too" in said
    assert "Claude Code's WebFetch is not offered: it fetches pages from inside the CLI" in said
    assert "Claude Code's Task is not offered: it starts Claude Code's own subagents" in said


def test_a_configured_tool_may_not_take_a_builtin_name():
    # Refused as the file is read, so that only that file is left out: no registry ever sees it.
    with pytest.raises(ValidationError, match="name 'ls' is a built-in tool's"):
        ToolConfig(name="ls", description="Not ls.", command="echo", parameters={"type": "object"})


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


def _waiting(timeout: float, heeds_stop: bool, started: threading.Event, told: threading.Event) -> Tool:
    """A tool that runs until it is told to stop (or, when it ignores that, for half a minute)."""

    def handler(params, cancel):
        started.set()
        if heeds_stop:
            if cancel.wait(30):
                told.set()
            return "stopped by its event"
        time.sleep(30)
        return "never read"

    return Tool("slow", "Waits.", {"type": "object", "properties": {}}, handler, timeout=timeout)


def test_a_call_past_its_time_limit_is_ended_with_an_error_naming_the_tool_and_the_limit():
    started, told = threading.Event(), threading.Event()
    registry = ToolRegistry([_waiting(0.5, True, started, told)])
    assert registry.run("slow", {}) == ToolResult(
        text="`slow` was ended after its time limit of 0.5 seconds, without a result; "
        "narrow the call down and try again.",
        is_error=True,
    )
    assert told.is_set()  # the tool itself was told to stop, not just abandoned


def test_stop_ends_a_tool_that_does_not_listen(ws: Path):
    started, told = threading.Event(), threading.Event()
    registry = ToolRegistry([_waiting(600, False, started, told)])
    cancel = threading.Event()
    threading.Thread(target=lambda: (started.wait(10), cancel.set()), daemon=True).start()
    assert registry.run("slow", {}, cancel) == ToolResult(
        text="`slow` was stopped before it finished, without a result.", is_error=True
    )


def test_every_tool_has_a_time_limit(ws: Path):
    quick = ToolConfig(
        name="quick", description="d", command="true", parameters={"type": "object"}, timeout=7
    )
    config = Config(tools={"quick": quick})
    registry = ToolRegistry.build(ws, config)
    limits = {name: registry.get(name).time_limit({}) for name in registry.names}  # type: ignore[union-attr]
    assert limits == {
        "ls": 60,
        "read": 60,
        "grep": 60,
        "find": 60,
        "write": 60,
        "edit": 60,
        "bash": 120,
        "lsp": 120,
        "quick": 7,
    }
    bash = registry.get("bash")
    assert bash is not None
    assert (bash.time_limit({"timeout": 5}), bash.time_limit({"timeout": 9999})) == (5, 600)
