"""The `%mewrk` line magic and `%%mewrk` cell magic: the shared command table, shown in a notebook.

The commands, their parser and their help are the table of `mewrk_jupyter.commands`, which the
widget's composer uses too. This package keeps what only a notebook has: the current session, the
cell that follows a turn, and how a command's result looks in a cell (Markdown in a terminal, the
session's live view in a kernel). Refusals (`MewrkError`) come back as one readable line.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand
from IPython.display import display

from ..cards.inert import code_span, inert_markdown
from ..commands import COMMANDS, NOTEBOOK, Call, Result, Show, UsageProblem, parse, split_name, usage
from ..commands.settings import settings_markdown
from ..engine.notebook_memory import NotebookPlace, recall, remember
from ..engine.render import timeline_markdown
from ..engine.session import Session
from ..errors import InvalidInput, MewrkError
from .errors import record_errors
from .output import help_markdown, say
from .replay_view import ReplayView, replay_markdown
from .turn_view import TurnView, turn_markdown

__all__ = ["NO_SESSION", "STATE", "MagicState", "MewrkMagics", "current_session", "help_markdown", "register"]

WAITED_FOR_STOPPED = "Not sent: the turn it waited for was stopped. Run the cell again to send it."
NO_SESSION = "No current session — `%mewrk new` starts one, `%mewrk use ID` picks one."


@dataclass
class MagicState:
    """What the magics remember in this process: the current session and the newest turn and replay views."""

    session: Session | None = None
    turn_view: TurnView | None = None
    replay_view: ReplayView | None = None


STATE = MagicState()


def current_session() -> Session | None:
    """The session `%mewrk` commands act on, or None before `%mewrk new` / `%mewrk use`."""
    return STATE.session


def _in_kernel(shell: Any) -> bool:
    return getattr(shell, "kernel", None) is not None


def run_command(shell: Any, line: str, body: str | None = None) -> None:
    """Parse and run one `%mewrk` line (with the `%%mewrk` cell body, if any), and show what it did."""
    name, rest = split_name(line)
    name = name or ("send" if body is not None else "help")
    command = COMMANDS.get(name)
    if command is None or not command.offered(NOTEBOOK):
        say(f"**mewrk:** unknown command {code_span(name)}.\n\n{help_markdown()}")
        return
    try:
        args, text = parse(command, rest, body, NOTEBOOK)
    except UsageProblem:
        say(usage(command, NOTEBOOK))
        return
    place = notebook_place(shell)
    try:
        if command.needs_session and STATE.session is None and not reopen_last(place):
            say(f"**mewrk:** {NO_SESSION}")
            return
        if command.after_turn and _in_kernel(shell):
            after_own_turn(STATE.session)
        namespace = getattr(shell, "user_ns", None)
        result = command.run(Call(name, STATE.session, args, text, NOTEBOOK, namespace, place))
        present(shell, result)
        if place is not None and STATE.session is not None:
            # Kept in the store, not the kernel: a restarted kernel finds the notebook's (and the cell's) session.
            cell = place if result.opened is not None else NotebookPlace(place.notebook)
            remember(cell, STATE.session.id)
    except UsageProblem:
        say(usage(command, NOTEBOOK))
    except MewrkError as exc:
        say(f"**mewrk:** {inert_markdown(str(exc))}")  # it may quote a card or a server


def notebook_place(shell: Any) -> NotebookPlace | None:
    """The notebook this kernel runs for (the path the Jupyter server gives it) and the cell being run
    (the id JupyterLab sends with it); None outside a notebook's kernel."""
    kernel = getattr(shell, "kernel", None)
    notebook = (getattr(shell, "user_ns", None) or {}).get("__session__") or os.environ.get(
        "JPY_SESSION_NAME"
    )
    if kernel is None or not isinstance(notebook, str) or not notebook:
        return None
    try:
        cell = (kernel.get_parent("shell").get("metadata") or {}).get("cellId")
    except Exception:  # an older kernel without get_parent: the notebook alone is known
        cell = None
    return NotebookPlace(notebook, cell if isinstance(cell, str) and cell else None)


def reopen_last(place: NotebookPlace | None) -> bool:
    """With no current session in this kernel (it was restarted), make the session this notebook used
    last current again, and say so; False when there is none to reopen."""
    found = recall(place, cell=False) if place is not None else None
    if found is None:
        return False
    STATE.session = Session.open(found)
    say(
        f"Working with `{found}` “{inert_markdown(STATE.session.title)}” again, the session this notebook "
        "used last (this kernel had none current)."
    )
    return True


def after_own_turn(session: Session | None) -> None:
    """Wait for the turn this kernel still runs: Run All reaches the next `%mewrk send` cell while the
    one before it streams, and sends once it ended. Refused if that turn was stopped meanwhile (Ctrl+C
    here stops it, like the Stop button): the person stopped the run of cells, so this one sends nothing."""
    run = session.last_run if session is not None else None
    if run is None or run.done or run.state != "running":
        return
    run.wait()
    if run.state == "stopped":
        raise InvalidInput(WAITED_FOR_STOPPED)


def present(shell: Any, result: Result) -> None:
    """Show a command's result in the cell: a session it opened becomes current; a turn it started is
    followed in the cell (its cards say what happened); otherwise its Markdown, then what it shows."""
    if result.opened is not None:
        STATE.session = result.opened
    if result.run is not None:
        if result.markdown:  # what the command did before the turn went on (an approval's grant)
            say(result.markdown)
        follow_turn(shell, result.run)
        return
    if result.replay is not None:
        say(result.message)
        follow_replay(shell, result.replay)
        return
    # A command's sentence may quote a card's text; its Markdown is built inert by the command.
    text = result.markdown or inert_markdown(result.message)
    if result.opened is not None and result.left is not None:
        text += f" `%mewrk` commands now act on it; `%mewrk use {result.left.id}` goes back."
    if text:
        say(text)
    if result.show is not None:
        show(shell, result.show, STATE.session)


def show(shell: Any, what: Show, session: Session | None) -> None:
    """Show the help, or the session's timeline, live view, history, context or settings, in the cell."""
    if what == "help":
        say(help_markdown())
    elif session is None:
        return
    elif what == "timeline" and _in_kernel(shell):
        display(session)  # the live view, with the Markdown timeline for front ends without widgets
    elif what == "timeline":
        say(timeline_markdown(session))
    elif what == "view" and _in_kernel(shell):
        display(session.widget())
    elif what == "history":
        say(session.history._repr_markdown_())
    elif what == "context":
        say(session.context._repr_markdown_())
    elif what == "settings" and _in_kernel(shell):
        view = session.widget()
        view.panel = "settings"  # the live view, with its settings panel open
        display(view)
    elif what == "settings":
        say(settings_markdown(session))


def follow_turn(shell: Any, run: Any) -> None:
    """Show a turn in this cell: live in a kernel, or once it ended in a terminal."""
    if _in_kernel(shell):
        STATE.turn_view = TurnView(run)
        return
    run.wait()
    say(turn_markdown(run))


def follow_replay(shell: Any, replay: Any) -> None:
    """Show a replay in this cell: live in a kernel, turn by turn, or its report once it ended in a terminal."""
    if _in_kernel(shell):
        STATE.replay_view = ReplayView(replay)
        return
    replay.wait()
    say(replay_markdown(replay))


@magics_class
class MewrkMagics(Magics):
    """`%mewrk COMMAND …` and `%%mewrk` (sends the cell body)."""

    @no_var_expand  # `$y` stays text; `{x}` is interpolated by the send command, which records it
    @line_cell_magic
    def mewrk(self, line: str, cell: str | None = None) -> None:
        """Run a `%mewrk` command; `%%mewrk` sends the cell body and an empty body continues."""
        run_command(self.shell, line, cell)


def register(ipython: Any) -> None:
    """Register `%mewrk` and `%%mewrk` in an IPython shell (called by `%load_ext mewrk_jupyter`), and
    start recording each cell's error as `Err[N]`, for `{Err[N]}` in a message."""
    ipython.register_magics(MewrkMagics)
    record_errors(ipython)
