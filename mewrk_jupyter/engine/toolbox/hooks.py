"""Hooks: the workspace's commands (`hooks/<name>.yaml`) run at moments of a conversation — when it
starts, before each request, after a tool call. What a hook prints reaches the model as a host message;
a hook that fails or overruns its time becomes a host message saying so, never a failed turn.

A hook runs in the workspace root with the environment of the session's other commands (no secret in
it), plus what it is run for: `MEWRK_HOOK_EVENT`, `MEWRK_SESSION_ID`, and after a tool call
`MEWRK_TOOL_NAME`, `MEWRK_TOOL_INPUT` (JSON) and `MEWRK_TOOL_IS_ERROR`. A folder not trusted yet runs
none of its hooks.
"""

from __future__ import annotations

import json
import threading

from ...cards.models import HostMessage, ToolCall
from ...config import trust_state
from ...providers.registry import config_for
from ...tools.shell import run_process
from ..timeline.stored import StoredTimeline
from ..workspace import Workspace
from .secrets import SessionSecrets

MAX_INPUT_CHARS = 32_000  # a tool's input handed to a hook in its environment, at most
NO_OUTPUT = "(no output)"  # what a command that printed nothing returns (tools/shell.py)


class Hooks:
    """Runs the hooks of an event and places what they said on the timeline, in configuration order."""

    def __init__(self, workspace: Workspace, secrets: SessionSecrets, timeline: StoredTimeline) -> None:
        self.workspace = workspace
        self.secrets = secrets
        self.timeline = timeline

    def run(
        self, event: str, call: ToolCall | None = None, cancel: threading.Event | None = None
    ) -> list[HostMessage]:
        """Run the hooks of `event` (after `call`, for `after_tool`); returns the host messages added."""
        config = config_for(self.workspace.home)
        if config is None or not config.hooks or not trust_state(config).trusted:
            return []
        added = []
        for name, hook in sorted(config.hooks.items()):
            if not hook.wants(event, call.name if call is not None else None):
                continue
            if cancel is not None and cancel.is_set():
                break
            env = {**self.secrets.environment(), **self._context(event, call)}
            sandbox = self.secrets.sandbox()
            result = run_process(hook.argv(), self.workspace.root, hook.timeout, cancel, env, sandbox=sandbox)
            if not result.is_error and result.text == NO_OUTPUT:
                continue  # a hook with nothing to say adds nothing
            # A secret the command printed anyway is hidden before the model or the timeline sees it.
            text = self.secrets.redact(result.text)
            message = HostMessage(topic="hook", text=f"Hook `{name}` ({event}):\n{text}")
            self.timeline.append(message)
            added.append(message)
        return added

    def _context(self, event: str, call: ToolCall | None) -> dict[str, str]:
        context = {"MEWRK_HOOK_EVENT": event, "MEWRK_SESSION_ID": self.timeline.session_id}
        if call is not None:
            params = self.secrets.redact(json.dumps(call.params, ensure_ascii=False))
            context.update(
                MEWRK_TOOL_NAME=call.name,
                MEWRK_TOOL_INPUT=params[:MAX_INPUT_CHARS],
                MEWRK_TOOL_IS_ERROR="1" if call.is_error else "0",
            )
        return context
