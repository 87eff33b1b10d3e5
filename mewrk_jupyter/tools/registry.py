"""The tool registry: which tools a session offers, their specs, and running a call without raising."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ..config import Config
from ..errors import ConfigError
from ..providers.base import ToolSpec
from .base import Tool, ToolFailure, ToolResult, truncate
from .files import file_tools
from .lsp import LSP_COMMAND, LspTool
from .paths import Workspace
from .schema import check_params
from .search import search_tools
from .shell import bash_tool, command_tool

BUILTIN_TOOLS = ("ls", "read", "grep", "find", "write", "edit", "bash", "lsp")
# Tools that only look: running one again gives the same answer for the same files (T6).
REEXECUTABLE = frozenset({"ls", "grep", "find", "read", "lsp"})


class ToolRegistry:
    """The tools of one workspace, by name; `run` turns every failure into an error result."""

    def __init__(self, tools: Sequence[Tool], lsp: LspTool | None = None) -> None:
        self._tools = {tool.name: tool for tool in tools}
        self._lsp = lsp
        self._specs: list[ToolSpec] | None = None

    @classmethod
    def build(
        cls,
        root: Path,
        config: Config | None = None,
        enabled: list[str] | None = None,
        *,
        lsp_command: Sequence[str] = LSP_COMMAND,
        protected: Sequence[Path] = (),
    ) -> ToolRegistry:
        """The built-in tools and the configured ones for `root`; `enabled` keeps only those names.

        `write` and `edit` refuse paths inside the `protected` folders (the configuration folder).
        """
        ws = Workspace(root, protected)
        lsp = LspTool(ws, lsp_command)
        available = {
            tool.name: tool for tool in (*file_tools(ws), *search_tools(ws), bash_tool(ws.root), lsp.tool())
        }
        for name, tool_config in (config.tools if config else {}).items():
            if name in available:
                raise ConfigError(f"`.mewrk/tools/{name}.yaml` declares `{name}`, which is a built-in tool")
            available[name] = command_tool(tool_config, ws.root)
        ordered = [*BUILTIN_TOOLS, *(name for name in available if name not in BUILTIN_TOOLS)]
        if enabled is not None:
            unknown = [name for name in enabled if name not in available]
            if unknown:
                raise ConfigError(
                    f"Unknown tools: {', '.join(unknown)} (the tools are: {', '.join(ordered)})"
                )
            ordered = [name for name in ordered if name in enabled]
        return cls([available[name] for name in ordered], lsp if "lsp" in ordered else None)

    @property
    def names(self) -> list[str]:
        """The names of the tools, built-ins first."""
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        """What the model is told about each tool."""
        if self._specs is None:  # every request carries them; validating the schemas each time is waste
            self._specs = [tool.spec() for tool in self._tools.values()]
        return list(self._specs)

    def get(self, name: str) -> Tool | None:
        """The tool called `name`, or None."""
        return self._tools.get(name)

    def run(self, name: str, params: dict[str, Any], cancel: threading.Event | None = None) -> ToolResult:
        """Run one call; never raises for a tool's failure, which comes back as an error result."""
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            return ToolResult(text=f"There is no tool `{name}`; the tools are: {known}.", is_error=True)
        problem = check_params(name, tool.input_schema, params)
        if problem:
            return ToolResult(text=problem, is_error=True)
        try:
            outcome = tool.handler(dict(params), cancel)
        except ToolFailure as exc:
            return ToolResult(text=str(exc), is_error=True)
        except OSError as exc:
            where = f" ({exc.filename})" if exc.filename else ""
            return ToolResult(text=f"`{name}` failed: {exc.strerror or exc}{where}.", is_error=True)
        except Exception as exc:  # the engine must get a result even from a tool's own bug
            return ToolResult(
                text=f"`{name}` failed unexpectedly: {type(exc).__name__}: {exc}", is_error=True
            )
        result = ToolResult(text=outcome) if isinstance(outcome, str) else outcome
        if result.truncated:
            return result
        limited = truncate(result.text)
        return limited.model_copy(update={"is_error": result.is_error}) if result.is_error else limited

    def close(self) -> None:
        """Stop the language server this registry started, if any."""
        if self._lsp is not None:
            self._lsp.close()

    def __enter__(self) -> ToolRegistry:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
