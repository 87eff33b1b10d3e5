"""A session's MCP servers as the engine sees them: the servers of a trusted folder started before a
request, their tools offered to the agents that may use them, and a server that failed to start or
died told to the model as a host message (one line: which server, what failed), never a failed turn.
"""

from __future__ import annotations

import threading
from dataclasses import replace
from pathlib import Path

from ...cards.models import HostMessage
from ...config import AgentConfig, Config, trust_state
from ...providers.registry import config_for
from ...tools import Tool
from ...tools.mcp import McpServers, ServerStatus, server_prefix
from ..timeline.stored import StoredTimeline
from ..workspace import Workspace
from .secrets import SessionSecrets

TOPIC = "mcp"
UNTRUSTED = "the configuration folder is not trusted yet (mw.trust() or %mewrk trust)"


class SessionMcp:
    """Starts and stops the session's MCP servers with the configuration, and reports their failures."""

    def __init__(self, workspace: Workspace, secrets: SessionSecrets, timeline: StoredTimeline) -> None:
        self.workspace = workspace
        self.secrets = secrets
        self.timeline = timeline
        self.servers = McpServers(workspace.root)

    def sync(self, wait: bool = True, cancel: threading.Event | None = None) -> None:
        """Run the servers the configuration names now (none before the folder is trusted: a folder that
        lost its trust ends them for every session of the workspace)."""
        config = config_for(self.workspace.home)
        if config is not None and config.mcp and not trust_state(config).trusted:
            self.servers.end_all()
            return
        configs = config.mcp if config is not None else {}
        self.servers.sync(configs, wait, cancel, self.secrets.sandbox() if configs else None)

    def before_request(self, cancel: threading.Event | None = None) -> list[HostMessage]:
        """Start what the configuration names, then tell the model which servers failed since it last
        heard (the host messages added are returned)."""
        self.sync(cancel=cancel)
        added = []
        for sentence in self.servers.news():
            # The server's own words are quoted: a secret it printed is hidden before the model sees it.
            message = HostMessage(topic=TOPIC, text=self.secrets.redact(sentence))
            self.timeline.append(message)
            added.append(message)
        return added

    def statuses(self, wait: bool = True) -> list[ServerStatus]:
        """Each configured server's state, once it had its chance to start (when `wait`)."""
        self.sync(wait)
        config = config_for(self.workspace.home)
        if config is not None and config.mcp and not trust_state(config).trusted:
            found = [
                ServerStatus(name, c.transport, c.where, "stopped", reason=UNTRUSTED)
                for name, c in config.mcp.items()
            ]
        else:
            found = [
                replace(status, reason=self.secrets.redact(status.reason)) if status.reason else status
                for status in self.servers.statuses()
            ]
        # A file that failed to load starts nothing; it is listed with what is wrong with it.
        broken = [p for p in (config.problems if config is not None else ()) if p.file.startswith("mcp/")]
        found += [ServerStatus(Path(p.file).stem, "", p.file, "failed", reason=p.message) for p in broken]
        return sorted(found, key=lambda status: status.name)

    def tools(self, config: Config | None, agent: AgentConfig | None) -> list[Tool]:
        """The running servers' tools the agent may use: all of them, unless its `tools:` list names some
        (by full name, or `mcp__<server>` for all of a server's)."""
        found = self.servers.tools()
        if config is None or agent is None or agent.tools is None:
            return found
        listed = set(agent.tools)
        return [tool for tool in found if tool.name in listed or server_prefix(tool.name) in listed]

    def close(self) -> None:
        """Stop every server of the session."""
        self.servers.close()
