"""The settings panel, kernel side: its three sections read fresh, and each change made through the
engine's own methods — `Session.configure`, `mw.set_preferences`, `mw.SettingsEditor` — so a change from
the panel passes the same gates as one from Python or a magic, and a refusal is the engine's sentence."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, get_args

from typing_extensions import assert_never

from ..config.preferences import RANGES, allowed_values
from ..config.problems import InvalidConfig
from ..engine.settings.change import changed_settings, describe_change
from ..engine.settings.editor import SettingsEditor
from ..engine.settings.model import Reasoning, SessionSettings
from ..engine.settings.preferences import preferences_at, set_preferences
from ..errors import ConfigConflict, MewrkError
from ..providers.catalog import model_names
from ..providers.registry import config_for
from .answers import Answer, WidgetHost
from .protocol import (
    ConfigCreateAction,
    ConfigDeleteAction,
    ConfigFileInfo,
    ConfigFileText,
    ConfigProblemInfo,
    ConfigReadAction,
    ConfigSaveAction,
    ConfigureAction,
    ConversationSettingsInfo,
    PreferenceInfo,
    ResultData,
    SetPreferencesAction,
    SettingsAction,
    SettingsAnswer,
    SettingsPanelInfo,
)

if TYPE_CHECKING:
    from ..engine.session import Session

# "line 3, column 7" in a YAML syntax error: the column the editor marks besides the line.
_WHERE = re.compile(r"line (\d+), column (\d+)")


def _literals(field: str) -> list[str]:
    """The values a Literal field of the settings takes, in the order the engine declares them."""
    return [str(v) for v in get_args(SessionSettings.model_fields[field].annotation)]


def _with(current: str, offered: list[str]) -> list[str]:
    """The offered values, with the current one first when it is not among them (a model since removed)."""
    return offered if current in offered else [current, *offered]


def _refused_modes(session: Session) -> dict[str, str]:
    """The compaction modes the session would refuse now, each with the engine's own sentence."""
    refused = {}
    for mode in _literals("compaction"):
        if mode == session.settings.compaction:
            continue
        try:
            changed_settings(session.settings, {"compaction": mode}, session.workspace.home)
        except MewrkError as exc:
            refused[mode] = str(exc)
    return refused


def conversation_info(session: Session) -> ConversationSettingsInfo:
    """The session's conversation settings and what each picker offers."""
    now = session.settings
    config = config_for(session.workspace.home)
    configured = sorted(config.policies) if config is not None else []
    levels = ["default", *(level for level in configured if level != "default")]
    return ConversationSettingsInfo(
        model=now.model,
        safety_level=now.safety_level,
        reasoning=now.reasoning,
        host_container=now.host_container,
        async_tools=now.async_tools,
        compaction=now.compaction,
        plan_mode=now.plan_mode,
        choices={
            "model": _with(now.model, model_names(session.workspace.home)),
            "safety_level": _with(now.safety_level, levels),
            "reasoning": [str(v) for v in get_args(Reasoning)],
            "host_container": _literals("host_container"),
            "compaction": _literals("compaction"),
        },
        unavailable={"compaction": _refused_modes(session)},
    )


def preference_rows(session: Session) -> tuple[list[PreferenceInfo], list[str]]:
    """Each preference of the session's configuration folder, and what is wrong with its file."""
    found, notices = preferences_at(session.workspace.home)
    rows = []
    for name, value in found.model_dump().items():
        low, high, step, _ = RANGES.get(name, (None, None, None, ""))
        rows.append(
            PreferenceInfo(
                name=name,
                value=value,
                allowed=allowed_values(name),
                kind="switch" if isinstance(value, bool) else "number",
                low=low,
                high=high,
                step=step,
            )
        )
    return rows, notices


def panel_info(session: Session) -> SettingsPanelInfo:
    """Everything the settings panel shows, read now."""
    editor = SettingsEditor(session.workspace.root)
    preferences, notices = preference_rows(session)
    return SettingsPanelInfo(
        settings=conversation_info(session),
        preferences=preferences,
        preference_notices=notices,
        folder=str(editor.home),
        files=[
            ConfigFileInfo(path=f.path, kind=f.kind, read_only=f.read_only, reason=f.reason)
            for f in editor.files()
        ],
        compact_now=session.compact_now_unavailable(),
    )


def refusal_data(exc: MewrkError) -> ResultData:
    """What a refused settings change tells the panel besides its sentence: the lines a save is refused
    at, or that the file changed on disk (and its version there)."""
    if isinstance(exc, ConfigConflict):
        return {"settings": SettingsAnswer(conflict=True, current_version=exc.current_version)}
    if isinstance(exc, InvalidConfig):
        problems = []
        for problem in exc.problems:
            where = _WHERE.search(problem.message)
            column = int(where.group(2)) if where and problem.line == int(where.group(1)) else None
            problems.append(
                ConfigProblemInfo(message=str(problem), field=problem.field, line=problem.line, column=column)
            )
        return {"settings": SettingsAnswer(problems=problems)}
    return {}


SettingsRequest = (
    SettingsAction
    | ConfigureAction
    | SetPreferencesAction
    | ConfigReadAction
    | ConfigSaveAction
    | ConfigCreateAction
    | ConfigDeleteAction
)


class SettingsHandler:
    """Carries out the settings panel's actions for the widget's views (a collaborator of its
    ActionHandler); each answer carries the panel's sections read afresh."""

    def __init__(self, host: WidgetHost) -> None:
        self.host = host

    def handle(self, request: SettingsRequest) -> Answer:
        """Carry out one action of the settings panel."""
        session = self.host.session
        editor = SettingsEditor(session.workspace.root)
        match request:
            case SettingsAction():
                return self._answer("")
            case ConfigureAction():
                before = session.settings
                after = session.configure(**request.changes)
                return self._answer(describe_change(before, after, session.tool_lock))
            case SetPreferencesAction():
                set_preferences(workspace=session.workspace.root, **request.changes)
                said = ", ".join(f"{name} {json.dumps(value)}" for name, value in request.changes.items())
                return self._answer(f"Preferences saved: {said}.")
            case ConfigReadAction():
                return self._answer("", SettingsAnswer(file=_file(editor, request.path)))
            case ConfigSaveAction():
                written = editor.save(
                    request.path, request.text, request.version, overwrite=request.overwrite
                )
                said = f"Saved {written.path}; it is used from the next request on."
                return self._answer(
                    said, SettingsAnswer(file=_file(editor, written.path), notice=written.notice)
                )
            case ConfigCreateAction():
                written = editor.create(request.path, request.text)
                said = f"Created {written.path}; it is used from the next request on."
                return self._answer(
                    said, SettingsAnswer(file=_file(editor, written.path), notice=written.notice)
                )
            case ConfigDeleteAction():
                written = editor.delete(request.path, request.version, overwrite=request.overwrite)
                return self._answer(f"Deleted {written.path}.", SettingsAnswer(notice=written.notice))
            case _:
                assert_never(request)

    def _answer(self, said: str, parts: SettingsAnswer | None = None) -> Answer:
        """The sentence, with the panel's sections after the action and what else the action gives."""
        answer = SettingsAnswer(panel=panel_info(self.host.session))
        answer.update(parts or SettingsAnswer())
        return Answer(said, {"settings": answer})


def _file(editor: SettingsEditor, path: str) -> ConfigFileText:
    """A configuration file as the panel's editor shows it: its text, version and whether it may change."""
    text, version = editor.read(path)
    shown = {f.path: f for f in editor.files()}.get(path)
    return ConfigFileText(
        path=path,
        text=text,
        version=version,
        read_only=bool(shown and shown.read_only),
        reason=shown.reason if shown else None,
    )
