"""`%mewrk` and the composer's `/commands` are one table: the same commands, summaries and usage sentences."""

from __future__ import annotations

import re

import pytest

from mewrk_jupyter import magics
from mewrk_jupyter.commands import COMMANDS, COMPOSER, NOTEBOOK
from tests.widget.recording import RecordingWidget

HELP_ROW = re.compile(r"^\| `%mewrk (\S+)[^`]*` \| (.*) \|$")


@pytest.fixture
def widget(mewrk):
    """A notebook's current session, and a widget of it: both surfaces on one session."""
    mewrk("new")
    view = RecordingWidget(magics.current_session())
    view.hello()
    yield view
    view.close()


def notebook_help(mewrk) -> dict[str, str]:
    rows = (HELP_ROW.match(line) for line in mewrk("help").splitlines())
    return {row[1]: row[2] for row in rows if row}


def composer_help(widget) -> dict[str, str]:
    return {c["name"]: c["summary"] for c in widget.of("snapshot")[-1]["commands"]}


def test_both_surfaces_list_the_table_s_commands_with_the_same_summaries(mewrk, widget):
    in_notebook, in_composer = notebook_help(mewrk), composer_help(widget)
    assert list(in_notebook) == [c.name for c in COMMANDS.values() if c.offered(NOTEBOOK)]
    assert list(in_composer) == [c.name for c in COMMANDS.values() if c.offered(COMPOSER, widget.session)]
    shared = set(in_notebook) & set(in_composer)
    assert {
        "continue",
        "undo",
        "redo",
        "stop",
        "branch",
        "fork",
        "delete",
        "history",
        "context",
        "help",
    } <= shared
    for name in shared:
        # The same words; the composer shows them as plain text, without Markdown's backticks.
        assert in_composer[name] == in_notebook[name].replace("`", ""), name
    assert {"new", "use", "sessions", "show", "send"}.isdisjoint(in_composer)  # a notebook's own
    assert mewrk("help").count("CARD is a card id") == 1  # what CARD means is said once, under the table


def test_a_bad_argument_gives_the_same_usage_sentence_on_both(mewrk, widget):
    for line in ("undo twice", "delete", "delete 'unbalanced", "redo again", "stop now", "context of it"):
        in_notebook = mewrk(line)
        answer = widget.do("command", text=f"/{line}")
        assert not answer["ok"]
        name = line.split()[0]
        assert in_notebook.startswith(f"Usage: `%mewrk {name}"), line
        # Only the way to type the command differs: `%mewrk name …` in a cell, /name … in the composer.
        assert answer["message"] == in_notebook.replace("`%mewrk ", "/").replace("` — ", " — ", 1), line
    # Where the table gives a surface its own arguments, its usage shows them, with the same summary.
    summary = COMMANDS["fork"].summary
    assert mewrk("fork a b") == f"Usage: `%mewrk fork CARD` — {summary}"
    assert widget.do("command", text="/fork a b")["message"] == f"Usage: /fork [CARD] — {summary}"


def test_an_unknown_command_is_refused_on_both_and_a_notebook_command_is_not_offered_in_the_composer(
    mewrk, widget
):
    assert mewrk("frobnicate").startswith("**mewrk:** unknown command `frobnicate`")
    for line in ("/frobnicate", "/new", "/use abc"):
        answer = widget.do("command", text=line)
        assert not answer["ok"] and answer["message"].startswith(f"Unknown command {line.split()[0]} — ")


def test_the_same_command_does_the_same_on_both(mewrk, widget):
    session = magics.current_session()
    assert mewrk("stop") == widget.do("command", text="/stop")["message"] == "Nothing is running."
    assert widget.do("stop")["message"] == "Nothing is running."  # the Stop button says the same
    mewrk("send hello")
    assert widget.do("command", text="/delete -1")["message"] == "Deleted."
    assert [c.kind for c in session.cards] == ["user_input"]
    assert mewrk("undo") == "Undid: deleted reply."  # one undo stack, whichever surface changed it
    assert widget.do("redo")["message"] == widget.do("command", text="/undo")["message"].replace(
        "Undid", "Redid"
    )
    assert [c.kind for c in session.cards] == ["user_input", "model_reply"]
