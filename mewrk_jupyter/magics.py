"""The `%mewrk` line magic and `%%mewrk` cell magic (N1): thin commands over the session's methods.

Each subcommand is one entry of `COMMANDS`, added with the `@command` decorator; the magic parses
the line with shlex, finds the entry and calls it. Nothing here holds a rule of its own: every
change goes through `Session`, and refusals (`MewrkError`) come back as one readable line.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from IPython.core.magic import Magics, line_cell_magic, magics_class, no_var_expand
from IPython.display import display

from .cards.words import cards_of, label, noun
from .engine.history_summary import full_markdown, plural, previous_request, summarise
from .engine.navigation import copy_session, switched_sentence
from .engine.render import timeline_markdown
from .engine.session import Session, list_sessions
from .errors import MewrkError
from .turn_view import TurnView, markdown_bundle, turn_markdown

NO_SESSION = "No current session — `%mewrk new` starts one, `%mewrk use ID` picks one."
CARD_HELP = "CARD is a card id, an unambiguous id prefix, or a position from the end (`-1`: the last card)."


class UsageProblem(Exception):
    """The arguments do not fit the command; the magic answers with its usage line."""


def _refuse(why: str) -> Any:
    raise UsageProblem(why)


@dataclass
class MagicState:
    """What the magics remember in this process: the current session and the newest turn view."""

    session: Session | None = None
    turn_view: TurnView | None = None


STATE = MagicState()


def current_session() -> Session | None:
    """The session `%mewrk` commands act on, or None before `%mewrk new` / `%mewrk use`."""
    return STATE.session


@dataclass(frozen=True)
class Call:
    """One invocation: the shell, the current session, the shlex-split arguments and the free text."""

    name: str
    shell: Any
    session: Session
    args: list[str]
    text: str = ""


@dataclass(frozen=True)
class Command:
    """A `%mewrk` subcommand. Its synopsis says what it takes: `[X]` is optional, `…` repeats, and a
    final `TEXT` / `[TEXT]` is free text — the rest of the line as typed, or the `%%mewrk` cell body."""

    run: Callable[[Call], None]
    synopsis: str
    summary: str
    needs_session: bool = True

    def shape(self) -> tuple[int, int | None, str]:
        """Fewest and most arguments (None: any number), and the free text: "TEXT", "[TEXT]" or ""."""
        words = re.findall(r"\[[^\]]*\]|\S+", self.synopsis)
        text = words.pop() if words and words[-1] in ("TEXT", "[TEXT]") else ""
        most = None if any("…" in w for w in words) else len(words)
        return sum(not w.startswith("[") for w in words), most, text


COMMANDS: dict[str, Command] = {}


def command(name: str, synopsis: str, summary: str, needs_session: bool = True) -> Callable:
    """Add a handler to the dispatch table under `name` (stacked decorators register bottom-up)."""

    def register_handler(handler: Callable[[Call], None]) -> Callable[[Call], None]:
        COMMANDS[name] = Command(handler, synopsis, summary, needs_session)
        return handler

    return register_handler


# ---- output --------------------------------------------------------------------------------------


def say(markdown: str) -> None:
    """Show Markdown in the cell's output (its plain text in a terminal)."""
    display(markdown_bundle(markdown), raw=True)


def _form(name: str) -> str:
    return "`" + f"%mewrk {name} {COMMANDS[name].synopsis}".strip() + "`"


def usage(name: str) -> str:
    """The usage line of one command."""
    return f"Usage: {_form(name)} — {COMMANDS[name].summary}"


def help_markdown() -> str:
    """Every command in a table."""
    rows = [f"| {_form(name)} | {cmd.summary} |" for name, cmd in COMMANDS.items()]
    rows.append("| `%%mewrk` + cell body | send the body (an empty body continues) |")
    return "\n".join(["| command | what it does |", "|---|---|", *rows, "", CARD_HELP])


# ---- parsing -------------------------------------------------------------------------------------


def _unquote(text: str) -> str:
    """Free text as typed; one quoted string loses its quotes."""
    text = text.strip()
    if len(text) > 1 and text[0] == text[-1] and text[0] in "'\"":
        try:
            words = shlex.split(text)
        except ValueError:
            return text
        if len(words) == 1:
            return words[0]
    return text


def parse(cmd: Command, rest: str, body: str | None) -> tuple[list[str], str]:
    """Split a command line into arguments (shlex) and free text; raise UsageProblem if it does not fit."""
    fewest, most, free = cmd.shape()
    text = ""
    try:
        if not free:
            if body is not None and body.strip():
                raise UsageProblem("this command takes no cell body")
            args = shlex.split(rest, comments=True)  # `%mewrk new  # a note` as in Python
        else:
            # shlex reads the leading arguments; the rest stays verbatim: "What's up" is not a shell line.
            lexer = shlex.shlex(rest, posix=True)
            lexer.whitespace_split, lexer.commenters = True, ""
            args = [t for t in (lexer.get_token() for _ in range(most or 0)) if t is not None]
            remainder = lexer.instream.read()
            if body is not None and remainder.strip():
                raise UsageProblem("give the text on the line or in the cell body, not both")
            text = body if body is not None else _unquote(remainder)
    except ValueError as exc:  # shlex: unbalanced quotes
        raise UsageProblem(str(exc)) from None
    if len(args) < fewest or (most is not None and len(args) > most) or (free == "TEXT" and not text.strip()):
        raise UsageProblem("wrong arguments")
    return args, text


def card_id(session: Session, ref: str) -> str:
    """A card id from an id, an id prefix, or a position from the end such as `-1` (the session reads it)."""
    return session.card(ref).id


# ---- the magic -----------------------------------------------------------------------------------


def _in_kernel(shell: Any) -> bool:
    return getattr(shell, "kernel", None) is not None


def run_command(shell: Any, line: str, body: str | None = None) -> None:
    """Parse and run one `%mewrk` line (with the `%%mewrk` cell body, if any)."""
    name, rest = (line.split(None, 1) + ["", ""])[:2]
    name = name or ("send" if body is not None else "help")
    cmd = COMMANDS.get(name)
    if cmd is None:
        say(f"**mewrk:** unknown command `{name}`.\n\n{help_markdown()}")
        return
    try:
        args, text = parse(cmd, rest, body)
    except UsageProblem:
        say(usage(name))
        return
    if cmd.needs_session and STATE.session is None:
        say(f"**mewrk:** {NO_SESSION}")
        return
    try:
        cmd.run(Call(name, shell, STATE.session, args, text))  # type: ignore[arg-type]
    except UsageProblem:
        say(usage(name))
    except MewrkError as exc:
        say(f"**mewrk:** {exc}")


@magics_class
class MewrkMagics(Magics):
    """`%mewrk COMMAND …` and `%%mewrk` (sends the cell body)."""

    @no_var_expand  # a message is sent as typed: `{x}` and `$y` stay text
    @line_cell_magic
    def mewrk(self, line: str, cell: str | None = None) -> None:
        """Run a `%mewrk` command; `%%mewrk` sends the cell body and an empty body continues."""
        run_command(self.shell, line, cell)


def register(ipython: Any) -> None:
    """Register `%mewrk` and `%%mewrk` in an IPython shell (called by `%load_ext mewrk_jupyter`)."""
    ipython.register_magics(MewrkMagics)


# ---- commands ------------------------------------------------------------------------------------


@command("new", "[--model vendor/model] [TITLE…]", "start a session here and make it current", False)
def _new(call: Call) -> None:
    model, words, args = None, [], iter(call.args)
    for arg in args:
        if arg == "--model":
            model = next(args, None) or _refuse("--model needs vendor/model")
        elif arg.startswith("--model="):
            model = arg.removeprefix("--model=")
        elif arg.startswith("--"):
            _refuse(f"unknown option {arg}")
        else:
            words.append(arg)
    session = STATE.session = Session.new(model=model, title=" ".join(words) or None)
    say(f"New session `{session.id}` · `{session.settings.model}` · stored in `{session.workspace.db_path}`")
    if hasattr(session, "widget") and _in_kernel(call.shell):
        display(session.widget())


@command("use", "ID", "make a session current and show it (an id prefix is enough)", False)
def _use(call: Call) -> None:
    session = STATE.session = Session.open(call.args[0])
    say(switched_sentence(session))
    show_timeline(call, session)


def show_timeline(call: Call, session: Session) -> None:
    """The session's live widget in a kernel; its timeline as Markdown in a terminal."""
    if _in_kernel(call.shell):
        display(session)  # the widget, with the Markdown timeline for front ends without widgets
    else:
        say(timeline_markdown(session))


@command("sessions", "", "list the sessions of this workspace", False)
def _sessions(call: Call) -> None:
    current = f"\n\nCurrent: `{STATE.session.id}`" if STATE.session is not None else ""
    say(list_sessions()._repr_markdown_() + current)


@command("continue", "", "run the model on the timeline as it stands")
@command("send", "[TEXT]", "send a message (no text: continue)")
def _send(call: Call) -> None:
    follow_turn(call, call.session.send(call.text if call.name == "send" else None, wait=False))


def follow_turn(call: Call, run: Any) -> None:
    """Show a turn in this cell: live in a kernel, or once it ended in a terminal."""
    if _in_kernel(call.shell):
        STATE.turn_view = TurnView(run)
        return
    run.wait()
    say(turn_markdown(run))


@command("fork", "CARD", "new session with everything above CARD; it becomes current")
@command("branch", "CARD", "new session with the timeline up to and including CARD; it becomes current")
def _copy(call: Call) -> None:
    new, sentence = copy_session(call.session, call.name, call.args[0])
    STATE.session = new
    say(f"{sentence} `%mewrk` commands now act on it; `%mewrk use {call.session.id}` goes back.")
    show_timeline(call, new)


@command("redo", "", "redo what was undone last")
@command("undo", "", "undo this session's last change")
def _undo_redo(call: Call) -> None:
    done = call.session.undo() if call.name == "undo" else call.session.redo()
    say(done[:1].upper() + done[1:] + ".")


@command("cards", "", "the timeline as a table of cards")
def _cards(call: Call) -> None:
    rows = [
        f"| {i} | `{c.id}` | {label(c.kind)} | {'✎' if c.edited else ''} | {c.title_line().replace('|', '&#124;')} |"
        for i, c in enumerate(call.session.cards)
    ]
    head = ["| # | id | kind | edited | text |", "|---|---|---|---|---|"]
    say("\n".join(head + rows) if rows else "_The timeline is empty._")


@command("show", "", "the whole timeline (in a notebook: the session's live view)")
def _show(call: Call) -> None:
    if _in_kernel(call.shell):
        display(call.session)  # the session's own rich display, which stays in step with every view
    else:
        say(timeline_markdown(call.session))


@command("history", "[N]", "each request in a few lines; with N, request N in full, exactly as sent")
def _history(call: Call) -> None:
    history = call.session.history
    if not call.args:
        say(history._repr_markdown_())
        return
    number = int(call.args[0]) if call.args[0].isdigit() else 0
    if not 1 <= number <= len(history):
        held = f"it has {plural(len(history), 'request')}" if history else "it has no requests yet"
        say(f"**mewrk:** There is no request {call.args[0]} in this session: {held}.")
        return
    entry = history[number - 1]
    summary = summarise(entry, previous_request(history, number)).markdown(messages=None)
    say(f"{summary}\n\n{full_markdown(entry)}")


@command("context", "", "how full the context window is, by card kind")
def _report(call: Call) -> None:
    say(call.session.context._repr_markdown_())


@command("stop", "", "stop the running turn, whichever window owns it")
def _stop(call: Call) -> None:
    say("Stopping the turn." if call.session.stop() else "Nothing is running.")


@command("delete", "CARD [CARD…]", "delete cards (one undo restores them)")
def _delete(call: Call) -> None:
    removed = call.session.delete(*(card_id(call.session, ref) for ref in call.args))
    kinds = [card.kind for card in removed]
    what = f"{noun(kinds[0])} `{removed[0].id}`" if len(removed) == 1 else cards_of(kinds)
    say(f"Deleted {what} — `%mewrk undo` brings {'it' if len(removed) == 1 else 'them'} back.")


@command("edit", "CARD TEXT", "replace a card's text")
def _edit(call: Call) -> None:
    card = call.session.edit(card_id(call.session, call.args[0]), text=call.text)
    say(f"Edited {noun(card.kind)} `{card.id}` — `%mewrk undo` brings the old text back.")


from . import magic_tools  # noqa: E402, F401  (approve, reject, tools, tool, rerun)


@command("help", "", "this table", False)
def _help(call: Call) -> None:
    say(help_markdown())
