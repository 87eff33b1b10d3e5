"""A session's configuration as the person sees and changes it: its settings, the model they name, the
context figure, what the next request leaves out, the tool lock held while the prompt cache is warm, and
a skill chosen mid-conversation."""

from __future__ import annotations

import warnings
from typing import Any

from ..cards.models import HostMessage
from ..config.skills import read_skill
from ..errors import MewrkError, ToolChangeHeld
from ..providers.base import ModelInfo
from ..providers.registry import prices_of, resolve
from ..store import sessions as session_rows
from .assembly.context import ContextInfo, measure, session_spending
from .assembly.prefix import skill_text
from .events import SettingsChanged
from .settings.change import changed_fields, changed_settings
from .settings.model import SessionSettings
from .timeline.mirror import Timeline
from .toolbox.lock import ToolLock
from .toolbox.policy import plan_message
from .turns.parts import SessionParts


def _kept(_timeline: Timeline, _result: None) -> None:
    """A settings change leaves the cards as they are."""


class SessionConfig:
    """The configuration side of one session, over its parts."""

    def __init__(self, parts: SessionParts) -> None:
        self.parts = parts
        # What the tool lock held when Python was last told (its lists and containers): said once each.
        self._told: tuple[Any, ...] | None = None

    def settings(self) -> SessionSettings:
        """The settings as stored: another process may have changed them."""
        return self.parts.settings.refresh()

    def model_info(self) -> ModelInfo:
        """What the engine knows of the session's model."""
        return resolve(self.settings().model, self.parts.workspace.home)[1]

    def configure(self, changes: dict[str, Any]) -> SessionSettings:
        """Check and store `changes` (refused, changing nothing, while a turn runs or when one cannot act);
        tell the views what changed and the model when plan mode began or ended."""
        parts = self.parts
        parts.status.check_idle()
        before = self.settings()
        after = changed_settings(before, changes, parts.workspace.home)
        timeline = parts.timeline
        session_id = parts.session_id
        timeline.commit(lambda conn: session_rows.set_settings(conn, session_id, after.model_dump()), _kept)
        parts.settings.value = after
        changed = changed_fields(before, after)
        if changed:
            timeline.emit(SettingsChanged(session_id, changed))
        if "plan_mode" in changed:  # the model reads when plan mode begins and ends, where it happened
            timeline.append(plan_message(after.plan_mode))
        return after

    def context(self) -> ContextInfo:
        """How full the window is, and what the whole session spent."""
        settings, home = self.settings(), self.parts.workspace.home
        _, info = resolve(settings.model, home)
        conn = self.parts.timeline.db.conn()
        sizes = measure(conn, self.parts.session_id, self.parts.timeline.current().cards)
        return ContextInfo(
            agent=settings.agent,
            model=info.name,
            reasoning=settings.reasoning,
            # The figure is the most recent request's size; before the first, the next one's estimate.
            used=sizes.next_request if sizes.last_request is None else sizes.last_request,
            window=info.context_window,
            estimated=sizes.last_request is None or sizes.last_stopped,
            by_kind=sizes.by_kind,
            last_request=sizes.last_request,
            last_stopped=sizes.last_stopped,
            next_request=sizes.next_request,
            # What the whole session spent, priced apart from the room left in the window (D6).
            **session_spending(
                conn, self.parts.session_id, lambda model: prices_of(model, home)
            ).model_dump(),
        )

    def not_sent(self) -> dict[str, str]:
        """Cards the next request leaves out although they are on the timeline: card id -> why."""
        timeline = self.parts.timeline.current()
        # Only a signed block bound to what it follows can fall out; most timelines have none to check.
        if not timeline.bound_thinking:
            return {}
        try:
            _, info = resolve(self.settings().model, self.parts.workspace.home)
            return self.parts.assemble(timeline.cards, info).not_sent
        except MewrkError:  # the model or the tools are misconfigured: sending says so, plainly
            return {}

    def tool_lock(self) -> ToolLock | None:
        """What the tool lock holds while the prompt cache is warm; None when nothing is held."""
        _, info = resolve(self.settings().model, self.parts.workspace.home)
        return self.parts.offered(info).lock

    def held_news(self) -> ToolLock | None:
        """The tool lock, when it holds something Python has not been told yet (the widget shows its line
        all along); None when nothing is held or this was said already."""
        lock = self.tool_lock()
        if lock is None:
            self._told = None
            return None
        key = (lock.held, lock.wanted, lock.changed, lock.container, lock.wanted_container)
        if key == self._told:
            return None
        self._told = key
        return lock

    def tell_held(self) -> None:
        """Warn (`mw.ToolChangeHeld`) when the tool lock holds a change Python was not told of: what is
        held, until when, and how to accept the cache loss — the sentence the widget's line shows."""
        lock = self.held_news()
        if lock is not None:
            warnings.warn(str(lock), ToolChangeHeld, stacklevel=3)  # at the person's line, past the session

    def accept_tool_change(self) -> str:
        """Let the next request offer the tools of now, losing the warm prompt cache; says what happens."""
        lock = self.tool_lock()
        self.parts.toolbox.lock.accept()
        self.parts.timeline.emit(SettingsChanged(self.parts.session_id, ()))  # the views drop the lock's line
        if lock is None:
            return "Nothing was held: the next request offers the tools as they are now."
        return "The next request offers the new tool list, so the prompt cache starts over."

    def use_skill(self, name: str) -> HostMessage:
        """Append the skill `name`'s instructions as a host message (refused while a turn runs)."""
        self.parts.status.check_idle()
        skill = read_skill(self.parts.workspace.home, name)
        text = "The person chose a skill for what follows.\n\n" + skill_text(
            skill.name, skill.description, skill.instructions
        )
        message = HostMessage(topic="skill", text=text)
        self.parts.timeline.append(message)
        return message
