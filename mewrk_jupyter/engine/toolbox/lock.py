"""The tool lock: while the prompt cache is warm, requests keep offering the tools the last request offered.

A provider caches a request's prefix, tools first, then the system prompt, then the messages; a change to
the tool list (an agent file's tools, plan mode, a tool folder, the `box` of the host-message container)
makes the next request write the whole conversation to the cache again. So while the cache is warm the
engine sends the list of the last request, and says so; the new list takes effect once the cache cools,
or at once when the person accepts the cache loss. Tools the engine appends mid-conversation (`handoff`)
go after the held list without breaking it.

How long a cache stays warm is the providers' shortest lifetime: Anthropic's ephemeral cache lives five
minutes after its last use, and OpenAI keeps a cached prefix for five to ten minutes of inactivity. The
offline models cache nothing, and a request to another model starts a cache of its own: neither is held.
A session that goes on after a native compaction keeps its original's cache, so it starts held by it.

A subagent at work is never held. The lock guards a cache the person pays for in the conversation they act
on, and asks them: they see its line and accept the loss there. A subagent is a conversation of its own,
with its own cache, that nobody watches while it works: its line would reach no one, and the parent's
acceptance answers for the parent's cache only. What changes its tools while it works is what the person
chose — plan mode turned on in the parent, a configuration file they edited — so it takes effect at the
subagent's next request, at the cost of that subagent's cache; held, a planning subagent would keep being
offered `write` and `bash`, each call a wasted step. Once its task ended, it is a conversation the person
may go on with, and held like any other.
"""

from __future__ import annotations

import sqlite3
import time
from dataclasses import dataclass
from typing import Any

from ...cards.models import NativeCompaction
from ...providers.base import ModelInfo, ToolSpec
from ...providers.sent import sent_tools
from ...store import history as history_rows
from ...store import sessions as session_rows
from ...store import tasks as task_rows
from ..assembly.assemble import BOX_TOOL
from ..timeline.stored import StoredTimeline
from .handoff_tool import HANDOFF

# Seconds a prompt cache stays warm after the request that last used it (the providers' shortest).
CACHE_LIFETIME = 300.0

# Tools the engine appends to whatever list is offered: they never count as a change of the list.
APPENDED = (HANDOFF,)

_CONTAINERS = {
    "user_message": "system reminders in user messages",
    "box_tool_result": "results of `box` calls",
}


def _names(specs: list[ToolSpec]) -> tuple[str, ...]:
    return tuple(spec.name for spec in specs)


@dataclass(frozen=True)
class ToolLock:
    """What the lock holds now: the tools requests keep offering, those the conversation would offer, and
    when the prompt cache cools (seconds since the epoch)."""

    held: tuple[str, ...]
    wanted: tuple[str, ...]
    changed: tuple[str, ...]  # offered under both lists, with another description or schema
    container: str  # how host messages travel while the lock holds
    wanted_container: str
    until: float

    @property
    def text(self) -> str:
        """The sentence a person reads in the widget: what stays as it was, until when, and that accepting
        the cache loss offers the new list now (the line's button does)."""
        return self._said("accepting the cache loss offers the new list now")

    def __str__(self) -> str:
        return self._said("s.accept_tool_change() offers the new list now, at the cost of the cached prompt")

    def _said(self, how_to_accept: str) -> str:
        details = []
        if added := [n for n in self.wanted if n not in self.held and n != BOX_TOOL]:
            details.append("not offered yet: " + ", ".join(added))
        if removed := [n for n in self.held if n not in self.wanted and n != BOX_TOOL]:
            details.append("still offered: " + ", ".join(removed))
        if self.changed:
            details.append("described as before: " + ", ".join(self.changed))
        if self.container != self.wanted_container:
            details.append("host messages still travel as " + _CONTAINERS[self.container])
        if not details:  # the same tools, in another order
            details.append("in the order they had")
        minutes = max(1, round((self.until - time.time()) / 60))
        return (
            f"The prompt cache is warm, so requests keep the tools of the last one ({'; '.join(details)}) "
            f"for about {minutes} more minute{'s' if minutes != 1 else ''}, until "
            f"{time.strftime('%H:%M', time.localtime(self.until))}; {how_to_accept}."
        )


def _last_tools(last: dict[str, Any]) -> list[ToolSpec]:
    """The tools the last request offered: the neutral request's, where its row kept it; else read back
    from the body by the adapters' reader (a row stored before rows kept the neutral request)."""
    if last.get("neutral_tools") is not None:
        return [ToolSpec.model_validate(t) for t in last["neutral_tools"]]
    return sent_tools(last["tools"])


@dataclass(frozen=True)
class Offered:
    """The tools and the host-message container a request goes with, and the lock that chose them."""

    tools: list[ToolSpec]
    container: str
    lock: ToolLock | None


class ToolLocks:
    """Holds a session's tool list while its prompt cache is warm; the person's acceptance lets it go.
    A subagent at work is not held (see the module's docstring): its tools follow its settings."""

    def __init__(self, timeline: StoredTimeline) -> None:
        self.timeline = timeline
        # When the person last accepted the cache loss (this process): requests before it hold nothing.
        self.accepted_at = 0.0

    def accept(self) -> None:
        """Let the next request offer the conversation's tools as they are now, warm cache or not."""
        self.accepted_at = time.time()

    def offered(self, wanted: list[ToolSpec], container: str, model: ModelInfo) -> Offered:
        """The tools to send: `wanted` (what the settings and configuration offer now, `box` included in
        its container), or the last request's list while its cache is warm and the person did not accept."""
        free = Offered(wanted, container, None)
        if model.protocol == "offline":
            return free
        conn = self.timeline.db.conn()
        last = history_rows.last_sent(conn, self.timeline.session_id) or self._inherited(conn)
        if last is None or last["model"] != model.name or last["started_at"] <= self.accepted_at:
            return free
        until = (last["ended_at"] or last["started_at"]) + CACHE_LIFETIME
        if time.time() >= until:
            return free
        sent = [t for t in _last_tools(last) if t.name not in APPENDED]
        if sent == wanted or task_rows.live_task_of_child(conn, self.timeline.session_id) is not None:
            return free  # the same list, or a subagent at work: nobody to ask, its tools follow at once
        held_container = "box_tool_result" if BOX_TOOL in _names(sent) else "user_message"
        before = {t.name: t for t in sent}
        lock = ToolLock(
            held=_names(sent),
            wanted=_names(wanted),
            changed=tuple(t.name for t in wanted if t.name in before and before[t.name] != t),
            container=held_container,
            wanted_container=container,
            until=until,
        )
        return Offered(sent, held_container, lock)

    def _inherited(self, conn: sqlite3.Connection) -> dict[str, Any] | None:
        """Before its own first request, a session that goes on after a native compaction shares its
        original's cache (same tools, system prompt and cache key): the original's last request holds."""
        cards = self.timeline.current().cards
        if not cards or not isinstance(cards[0], NativeCompaction):
            return None
        row = session_rows.get_session(conn, self.timeline.session_id)
        origin = row["handover_of"] if row is not None else None
        return history_rows.last_sent(conn, origin) if origin else None
