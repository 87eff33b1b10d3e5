"""Command tools from `.mewrk/tools/*.yaml`: placeholders, quoting, no injection, timeout, schema."""

from __future__ import annotations

import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from mewrk_jupyter.config import load_config
from mewrk_jupyter.tools import ToolRegistry, ToolResult

ECHO = """\
name: say
description: Print the words it is given.
command: "echo {words}"
parameters:
  type: object
  properties:
    words: {type: string}
  required: [words]
"""

ARGV = """\
name: args
description: Print its arguments one a line, without a shell.
command: [python, -c, "import sys; print(*sys.argv[1:], sep='\\\\n')", "{first}", "--count={count}", "{flag}"]
parameters:
  type: object
  properties:
    first: {type: string}
    count: {type: integer}
    flag: {type: string}
  required: [first, count]
"""

MISSING = """\
name: missing
description: A program that is not installed.
command: [no-such-program-for-mewrk, "{x}"]
parameters: {type: object, properties: {x: {type: string}}}
"""

SLOW = """\
name: slow
description: Sleep for a long time.
command: sleep 300
timeout: 1
parameters: {type: object, properties: {}}
"""

ENV = """\
name: env
description: Print a shell variable beside a parameter.
command: "echo ${MEWRK_TEST_MARK}-{x}"
parameters: {type: object, properties: {x: {type: string}}, required: [x]}
"""


@pytest.fixture
def tools(ws: Path) -> Iterator[Callable[..., ToolRegistry]]:
    """Build a registry over `ws` from the given `tools/<name>.yaml` texts."""
    built: list[ToolRegistry] = []

    def build(*texts: str, enabled: list[str] | None = None) -> ToolRegistry:
        folder = ws / ".mewrk" / "tools"
        folder.mkdir(parents=True, exist_ok=True)
        for text in texts:
            name = text.split("\n", 1)[0].removeprefix("name: ")
            (folder / f"{name}.yaml").write_text(textwrap.dedent(text))
        registry = ToolRegistry.build(ws, load_config(ws / ".mewrk"), enabled)
        built.append(registry)
        return registry

    yield build
    for registry in built:
        registry.close()


def test_configured_tools_follow_the_builtins_with_their_schema(tools):
    registry = tools(ECHO)
    assert registry.names[-1] == "say"
    spec = registry.specs()[-1]
    assert (spec.name, spec.description) == ("say", "Print the words it is given.")
    assert spec.input_schema["required"] == ["words"]


def test_a_string_command_gets_each_value_as_one_quoted_word(tools, ws: Path):
    registry = tools(ECHO)
    nasty = "a  b; touch pwned && echo $(touch pwned2) `touch pwned3` 'q\" > pwned4"
    result = registry.run("say", {"words": nasty})
    assert result == ToolResult(text=nasty + "\n")
    assert sorted(p.name for p in ws.iterdir()) == [".mewrk"]


def test_a_list_command_runs_without_a_shell(tools, ws: Path):
    registry = tools(ARGV)
    result = registry.run("args", {"first": "x; touch pwned", "count": 3, "flag": "$HOME"})
    assert result.text == "x; touch pwned\n--count=3\n$HOME\n"
    assert not (ws / "pwned").exists()


def test_a_list_command_drops_a_missing_optional_argument(tools):
    registry = tools(ARGV)
    assert registry.run("args", {"first": "one", "count": 1}).text == "one\n--count=1\n"


def test_shell_variables_are_not_placeholders(tools, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("MEWRK_TEST_MARK", "mark")
    assert tools(ENV).run("env", {"x": "y z"}).text == "mark-y z\n"


def test_the_configured_timeout_is_honoured(tools):
    result = tools(SLOW).run("slow", {})
    assert result == ToolResult(text="[timed out: the command was stopped after 1 seconds]", is_error=True)


def test_parameters_are_checked_against_the_configured_schema(tools):
    registry = tools(ARGV)
    missing = registry.run("args", {"count": 1})
    assert missing == ToolResult(
        text="Invalid parameters for `args`: the parameter `first` is required but missing.", is_error=True
    )
    wrong = registry.run("args", {"first": "a", "count": "three"})
    assert wrong.text == "Invalid parameters for `args`: `count` must be an integer, not a string ('three')."


def test_enabled_selects_configured_tools_too(tools):
    registry = tools(ECHO, SLOW, enabled=["read", "say"])
    assert registry.names == ["read", "say"]


def test_a_program_that_is_not_installed_is_a_clear_error(tools):
    result = tools(MISSING).run("missing", {"x": "y"})
    assert result == ToolResult(
        text="Could not start `no-such-program-for-mewrk`: No such file or directory.", is_error=True
    )
