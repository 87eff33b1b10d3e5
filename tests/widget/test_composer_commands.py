"""Every `/command` of the table typed in the composer, kernel side: each answer fits the widget's protocol
and is the command's own sentence — done, or refused in plain words — never a fault's."""

from __future__ import annotations

import logging

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.commands import COMPOSER, listed

from .recording import RecordingWidget

# What a person might type for each command the composer offers, the way it is documented; several
# lines where a command does different things with different arguments.
TYPED: dict[str, list[str]] = {
    "continue": ["/continue"],
    "undo": ["/undo"],
    "redo": ["/redo"],
    "stop": ["/stop"],
    "branch": ["/branch", "/branch -1"],
    "fork": ["/fork -1"],
    "attach": ["/attach numbers"],
    "export": ["/export talk.md", "/export talk.ipynb"],
    "delete": ["/delete -1"],
    "history": ["/history"],
    "context": ["/context"],
    "stale": ["/stale"],
    "prune": ["/prune", "/prune stale --thinking", "/prune -1"],
    "cache": ["/cache -1"],
    "compact": ["/compact", "/compact now"],
    "approve": ["/approve", "/approve always"],
    "reject": ["/reject not now"],
    "mcp": ["/mcp"],
    "skill": ["/skill", "/skill review"],
    "workflow": ["/workflow review the parser", "/workflow"],
    "replay": ["/replay", "/replay --model offline/thinker --upto 1", "/replay --live"],
    "set": [
        "/set",
        "/set model offline/thinker",
        "/set plan_mode on",
        "/set plan_mode off",
        "/set reasoning high",
        "/set safety_level default",
        "/set memory project",
        "/set host_container box_tool_result",
        "/set async_tools on",
        "/set compaction handoff",
        "/set model nowhere/nothing",
    ],
    "settings": ["/settings"],
    "trust": ["/trust"],
    "preferences": ["/preferences"],
    "help": ["/help"],
}


def test_the_list_names_every_command_the_composer_offers(session):
    assert sorted(TYPED) == sorted(c.name for c in listed(COMPOSER, session))


@pytest.mark.parametrize("line", [line for lines in TYPED.values() for line in lines])
def test_a_command_typed_in_the_composer_is_answered_in_its_own_words(line, session, caplog):
    view = RecordingWidget(session)  # every message it sends is read back through the protocol's models
    view.hello()
    with caplog.at_level(logging.ERROR, logger="mewrk_jupyter"):
        answer = view.do("command", text=line)
        if session.last_run is not None:
            session.last_run.wait()
    view.close()
    assert not answer["message"].startswith("That did not work"), answer["message"]
    assert [r.getMessage() for r in caplog.records] == []
    assert answer["ok"] or answer["message"]  # a refusal always says why


@pytest.mark.parametrize(
    ("line", "said", "model", "plan_mode"),
    [
        (
            "/set model offline/thinker",
            "Changed model 'offline/echo' → 'offline/thinker'.",
            "offline/thinker",
            False,
        ),
        ("/set plan_mode on", "Changed plan_mode False → True.", "offline/echo", True),
    ],
)
def test_set_in_the_composer_changes_the_setting_and_says_so(line, said, model, plan_mode, widget, session):
    widget.hello()
    answer = widget.do("command", text=line)
    assert answer["ok"] and answer["message"] == said
    settings = mw.Session.open(session.id, workspace=session.workspace.root).settings
    assert (settings.model, settings.plan_mode) == (model, plan_mode)
