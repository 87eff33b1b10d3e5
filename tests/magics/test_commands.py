"""`%mewrk` commands in a plain IPython shell: each acts on the current session through its methods (N1)."""

from __future__ import annotations

import mewrk_jupyter as mw
from mewrk_jupyter import commands, magics
from mewrk_jupyter.magics import NO_SESSION
from tests.conftest import wait_for


def kinds(session: mw.Session) -> list[str]:
    return [c.kind for c in session.cards]


def test_without_a_session_commands_say_how_to_get_one(mewrk):
    for line in ("cards", "send hello", "undo", "show", "history", "context", "edit abc text", "stop"):
        out = mewrk(line)
        assert NO_SESSION in out and "Traceback" not in out
    assert "| `%mewrk new" in mewrk("help")


def test_new_prints_one_line_and_makes_the_session_current(mewrk, workspace):
    out = mewrk("new")
    session = magics.current_session()
    assert session is not None and session.title == "untitled"
    assert out.strip().count("\n") == 0
    db = workspace / ".mewrk" / "mewrk.db"
    assert session.id in out and "offline/echo" in out and str(db) in out
    assert db.exists()


def test_new_takes_a_model_and_title_words(mewrk):
    out = mewrk("new --model offline/thinker my 'first demo'")
    session = magics.current_session()
    assert session.settings.model == "offline/thinker" and session.title == "my first demo"
    assert "offline/thinker" in out
    mewrk("new --model=offline/tiny")
    assert magics.current_session().settings.model == "offline/tiny"


def test_new_takes_an_agent_whose_file_gives_the_defaults(mewrk, workspace):
    agents = workspace / ".mewrk" / "agents"
    agents.mkdir(parents=True)
    (agents / "reviewer.yaml").write_text("model: offline/thinker\nsystem_prompt: Review the diff.\n")
    out = mewrk("new --agent reviewer a review")
    session = magics.current_session()
    assert session.settings.agent == "reviewer" and session.settings.model == "offline/thinker"
    assert session.title == "a review" and [c.text for c in session.cards] == ["Review the diff."]
    assert "agent `reviewer`" in out and "offline/thinker" in out
    mewrk("new --agent=reviewer --model offline/tiny")
    assert magics.current_session().settings.model == "offline/tiny"  # the model named wins over the file's
    refused = mewrk("new --agent nobody")
    assert "There is no agent `nobody`" in refused and "Traceback" not in refused
    assert mewrk("new --agent").startswith("Usage: `%mewrk new")


def test_new_with_an_unknown_model_is_one_readable_line(mewrk):
    out = mewrk("new --model offline/nope")
    assert out.startswith("**mewrk:** ") and "offline/echo" in out and "Traceback" not in out
    assert magics.current_session() is None
    assert mewrk("new --model").startswith("Usage: `%mewrk new")
    assert mewrk("new --colour red").startswith("Usage: `%mewrk new")


def test_send_waits_in_a_plain_shell_and_shows_the_turn_once(ip, workspace):
    from IPython.utils.capture import capture_output

    ip.run_line_magic("mewrk", "new")
    with capture_output() as captured:
        ip.run_line_magic("mewrk", "send What is 2+2?")
    assert len(captured.outputs) == 1
    shown = captured.outputs[0].data["text/markdown"]
    session = magics.current_session()
    assert kinds(session) == ["user_input", "model_reply"]
    user, reply = session.cards
    assert user.text == "What is 2+2?" and reply.complete
    assert user.id in shown and reply.id in shown and reply.text.splitlines()[0] in shown
    assert "Running" not in shown


def test_send_keeps_the_text_as_typed_but_for_its_braces(ip, mewrk):
    # Issue 17 made `{x}` interpolate (IPython's own `$x` expansion stays off, and so do comments).
    ip.user_ns["x"] = "EXPANDED"
    mewrk("new")
    mewrk("send What's {x} worth? $x # not a comment")
    mewrk('send "a quoted question"')
    texts = [c.text for c in magics.current_session().cards if c.kind == "user_input"]
    assert texts == ["What's EXPANDED worth? $x # not a comment", "a quoted question"]


def test_cell_magic_sends_the_body_and_an_empty_body_continues(mewrk):
    mewrk("new")
    body = "First line\n\n    indented `code`\n"
    out = mewrk("", body)
    session = magics.current_session()
    assert kinds(session) == ["user_input", "model_reply"]
    assert session.cards[0].text == body and "First line" in out
    mewrk("", "  \n")
    assert kinds(session) == ["user_input", "model_reply", "model_reply"]
    assert session.cards[-1].text.startswith("Continuing from the timeline")


def test_continue_and_send_without_text_add_no_user_card(mewrk):
    mewrk("new")
    mewrk("send hi")
    mewrk("continue")
    mewrk("send")
    assert kinds(magics.current_session()) == ["user_input"] + ["model_reply"] * 3
    assert len(magics.current_session().history) == 3


def test_edit_undo_redo(mewrk):
    mewrk("new")
    mewrk("send hi")
    session = magics.current_session()
    reply = session.cards[-1]
    original = reply.text
    out = mewrk(f"edit {reply.id[:6]} A better answer, isn't it?")
    assert f"`{reply.id}`" in out and "undo" in out
    assert session.card(reply.id).text == "A better answer, isn't it?" and session.card(reply.id).edited
    assert mewrk("undo").startswith("Undid: edited reply")
    assert session.card(reply.id).text == original
    assert mewrk("redo").startswith("Redid: edited reply")
    assert session.card(reply.id).text == "A better answer, isn't it?"
    mewrk("edit -2", "A new question\nover two lines")
    assert session.cards[0].text == "A new question\nover two lines"


def test_delete_several_cards_and_undo_brings_them_back(mewrk):
    mewrk("new")
    mewrk("send one")
    mewrk("send two")
    session = magics.current_session()
    first, second = session.cards[0].id, session.cards[1].id
    out = mewrk(f"delete {first} {second[:5]}")
    assert "Deleted 2 cards" in out
    assert kinds(session) == ["user_input", "model_reply"]
    mewrk("undo")
    assert [c.id for c in session.cards][:2] == [first, second]
    assert "Deleted reply `" in mewrk("delete -1")


def test_branch_and_fork_say_where_they_cut_show_the_new_timeline_and_make_it_current(mewrk):
    mewrk("new demo")
    mewrk("send hi")
    original = magics.current_session()
    reply = original.cards[-1]
    out = mewrk(f"branch {reply.id}")
    branch = magics.current_session()
    assert branch.id != original.id and branch.parent_id == original.id
    first_line = reply.text.splitlines()[0]
    assert out.startswith(
        f"Branched “demo” at the reply “{first_line}” into “demo (branch)” (id {branch.id}): "
        "2 cards, up to and including that one. `%mewrk` commands now act on it; "
        f"`%mewrk use {original.id}` goes back."
    )
    # Outside a kernel the new session's timeline follows as Markdown (in a kernel: its widget).
    assert f"### demo (branch) · `{branch.id}`" in out and f"`{reply.id}`" in out
    assert kinds(branch) == ["user_input", "model_reply"]
    assert "mewrk.Session" not in out and "mw.Session" not in out  # words, not a Python snippet

    mewrk(f"use {original.id}")
    out = mewrk("fork -1")
    fork = magics.current_session()
    assert out.startswith(f"Forked “demo” at the reply “{first_line}” into “demo (fork)” (id {fork.id}): ")
    assert "the 1 card above it." in out and f"### demo (fork) · `{fork.id}`" in out
    assert kinds(fork) == ["user_input"] and kinds(original) == ["user_input", "model_reply"]
    out = mewrk(f"fork {original.cards[0].id}")
    assert "at your message “hi”" in out and "an empty timeline, as nothing is above it." in out


def test_use_accepts_an_id_prefix_shows_the_timeline_and_sessions_lists_them(mewrk):
    mewrk("new alpha")
    alpha = magics.current_session()
    mewrk("send hello")
    mewrk("new beta")
    out = mewrk(f"use {alpha.id[:6]}")
    assert magics.current_session().id == alpha.id
    assert out.startswith(f"Switched to “alpha” (id {alpha.id}): offline/echo, 2 cards.")
    assert f"### alpha · `{alpha.id}`" in out and "hello" in out
    table = mewrk("sessions")
    assert "| id | title |" in table and "alpha" in table and "beta" in table
    assert f"Current: `{alpha.id}`" in table
    assert mewrk("use nosuchsession").startswith("**mewrk:** No session")


def test_reading_commands_show_markdown(mewrk):
    mewrk("new")
    assert "_The timeline is empty._" in mewrk("cards")
    assert "_No requests yet._" in mewrk("history")
    mewrk("send hello | world")
    session = magics.current_session()
    cards = mewrk("cards")
    assert "| # | id | kind | edited | text |" in cards and "| You |" in cards and "| Model |" in cards
    assert "user_input" not in cards and "model_reply" not in cards
    assert "hello &#124; world" in cards
    assert "**Request" in mewrk("history") and "hello | world" in mewrk("history")
    assert "Agent: main · offline/echo" in mewrk("context")
    shown = mewrk("show")
    assert session.id in shown and all(c.id in shown for c in session.cards)
    assert mewrk("stop") == "Nothing is running."


def test_engine_refusals_are_one_readable_line(mewrk):
    mewrk("new")
    for line, words in (
        ("undo", "Nothing to undo"),
        ("redo", "Nothing to redo"),
        ("edit nosuch text", "No card `nosuch`"),
        ("delete -1", "No card at position -1"),
        ("branch nosuch", "No card `nosuch`"),
    ):
        out = mewrk(line)
        assert out.startswith("**mewrk:** ") and words in out and "Traceback" not in out
        assert out.strip().count("\n") == 0


def test_a_change_while_the_model_runs_is_refused_plainly(mewrk):
    mewrk("new --model offline/slow")
    session = magics.current_session()
    run = session.send("long: 400", wait=False)
    try:
        wait_for(lambda: "model_reply" in kinds(session))
        assert "**mewrk:** The model is running" in mewrk("edit -1 changed")
        assert mewrk("send another").startswith("**mewrk:** This session is running in another window")
        assert mewrk("stop") == "Stopping the turn."
    finally:
        session.stop()
        run.wait(30)
    assert kinds(session) == ["user_input", "model_reply"] and session.cards[-1].interrupted


def test_bad_arguments_print_usage(mewrk):
    mewrk("new")
    assert mewrk("edit") == "Usage: `%mewrk edit CARD TEXT` — replace a card's text"
    assert mewrk("edit -1").startswith("Usage: `%mewrk edit CARD TEXT`")
    assert mewrk("branch").startswith("Usage: `%mewrk branch CARD`")
    assert mewrk("fork a b").startswith("Usage: `%mewrk fork CARD`")
    assert mewrk("delete").startswith("Usage: `%mewrk delete CARD [CARD…]`")
    assert mewrk("delete 'unbalanced").startswith("Usage: `%mewrk delete")
    assert mewrk("undo now").startswith("Usage: `%mewrk undo`")
    assert mewrk("cards", "a body").startswith("Usage: `%mewrk cards`")
    assert mewrk("send on the line", "and in the body").startswith("Usage: `%mewrk send [TEXT]`")
    unknown = mewrk("frobnicate")
    assert unknown.startswith("**mewrk:** unknown command `frobnicate`") and "`%mewrk send [TEXT]`" in unknown
    assert "| `%mewrk help` |" in mewrk("")
    assert kinds(magics.current_session()) == []


def test_the_dispatch_table_takes_new_commands(mewrk):
    def shout(call: commands.Call) -> commands.Result:
        return commands.Result(call.text.upper())

    commands.COMMANDS["shout"] = commands.Command(
        "shout", "TEXT", "a test command", shout, needs_session=False
    )
    try:
        assert commands.COMMANDS["shout"].shape() == (0, 0, "TEXT")
        assert commands.COMMANDS["delete"].shape() == (1, None, "")
        assert commands.COMMANDS["new"].shape() == (0, None, "")
        assert commands.COMMANDS["edit"].shape() == (1, 1, "TEXT")
        assert mewrk("shout hello there") == "HELLO THERE"
        assert "| `%mewrk shout TEXT` | a test command |" in mewrk("help")
    finally:
        del commands.COMMANDS["shout"]


def test_a_comment_after_a_command_is_not_an_argument(mewrk):
    mewrk("new --model offline/thinker   # one line: session id, model, where it is stored")
    session = magics.current_session()
    assert session.title == "untitled" and session.settings.model == "offline/thinker"
    mewrk("send what is #1?")  # free text is the person's own: a # in it stays
    assert magics.current_session().cards[0].text == "what is #1?"
