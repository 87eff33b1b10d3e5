"""A session's tools: the registry its agent enables, under its safety level, and how a call is run."""

from __future__ import annotations

import threading
import time
from pathlib import Path
from typing import Any

from ...cards.models import Card, CellChange, HostMessage, ToolCall, ToolPreview
from ...config import Config, policy_for, trust_state
from ...config.policy import Tier
from ...config.workflows import describe_workflows
from ...errors import InvalidInput
from ...providers.base import ToolSpec
from ...providers.registry import config_for
from ...store import history as history_rows
from ...tools import ToolRegistry
from ...tools.base import ToolFailure
from ...tools.mcp import PREFIX
from ..background.command import start_background_command, wants_background
from ..events import Notice
from ..settings.model import StoredSettings
from ..timeline.stored import StoredTimeline
from ..workspace import Workspace
from .agent_tools import background_tools, with_background
from .filewatch import FileWatch
from .grants import drop_foreign_grants
from .hooks import Hooks
from .lock import ToolLocks
from .mcp import SessionMcp
from .policy import PLAN_WITHHELD, Subject, plan_withholds, subject_of, tier_of
from .secrets import SessionSecrets

ENGINE_TOOLS = ("box", "handoff", "agent_spawn", "task_wait", "workflow")
# What a subagent whose agent file lists no tools goes without: it may read the notebook, not change it.
SUBAGENT_WITHHELD = ("notebook_edit", "notebook_run")


class ToolBox:
    """The tools a session's model may call, rebuilt when the configuration folder changes."""

    def __init__(
        self, workspace: Workspace, settings: StoredSettings, timeline: StoredTimeline, subagent: bool = False
    ):
        self.workspace = workspace
        self.subagent = subagent  # without a tool list of its own, it reads the notebook but changes none
        self.settings = settings
        self.timeline = timeline
        self.secrets = SessionSecrets(workspace, settings)
        self.hooks = Hooks(workspace, self.secrets, timeline)
        self.files = FileWatch(workspace, timeline, self.secrets)
        self.lock = ToolLocks(timeline)  # holds the tool list while the prompt cache is warm
        self.mcp = SessionMcp(workspace, self.secrets, timeline)
        self._lock = threading.Lock()
        self._built_from: tuple[object, ...] | None = None
        self._registry: ToolRegistry | None = None

    @property
    def registry(self) -> ToolRegistry:
        """The registry for the configuration as it stands now."""
        return self._registry_for(config_for(self.workspace.home))

    def _registry_for(self, config: Config | None) -> ToolRegistry:
        ws = self.workspace
        trusted = config is None or trust_state(config).trusted
        agent = config.agents.get(self.settings.value.agent) if config is not None else None
        # The MCP servers' tools join as the servers start, fail or stop.
        extra = self.mcp.tools(config, agent) if trusted else []
        served = tuple(extra)  # the same Tool objects as long as the same servers run
        with self._lock:
            built = self._built_from
            if (
                self._registry is None
                or built is None
                or built[0] is not config
                or built[1:] != (trusted, served)
            ):
                # The engine's own tools (box, handoff, …) are not in the registry; they come with their issues.
                tools = agent.tools if agent is not None else None
                usable = config
                withheld: set[str] = set()
                if config is not None:
                    # A tool file that failed to load disables that tool only (a notice said why).
                    withheld = {Path(p.file).stem for p in config.problems if p.file.startswith("tools/")}
                    if not trusted:  # a folder not trusted yet runs none of its commands
                        withheld |= set(config.tools)
                        usable = config.model_copy(update={"tools": {}})
                # MCP tools are chosen by the servers' state (`extra`), not checked among the others.
                left_out = {*ENGINE_TOOLS, *withheld}
                enabled = (
                    None
                    if tools is None
                    else [t for t in tools if t not in left_out and not t.startswith(PREFIX)]
                )
                if self._registry is not None:
                    self._registry.close()  # its language server, if one was started
                self._registry = ToolRegistry.build(
                    ws.root,
                    usable,
                    enabled,
                    protected=[ws.home],
                    environment=self.secrets.environment,
                    sandbox=self.secrets.sandbox,
                    extra=extra,
                    redact=self.secrets.redact,
                    withhold=SUBAGENT_WITHHELD if self.subagent else (),
                )
                self._built_from = (config, trusted, served)
            return self._registry

    def check(self) -> None:
        """Raise ConfigError now, before anything is sent, if the tools or the safety level are misconfigured."""
        config = config_for(self.workspace.home)
        self._registry_for(config)  # building it checks the agent's tool list
        policy_for(config, self.settings.value.safety_level)

    def agent_tools(self) -> list[str] | None:
        """The tool list of the session's agent file (None: the engine's default set)."""
        config = config_for(self.workspace.home)
        agent = config.agents.get(self.settings.value.agent) if config is not None else None
        return agent.tools if agent is not None else None

    def background_enabled(self) -> bool:
        """Whether the session's agent may start background work (it lists agent_spawn, workflow or
        task_wait)."""
        return bool(background_tools(self.agent_tools()))

    def specs(self) -> list[ToolSpec]:
        """What the model is told about the tools, in every request (in plan mode, no tool that changes
        files or runs commands, nor an MCP server's tool or a command tool not declared read-only); with
        background work, `agent_spawn`, `workflow` and `task_wait` after the others, and `bash` takes
        `background`."""
        registry = self.registry
        specs = registry.specs()
        config = config_for(self.workspace.home)
        extra = background_tools(self.agent_tools(), describe_workflows(config.workflows if config else {}))
        if extra:
            specs = [with_background(s) if s.name == "bash" else s for s in specs] + extra
        if self.settings.value.plan_mode:
            return [spec for spec in specs if not _plan_withholds(registry, spec.name)]
        return specs

    def offers(self, name: str) -> bool:
        """Whether the tool `name` exists for this session now; an MCP server's tool is looked for once its
        server had its chance to start (an approval decided in a new process, a call run by hand)."""
        if name.startswith(PREFIX):
            self.mcp.sync()
        return self.registry.get(name) is not None

    def withheld(self, name: str) -> bool:
        """Whether plan mode withholds the tool `name` from the model now."""
        return self.settings.value.plan_mode and _plan_withholds(self.registry, name)

    def tier(self, name: str, params: dict[str, Any] | None = None) -> Tier:
        """allow, ask or deny for a call of `name` at the session's safety level (A4), with `params` by its
        rules by command too (A5); an approve-always grant given in another folder, or before the
        folder's trust changed, is dropped first, with a notice."""
        said = drop_foreign_grants(self.workspace, self.settings)
        if said is not None:
            self.timeline.emit(Notice(self.timeline.session_id, said))
        settings = self.settings.value
        policy = policy_for(config_for(self.workspace.home), settings.safety_level)
        subject = None if params is None else subject_of(self.registry.get(name), params, self.workspace.root)
        return tier_of(policy, name, settings.approved_always, subject)

    def subject(self, call: ToolCall) -> Subject | None:
        """What rules by command match in `call` (its command's parts, its path), None without one."""
        return subject_of(self.registry.get(call.name), dict(call.params), self.workspace.root)

    def _kept(self, change: CellChange | None) -> CellChange | None:
        """A cell change as its card keeps it: a known secret in its text hidden, and then not exact."""
        if change is None:
            return None
        hidden = {
            side: self.secrets.redact(text)
            for side, text in (("before", change.before), ("after", change.after))
            if text is not None
        }
        exact = all(hidden[side] == getattr(change, side) for side in hidden)
        return change.model_copy(update={**hidden, "exact": exact})

    def revert(self, call: Card) -> str:
        """Put back what a notebook_edit call changed; InvalidInput with a sentence when it cannot."""
        if not isinstance(call, ToolCall):
            raise InvalidInput("Only a notebook_edit call's card can be reverted.")
        change = call.change
        if change is None:
            raise InvalidInput("Only a notebook_edit call that changed a cell can be reverted.")
        if change.reverted:
            raise InvalidInput("That change was reverted already.")
        if not change.exact:
            raise InvalidInput(
                "That cell held a secret this session hides, so its card could not keep the cell's text: "
                "put it back from the notebook's own history (Edit ▸ Undo, or File ▸ Revert Notebook to Checkpoint)."
            )
        tool = self.registry.get(call.name)
        if tool is None or tool.revert is None:
            raise InvalidInput(f"`{call.name}` is not offered here now, so its change cannot be reverted.")
        try:
            said = tool.revert(change)
        except ToolFailure as exc:
            raise InvalidInput(str(exc)) from None
        call.change = change.model_copy(update={"reverted": True})
        self.timeline.save(call)
        return said

    def preview(self, call: ToolCall) -> ToolPreview | None:
        """What the call would change, read now for its approval (its diff, with known secrets hidden)."""
        found = self.registry.preview(call.name, dict(call.params))
        if found is None:
            return None
        return found.model_copy(update={"diff": self.secrets.redact(found.diff)})

    def run(self, call: ToolCall, run_id: str | None, cancel: threading.Event | None) -> ToolCall:
        """Run the call with its parameters as they stand now, record the result, and log what ran (T17)."""
        call.status = "running"
        self.timeline.save(call)
        started = time.time()
        if wants_background(call) and self.background_enabled():
            result = start_background_command(
                self.registry,
                call,
                self.timeline.session_id,
                self.timeline.db,
                self.settings.value.async_tools,
                self.secrets.redact,
                cancel,
            )
        else:
            if call.name.startswith(PREFIX):
                self.mcp.sync(cancel=cancel)  # its server runs before its call does, in whatever process
            result = self.registry.run(call.name, dict(call.params), cancel, call.preview)
        # A secret the command printed anyway (read from a file, say) is hidden before it is stored.
        result = result.model_copy(update={"text": self.secrets.redact(result.text)})
        call.result = result.text
        call.is_error = result.is_error
        call.images = list(result.images)
        call.change = self._kept(result.change)
        call.status = "done"
        self.timeline.save(call)
        with self.timeline.db.tx() as conn:
            entry = history_rows.record_request(
                conn,
                self.timeline.session_id,
                run_id,
                f"tool:{call.name}",
                "tool",
                self.secrets.redact_data(
                    {"tool": call.name, "call_id": call.call_id, "input": call.params, "started_at": started}
                ),
            )
            history_rows.record_response(
                conn,
                entry,
                {"result": result.text, "is_error": result.is_error, "truncated": result.truncated},
            )
        self.files.saw(call)
        self._diagnose(call, cancel)
        self.hooks.run("after_tool", call, cancel)
        return call

    def _diagnose(self, call: ToolCall, cancel: threading.Event | None) -> None:
        """After the model wrote or edited a Python file, what the `lsp` tool's language server finds in
        it reaches the model as a host message (when `lsp` is one of its tools and a server is installed)."""
        path = call.params.get("path")
        if call.name not in ("write", "edit") or call.is_error or not isinstance(path, str):
            return
        if not path.endswith(".py") or self.registry.get("lsp") is None:
            return
        found = self.registry.run("lsp", {"action": "diagnostics", "path": path}, cancel)
        if found.is_error or found.text.startswith("No problems reported"):
            return  # no server installed, or one too slow to answer: nothing to tell
        text = self.secrets.redact(found.text)
        self.timeline.append(
            HostMessage(
                topic="diagnostics",
                text=f"The language server reports, after your `{call.name}` of `{path}`:\n{text}",
            )
        )


def _plan_withholds(registry: ToolRegistry, name: str) -> bool:
    """Whether plan mode withholds the tool `name` of `registry` (a built-in that changes things is
    withheld even where the registry lacks it; the engine's own tools are not)."""
    tool = registry.get(name)
    return name in PLAN_WITHHELD if tool is None else plan_withholds(tool)
