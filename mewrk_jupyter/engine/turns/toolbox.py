"""A session's tools: the registry its agent enables, under its safety level, and how a call is run."""

from __future__ import annotations

import threading
import time

from ...cards.models import ToolCall
from ...config import Config
from ...config.policy import Tier
from ...providers.base import ToolSpec
from ...providers.registry import config_for
from ...store import history as history_rows
from ...tools import ToolRegistry
from ..settings import StoredSettings
from ..timeline.stored import StoredTimeline
from ..workspace import Workspace
from .policy import policy_for, tier_of

ENGINE_TOOLS = ("box", "handoff", "agent_spawn", "task_wait")


class ToolBox:
    """The tools a session's model may call, rebuilt when the configuration folder changes."""

    def __init__(self, workspace: Workspace, settings: StoredSettings, timeline: StoredTimeline):
        self.workspace = workspace
        self.settings = settings
        self.timeline = timeline
        self._lock = threading.Lock()
        self._built_from: object = None
        self._registry: ToolRegistry | None = None

    @property
    def registry(self) -> ToolRegistry:
        """The registry for the configuration as it stands now."""
        return self._registry_for(config_for(self.workspace.home))

    def _registry_for(self, config: Config | None) -> ToolRegistry:
        ws = self.workspace
        with self._lock:
            if self._registry is None or self._built_from is not config:
                agent = config.agents.get(self.settings.value.agent) if config is not None else None
                # The engine's own tools (box, handoff, …) are not in the registry; they come with their issues.
                tools = agent.tools if agent is not None else None
                enabled = None if tools is None else [t for t in tools if t not in ENGINE_TOOLS]
                if self._registry is not None:
                    self._registry.close()  # its language server, if one was started
                self._registry = ToolRegistry.build(ws.root, config, enabled, protected=[ws.home])
                self._built_from = config
            return self._registry

    def check(self) -> None:
        """Raise ConfigError now, before anything is sent, if the tools or the safety level are misconfigured."""
        config = config_for(self.workspace.home)
        self._registry_for(config)  # building it checks the agent's tool list
        policy_for(config, self.settings.value.safety_level)

    def specs(self) -> list[ToolSpec]:
        """What the model is told about the tools, in every request."""
        return self.registry.specs()

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
        call.result = result.text
        call.is_error = result.is_error
        call.status = "done"
        self.timeline.save(call)
        with self.timeline.db.tx() as conn:
            entry = history_rows.record_request(
                conn,
                self.timeline.session_id,
                run_id,
                f"tool:{call.name}",
                "tool",
                {"tool": call.name, "call_id": call.call_id, "input": call.params, "started_at": started},
            )
            history_rows.record_response(
                conn,
                entry,
                {"result": result.text, "is_error": result.is_error, "truncated": result.truncated},
            )
        return call
