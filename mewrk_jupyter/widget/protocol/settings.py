"""The settings panel's messages: its three sections (conversation settings, preferences, configuration
files), the actions that change them, and what a refused save tells the view (the line, a conflict)."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import ConfigDict, with_config
from typing_extensions import TypedDict

from .base import ActionBase, Id, SentModel

# ---- kernel → view: the panel's sections ---------------------------------------------------------


class ConversationSettingsInfo(SentModel):
    """The session's conversation settings, and the values each picker offers."""

    model: str
    safety_level: str
    reasoning: str
    host_container: str
    async_tools: bool
    compaction: str
    plan_mode: bool
    # For each setting chosen from a list (model, safety_level, reasoning, host_container, compaction):
    # the values the panel offers; the session refuses, in a sentence, one it cannot act on.
    choices: dict[str, list[str]]
    # The values of a picker the session refuses now, each with the engine's sentence why (the ring's
    # compaction modes: native needs a model with a compaction of its own).
    unavailable: dict[str, dict[str, str]]


class PreferenceInfo(SentModel):
    """One preference of the configuration folder: its value and what it may be, in words."""

    name: str
    value: bool | int  # a threshold in percent of the window, as the ring shows it
    allowed: str
    kind: Literal["switch", "number"]
    low: int | None  # a number's bounds and step, for the input; null for a switch
    high: int | None
    step: int | None


class ConfigFileInfo(SentModel):
    """A file of the configuration folder, as the settings editor lists it."""

    path: str
    kind: str
    read_only: bool
    reason: str | None  # why it is read-only; null when it may be changed here


class SettingsPanelInfo(SentModel):
    """Everything the settings panel shows, read fresh."""

    settings: ConversationSettingsInfo
    preferences: list[PreferenceInfo]
    preference_notices: list[str]  # what is wrong with preferences.yaml, when it is left out
    folder: str  # the configuration folder, as a path
    files: list[ConfigFileInfo]
    # Why the ring's Compact now would be refused now (the engine's sentence); null when it would act.
    compact_now: str | None


class ConfigFileText(SentModel):
    """A configuration file's text and version, as read for the editor."""

    path: str
    text: str
    version: str
    read_only: bool
    reason: str | None


class ConfigProblemInfo(SentModel):
    """One problem of a refused save: the sentence, and the line (and column) it points at."""

    message: str
    field: str | None
    line: int | None
    column: int | None


@with_config(ConfigDict(extra="forbid"))
class SettingsAnswer(TypedDict, total=False):
    """What a settings action answers, as far as the panel reads it."""

    panel: SettingsPanelInfo  # the panel's sections after the action
    file: ConfigFileText  # a file read (or saved: its new text and version)
    problems: list[ConfigProblemInfo]  # a refused save: where the text is wrong
    conflict: bool  # a refused save: the file changed on disk since it was read
    current_version: str | None  # the file's version on disk at a conflict (null: it is gone)
    notice: str | None  # a change that ended the folder's trust, said in a sentence


# ---- view → kernel -----------------------------------------------------------------------------------


class SettingsAction(ActionBase):
    """Read the settings panel's sections."""

    action: Literal["settings"]


class ConfigureAction(ActionBase):
    """Change conversation settings of the session (Session.configure)."""

    action: Literal["configure"]
    changes: dict[str, Any]


class SetPreferencesAction(ActionBase):
    """Change preferences of the configuration folder (mw.set_preferences)."""

    action: Literal["set_preferences"]
    changes: dict[str, Any]


class ConfigReadAction(ActionBase):
    """Read a configuration file into the editor."""

    action: Literal["config_read"]
    path: Id


class ConfigSaveAction(ActionBase):
    """Save the editor's text, if the file is still at `version` (or over a change, with overwrite)."""

    action: Literal["config_save"]
    path: Id
    text: str
    version: str | None
    overwrite: bool = False


class ConfigCreateAction(ActionBase):
    """Create a configuration file holding `text`."""

    action: Literal["config_create"]
    path: Id
    text: str


class ConfigDeleteAction(ActionBase):
    """Delete a configuration file, if it is still at `version` (or whatever it holds, with overwrite)."""

    action: Literal["config_delete"]
    path: Id
    version: str | None
    overwrite: bool = False
