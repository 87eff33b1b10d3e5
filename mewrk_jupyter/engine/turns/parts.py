"""The parts of a session a turn works with, handed to runs and hand-run tools explicitly."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ...cards.models import Card
from ...providers.base import ModelInfo
from ..assembly.assemble import BOX_SPEC, Assembly, assembly
from ..assembly.prefix import hidden_prefix, left_out
from ..events import Notice
from ..settings.model import SessionSettings, StoredSettings
from ..timeline.stored import StoredTimeline
from ..toolbox.box import ToolBox
from ..toolbox.handoff_tool import HANDOFF_SPEC, handoff_armed
from ..toolbox.lock import Offered
from ..toolbox.secrets import SessionSecrets
from ..workspace import Workspace
from .approvals import Approvals
from .status import TurnStatus

# Sentences a session's opening said already (Session.new warns of a prefix file left out), by session
# id, taken by its parts when they are made so that the first request does not say them again.
ALREADY_TOLD: dict[str, set[str]] = {}


def told_already(session_id: str, sentences: list[str]) -> None:
    """Note that the person was told `sentences` as the session `session_id` was made."""
    ALREADY_TOLD.setdefault(session_id, set()).update(sentences)


@dataclass(frozen=True)
class SessionParts:
    """Where a session lives, its settings, its stored timeline, its state, tools and approvals."""

    workspace: Workspace
    settings: StoredSettings
    timeline: StoredTimeline
    status: TurnStatus
    toolbox: ToolBox
    approvals: Approvals
    # The sentences of prefix files left out that the person was told already: each is said once.
    told: set[str] = field(default_factory=set, compare=False)

    def __post_init__(self) -> None:
        self.told.update(ALREADY_TOLD.pop(self.session_id, ()))

    @property
    def session_id(self) -> str:
        """The session these parts belong to."""
        return self.timeline.session_id

    @property
    def secrets(self) -> SessionSecrets:
        """The environment of the session's commands and the redaction of known secrets."""
        return self.toolbox.secrets

    def offered(self, model: ModelInfo) -> Offered:
        """The tools and host-message container the next request to `model` goes with: the settings' and
        configuration's, or the last request's while the prompt cache is warm (the tool lock)."""
        container = self.settings.value.host_container
        tools = self.toolbox.specs()
        if container == "box_tool_result":  # declared in every request of that container
            tools = [*tools, BOX_SPEC]
        return self.toolbox.lock.offered(tools, container, model)

    def tell_left_out(self) -> None:
        """Tell the person, once each, of a file of the hidden prefix that is there but not read (a link
        leading outside its folder, or no regular file): the request goes without it."""
        settings = self.settings.value
        for sentence in left_out(self.workspace, settings.memory, settings.skills):
            if sentence not in self.told:
                self.told.add(sentence)
                self.timeline.emit(Notice(self.session_id, sentence))

    def assemble(self, cards: list[Card], model: ModelInfo) -> Assembly:
        """The request these cards make for `model`, under the hidden prefix, tools and reasoning of now
        (with the `handoff` tool once auto-compaction armed it)."""
        settings = self.settings.value
        offered = self.offered(model)
        tools = offered.tools
        if handoff_armed(cards):  # appended mid-conversation: the tools above keep their place
            tools = [*tools, HANDOFF_SPEC]
        return assembly(
            cards,
            model,
            hidden_prefix(self.workspace, settings.memory, settings.skills, offered.container),
            tools=tools,
            reasoning=settings.reasoning,
            container=offered.container,
        )


def session_parts(workspace: Workspace, timeline: StoredTimeline, row: Any) -> SessionParts:
    """The parts of the session whose stored row is `row`: its settings and revision as that one row holds
    them, its state, tools and approvals — each receiving what it needs, nothing more."""
    value = SessionSettings.model_validate_json(row["settings"])
    settings = StoredSettings(timeline.db, timeline.session_id, value, rev=row["rev"])
    toolbox = ToolBox(workspace, settings, timeline, subagent=bool(row["subagent"]))
    approvals = Approvals(timeline, settings, toolbox)
    return SessionParts(workspace, settings, timeline, TurnStatus(timeline), toolbox, approvals)
