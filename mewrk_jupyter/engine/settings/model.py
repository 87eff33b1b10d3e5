"""A session's settings: copied whole into branches and forks (T11, A4), and stored with the session."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    ValidationError,
    field_validator,
    model_validator,
)

from ...errors import InvalidInput
from ...providers.registry import DEFAULT_MODEL
from ...store import sessions as session_rows
from ...store.db import Database
from ..assembly.prefix import MEMORY_LEVELS

# The public names DESIGN §2 gives a setting where the store, the widget and the magics use another.
DESIGN_NAMES = {"compaction_mode": "compaction"}


def stored_names(values: dict[str, Any]) -> dict[str, Any]:
    """`values` with each setting under its stored name (`compaction_mode=` is `compaction=`); a setting
    given under both names with two values is refused in a sentence."""
    found = dict(values)
    for public, stored in DESIGN_NAMES.items():
        if public not in found:
            continue
        value = found.pop(public)
        if stored in found and found[stored] != value:
            raise InvalidInput(
                f"{public} and {stored} are one setting, given two values ({value!r} and {found[stored]!r}): "
                "give one."
            )
        found[stored] = value
    return found


class GrantPlace(BaseModel):
    """Where an "approve always" was given: the workspace's real path, and the digest of its configuration
    files that can ask for trust (the trust record's) at that moment."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    root: str
    digest: str


# How hard the model thinks: the Anthropic budgets and the Responses efforts share these names.
Reasoning = Literal["off", "low", "medium", "high"]


class SessionSettings(BaseModel):
    """Model, agent, safety level, memory levels and host-message container of one session.

    A value is never assigned: `s.configure(...)` checks a change and stores it, and the engine makes a
    new value (`model_copy(update=...)`), so that what `s.settings` shows is what is stored."""

    model_config = ConfigDict(extra="forbid")

    def __setattr__(self, name: str, value: Any) -> None:
        raise InvalidInput(
            f"A setting is changed with s.configure({name}=...) (or %mewrk set, or the settings panel), which "
            "checks the value and stores it with the session; s.settings only shows them, and nothing changed."
        )

    model: str = DEFAULT_MODEL
    agent: str = "main"
    safety_level: str = "default"
    memory: list[str] = Field(default_factory=lambda: list(MEMORY_LEVELS))
    host_container: Literal["user_message", "box_tool_result"] = "user_message"
    reasoning: Reasoning = "off"
    # Whether a background result arrives as the output of the call that started it (T15); the model must
    # take it (ModelInfo.async_tools), checked where settings are made or changed (configure.py).
    async_tools: bool = False
    # How a full context shrinks: a summary handed to a new session, or the vendor's own compaction.
    # `Session.new` picks native where the model can; a session stored before that keeps handoff.
    compaction: Literal["handoff", "native"] = "handoff"
    plan_mode: bool = False
    # Skills whose instructions are part of the hidden prefix from the start (`skills/<name>/SKILL.md`).
    skills: list[str] = Field(default_factory=list)
    # Tools the person chose "approve always" for (A1); a branch or fork starts without them.
    approved_always: list[str] = Field(default_factory=list)
    # Where each of them was approved: a grant is used only in that folder with that configuration, so a
    # store copied or cloned to another folder, or a folder whose trust changed, keeps none (turns/grants.py).
    approved_where: dict[str, GrantPlace] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _drop_moved(cls, data: Any) -> Any:
        # Sessions stored before confirm_delete became a preference still carry it: it is left behind.
        if isinstance(data, dict) and "confirm_delete" in data:
            data = {k: v for k, v in data.items() if k != "confirm_delete"}
        return data

    @property
    def compaction_mode(self) -> str:
        """The compaction mode under its DESIGN §2 name: the same as `compaction`."""
        return self.compaction

    @field_validator("memory")
    @classmethod
    def _known_levels(cls, value: list[str]) -> list[str]:
        unknown = [v for v in value if v not in MEMORY_LEVELS]
        if unknown:
            raise ValueError(f"unknown memory level(s) {unknown}; levels: {', '.join(MEMORY_LEVELS)}")
        return value


# What `s.configure` changes: the conversation settings. The agent is chosen when the session is made
# (its system prompt is the first card), and "approve always" is given at an approval.
CONFIGURABLE = (
    "model",
    "safety_level",
    "reasoning",
    "memory",
    "host_container",
    "async_tools",
    "compaction",
    "plan_mode",
)


def parse_settings(values: dict[str, Any]) -> SessionSettings:
    """Session settings from plain values, or an InvalidInput saying in a sentence which one is wrong."""
    if "confirm_delete" in values:
        raise InvalidInput(
            "confirm_delete is a preference now, shared by every session of the folder: "
            "set it with mw.set_preferences(confirm_delete=True)."
        )
    try:
        return SessionSettings.model_validate(stored_names(values))
    except ValidationError as exc:
        problems = []
        for error in exc.errors(include_url=False):
            field = ".".join(str(part) for part in error["loc"])
            message = error["msg"].removeprefix("Value error, ")
            problems.append(message if message.startswith(field) else f"{field}: {message}")
        raise InvalidInput("Invalid session settings: " + "; ".join(problems)) from None


class StoredSettings:
    """A session's settings and the store that keeps them; every part of the session reads `value`."""

    def __init__(self, db: Database, session_id: str, value: SessionSettings, rev: int | None = None) -> None:
        self.db = db
        self.session_id = session_id
        self.value = value
        self.rev = rev  # the session's revision when `value` was read; None: not known

    def update(self, **changes: Any) -> None:
        """Change settings and store them; a value the engine cannot act on is refused like at creation."""
        value = parse_settings({**self.value.model_dump(), **changes})
        with self.db.tx() as conn:
            session_rows.set_settings(conn, self.session_id, value.model_dump())
        self.value = value

    def plan_mode_now(self) -> bool:
        """Plan mode as stored now, taken into the settings in memory: a subagent's parent turns it on or
        off while the subagent's turn runs (the turn reads nothing else of the settings again)."""
        stored = session_rows.plan_mode_of(self.db.conn(), self.session_id)
        if stored is None:
            return self.value.plan_mode
        if stored != self.value.plan_mode:
            self.value = self.value.model_copy(update={"plan_mode": stored})
        return stored

    def refresh(self) -> SessionSettings:
        """The settings, read again from the store when the session's revision moved since the last
        look (another process may have changed them; every change bumps the revision)."""
        conn = self.db.conn()
        rev = session_rows.get_rev(conn, self.session_id)
        if rev != self.rev:
            row = session_rows.get_session(conn, self.session_id)
            if row is not None:
                self.value = SessionSettings.model_validate_json(row["settings"])
            self.rev = rev
        return self.value
