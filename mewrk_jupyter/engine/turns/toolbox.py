"""A session's tools: the registry its agent enables, under its safety level, and how a call is run."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from ...cards.models import HostMessage, ToolCall
from ...config import Config, trust_state
from ...config.policy import Tier
from ...providers.base import ToolSpec
from ...providers.registry import config_for
from ...store import history as history_rows
from ...tools import ToolRegistry
from ..settings import StoredSettings
from ..timeline.stored import StoredTimeline
from ..workspace import Workspace
from .filewatch import FileWatch
from .hooks import Hooks
from .policy import PLAN_WITHHELD, policy_for, tier_of
from .secrets import SessionSecrets

ENGINE_TOOLS = ("box", "handoff", "agent_spawn", "task_wait")


class ToolBox:
    """The tools a session's model may call, rebuilt when the configuration folder changes."""

    def __init__(self, workspace: Workspace, settings: StoredSettings, timeline: StoredTimeline):
        self.workspace = workspace
        self.settings = settings
        self.timeline = timeline
        self.secrets = SessionSecrets(workspace, settings)
        self.hooks = Hooks(workspace, self.secrets, timeline)
        self.files = FileWatch(workspace, timeline, self.secrets)
        self._lock = threading.Lock()
        self._built_from: tuple[object, bool] | None = None
        self._registry: ToolRegistry | None = None

    @property
    def registry(self) -> ToolRegistry:
        """The registry for the configuration as it stands now."""
        return self._registry_for(config_for(self.workspace.home))

    def _registry_for(self, config: Config | None) -> ToolRegistry:
        ws = self.workspace
        trusted = config is None or trust_state(config).trusted
        with self._lock:
            built = self._built_from
            if self._registry is None or built is None or built[0] is not config or built[1] != trusted:
                agent = config.agents.get(self.settings.value.agent) if config is not None else None
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
                enabled = None if tools is None else [t for t in tools if t not in {*ENGINE_TOOLS, *withheld}]
                if self._registry is not None:
                    self._registry.close()  # its language server, if one was started
                self._registry = ToolRegistry.build(
                    ws.root, usable, enabled, protected=[ws.home], environment=self.secrets.environment
                )
                self._built_from = (config, trusted)
            return self._registry

    def check(self) -> None:
        """Raise ConfigError now, before anything is sent, if the tools or the safety level are misconfigured."""
        config = config_for(self.workspace.home)
        self._registry_for(config)  # building it checks the agent's tool list
        policy_for(config, self.settings.value.safety_level)

    def specs(self) -> list[ToolSpec]:
        """What the model is told about the tools, in every request (in plan mode, no tool that changes
        files or runs commands)."""
        specs = self.registry.specs()
        if self.settings.value.plan_mode:
            return [spec for spec in specs if spec.name not in PLAN_WITHHELD]
        return specs

    def withheld(self, name: str) -> bool:
        """Whether plan mode withholds the tool `name` from the model now."""
        return self.settings.value.plan_mode and name in PLAN_WITHHELD

    def tier(self, name: str) -> Tier:
        """allow, ask or deny for `name` at the session's safety level (A4)."""
        settings = self.settings.value
        policy = policy_for(config_for(self.workspace.home), settings.safety_level)
        return tier_of(policy, name, settings.approved_always)

    def run(self, call: ToolCall, run_id: str | None, cancel: threading.Event | None) -> ToolCall:
        """Run the call with its parameters as they stand now, record the result, and log what ran (T17)."""
        call.status = "running"
        self.timeline.save(call)
        started = time.time()
        result = self.registry.run(call.name, dict(call.params), cancel)
        # A secret the command printed anyway (read from a file, say) is hidden before it is stored.
        result = result.model_copy(update={"text": self.secrets.redact(result.text)})
        call.result = result.text
        call.is_error = result.is_error
        call.images = list(result.images)
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
