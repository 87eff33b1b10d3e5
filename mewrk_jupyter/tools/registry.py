"""The tool registry: which tools a session offers, their specs, and running a call without raising."""

from __future__ import annotations

import threading
import time
from collections.abc import Collection, Sequence
from pathlib import Path
from typing import Any

from ..cards.models import ToolPreview
from ..config import Config, EnvironmentPolicy, command_environment
from ..errors import ConfigError
from ..providers.base import ClaudeCodeTool, ToolSpec
from ..providers.claude_code_tools import NOT_OFFERED, PROJECT_TOOL
from .base import Redact, Tool, ToolFailure, ToolResult, no_redaction, truncate
from .files import file_tools
from .kernel import KERNEL_TOOLS, kernel_tools
from .lsp import LSP_COMMAND, LspTool
from .notebook import NOTEBOOK_TOOLS, notebook_tools
from .notebook_bridge import NOT_IN_JUPYTERLAB
from .paths import Workspace
from .sandbox import Sandbox
from .schema import check_params
from .search import search_tools
from .shell import Confinement, Environment, bash_tool, command_tool

BUILTIN_TOOLS = ("ls", "read", "grep", "find", "write", "edit", "bash", "lsp")
# Tools that only look: running one again gives the same answer for the same files (T6).
REEXECUTABLE = frozenset({"ls", "grep", "find", "read", "lsp"})
# A tool that enforces its own limit (bash kills its command, then drains its output for up to 2 s)
# gets this long past it to do so and report what it has.
_MARGIN = 5.0
# Once told to stop, a tool has this long to return what it has before its call is ended without it.
_GRACE = 3.0
_POLL = 0.05


class ToolRegistry:
    """The tools of one workspace, by name; `run` turns every failure into an error result."""

    def __init__(
        self,
        tools: Sequence[Tool],
        lsp: LspTool | None = None,
        redact: Redact = no_redaction,
        claude_code: dict[str, ClaudeCodeTool] | None = None,
    ) -> None:
        self._tools = {tool.name: tool for tool in tools}
        self._redact = redact
        self._lsp = lsp
        self._specs: list[ToolSpec] | None = None
        # The tools an agent file listed by Claude Code's name: claude-agent offers them as the CLI's own.
        self._claude_code = claude_code or {}

    @classmethod
    def build(
        cls,
        root: Path,
        config: Config | None = None,
        enabled: list[str] | None = None,
        *,
        lsp_command: Sequence[str] = LSP_COMMAND,
        protected: Sequence[Path] = (),
        environment: Environment | None = None,
        sandbox: Confinement | None = None,
        extra: Sequence[Tool] = (),
        redact: Redact = no_redaction,
        withhold: Collection[str] = (),
    ) -> ToolRegistry:
        """The built-in tools and the configured ones for `root`; `enabled` keeps only those names.

        `extra` tools (an MCP server's, already chosen) follow them; one whose name is taken is left out.

        `write` and `edit` refuse paths inside the `protected` folders (the configuration folder).
        Commands (bash, command tools, the language server) run in `environment()`; without one, in the
        environment the `default` safety level of `config` allows; and in `sandbox()`, without one in the
        default sandbox with the `protected` folders read-only. `redact` hides known secrets in a result
        before it is cut to the output limit. The `withhold` tools are left out even when `enabled` is None
        (a subagent without a tool list of its own changes no notebook).
        """
        ws = Workspace(root, protected)
        environment = environment or _default_environment(config)
        if sandbox is None:
            default = Sandbox(ws.root, protected=tuple(ws.protected))
            sandbox = lambda: default  # noqa: E731
        lsp = LspTool(ws, environment, lsp_command, sandbox)
        available = {
            tool.name: tool
            for tool in (
                *file_tools(ws),
                *search_tools(ws),
                bash_tool(ws.root, environment, redact, sandbox),
                lsp.tool(),
            )
        }
        # `python` and `inspect` exist only inside a kernel; an agent that lists them elsewhere goes without.
        available.update((tool.name, tool) for tool in kernel_tools(redact=redact))
        # The notebook tools exist only in a kernel that a Jupyter server with this package started.
        available.update((tool.name, tool) for tool in notebook_tools(ws))
        # A file named as a built-in was left out as it was read (config.tools.ENGINE_DECLARED).
        for name, tool_config in (config.tools if config else {}).items():
            available[name] = command_tool(tool_config, ws.root, environment, redact, sandbox)
        ordered = [*BUILTIN_TOOLS, *(name for name in available if name not in BUILTIN_TOOLS)]
        claude_code: dict[str, ClaudeCodeTool] = {}
        if enabled is not None:
            # A name of Claude Code's built-ins stands for the project's tool that does its work (a tool
            # folder's own tool of that name comes first).
            for name in enabled:
                if name in PROJECT_TOOL and name not in available:
                    claude_code[PROJECT_TOOL[name]] = ClaudeCodeTool(name=name, root=str(ws.root))
            _refuse_unknown(enabled, available, ordered)
            wanted = {*enabled, *claude_code}
            ordered = [name for name in ordered if name in wanted]
        else:
            ordered = [name for name in ordered if name not in withhold]
        tools = [available[name] for name in ordered]
        tools += [tool for tool in extra if tool.name not in available]
        return cls(tools, lsp if "lsp" in ordered else None, redact, claude_code)

    @property
    def names(self) -> list[str]:
        """The names of the tools, built-ins first."""
        return list(self._tools)

    def specs(self) -> list[ToolSpec]:
        """What the model is told about each tool."""
        if self._specs is None:  # every request carries them; validating the schemas each time is waste
            specs = [tool.spec() for tool in self._tools.values()]
            marked = self._claude_code
            self._specs = [
                spec.model_copy(update={"claude_code": marked[spec.name]}) if spec.name in marked else spec
                for spec in specs
            ]
        return list(self._specs)

    def get(self, name: str) -> Tool | None:
        """The tool called `name`, or None."""
        return self._tools.get(name)

    def preview(self, name: str, params: dict[str, Any]) -> ToolPreview | None:
        """What the call would change, read now (shown while it waits for approval); None when its tool
        cannot tell, or cannot read it now (the call, when it runs, says why)."""
        tool = self._tools.get(name)
        if tool is None or tool.preview is None or check_params(name, tool.input_schema, params):
            return None
        try:
            return tool.preview(dict(params))
        except Exception:  # the call itself will answer with the reason
            return None

    def run(
        self,
        name: str,
        params: dict[str, Any],
        cancel: threading.Event | None = None,
        preview: ToolPreview | None = None,
    ) -> ToolResult:
        """Run one call within the tool's time limit; never raises: a failure comes back as an error result.
        A call previewed while it waited runs against what that preview read."""
        tool = self._tools.get(name)
        if tool is None:
            known = ", ".join(self._tools) or "none"
            if name in NOTEBOOK_TOOLS:  # a real tool, absent here: the person reads how to get it
                return ToolResult(text=f"`{name}` is not offered here. {NOT_IN_JUPYTERLAB}", is_error=True)
            return ToolResult(text=f"There is no tool `{name}`; the tools are: {known}.", is_error=True)
        problem = check_params(name, tool.input_schema, params)
        if problem:
            return ToolResult(text=problem, is_error=True)
        result = _bounded(tool, dict(params), cancel, preview)
        if result.truncated:
            return result
        limited = truncate(self._redact(result.text))
        return limited.model_copy(
            update={"is_error": result.is_error, "images": result.images, "change": result.change}
        )

    def close(self) -> None:
        """Stop the language server this registry started, if any."""
        if self._lsp is not None:
            self._lsp.close()

    def __enter__(self) -> ToolRegistry:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def _refuse_unknown(enabled: Sequence[str], available: Collection[str], ordered: Sequence[str]) -> None:
    """A ConfigError naming the tools of `enabled` that no one offers, and why where it is Claude Code's."""
    elsewhere = (*KERNEL_TOOLS, *NOTEBOOK_TOOLS)
    unknown = [
        name
        for name in enabled
        if name not in available and name not in elsewhere and name not in PROJECT_TOOL
    ]
    if not unknown:
        return
    own = ", ".join(PROJECT_TOOL)
    said = f"Unknown tools: {', '.join(unknown)} (the tools are: {', '.join(ordered)}"
    said += f"; Claude Code's own {own} may be listed too, each run as the project's tool that does its work)"
    for name in (name for name in unknown if name in NOT_OFFERED):
        said += f". Claude Code's {name} is not offered: {NOT_OFFERED[name]}"
    raise ConfigError(said + ".")


def _default_environment(config: Config | None) -> Environment:
    level = config.policies.get("default") if config is not None else None
    policy = level.environment if level is not None else EnvironmentPolicy()
    home = config.home if config is not None else None
    return lambda: command_environment(policy, home)


def _call(
    tool: Tool, params: dict[str, Any], cancel: threading.Event, preview: ToolPreview | None = None
) -> ToolResult:
    """Run the tool's handler, turning any exception into an error result."""
    try:
        if preview is not None and tool.prepared is not None:
            outcome = tool.prepared(params, preview, cancel)
        else:
            outcome = tool.handler(params, cancel)
    except ToolFailure as exc:
        return ToolResult(text=str(exc), is_error=True)
    except OSError as exc:
        where = f" ({exc.filename})" if exc.filename else ""
        return ToolResult(text=f"`{tool.name}` failed: {exc.strerror or exc}{where}.", is_error=True)
    except Exception as exc:  # the engine must get a result even from a tool's own bug
        return ToolResult(
            text=f"`{tool.name}` failed unexpectedly: {type(exc).__name__}: {exc}", is_error=True
        )
    return ToolResult(text=outcome) if isinstance(outcome, str) else outcome


def _reason_to_end(cancel: threading.Event | None, deadline: float) -> str | None:
    """Why a running call must end now: "stop" (the turn was stopped), "limit" (it overran), or None."""
    if cancel is not None and cancel.is_set():
        return "stop"
    return "limit" if time.monotonic() > deadline else None


def _bounded(
    tool: Tool, params: dict[str, Any], cancel: threading.Event | None, preview: ToolPreview | None = None
) -> ToolResult:
    """Run the call on a thread of its own and end it at the tool's time limit or when the turn stops.

    The tool is told to stop through its own event and gets a short grace to return what it has; one
    that does not is left to finish in the background and its result is dropped, so neither a stuck
    tool nor a long one can hold the turn past its limit or past Stop.
    """
    limit = tool.time_limit(params)
    deadline = time.monotonic() + limit + _MARGIN
    own_stop = threading.Event()
    outcome: list[ToolResult] = []
    worker = threading.Thread(
        target=lambda: outcome.append(_call(tool, params, own_stop, preview)),
        name=f"mewrk-tool-{tool.name}",
        daemon=True,
    )
    # Looked at before the start too, so a call stopped before it began sees its stop at once.
    ended_by = _reason_to_end(cancel, deadline)
    if ended_by is not None:
        own_stop.set()
    give_up = time.monotonic() + _GRACE
    worker.start()
    while worker.is_alive():
        worker.join(_POLL)
        if ended_by is None:
            ended_by = _reason_to_end(cancel, deadline)
            if ended_by is not None:
                own_stop.set()
                give_up = time.monotonic() + _GRACE
        elif time.monotonic() > give_up:
            break
    if ended_by == "limit":
        return ToolResult(
            text=f"`{tool.name}` was ended after its time limit of {limit:g} seconds, without a result; "
            "narrow the call down and try again.",
            is_error=True,
        )
    if outcome:
        return outcome[0]
    return ToolResult(text=f"`{tool.name}` was stopped before it finished, without a result.", is_error=True)
