"""What a command is: its entry in the table, one call of it, and the result each surface shows its own way."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from ..engine.notebook_memory import NotebookPlace
from ..engine.session import Session
from ..errors import InvalidInput

# Where a command can be typed: `%mewrk` in a notebook cell, or `/` in the widget's composer.
Surface = Literal["notebook", "composer"]
NOTEBOOK: Surface = "notebook"
COMPOSER: Surface = "composer"
BOTH: tuple[Surface, ...] = (NOTEBOOK, COMPOSER)

# What a surface shows after a command: one of the widget's panels, or the session's timeline
# ("timeline" in a notebook: the live view in a kernel, Markdown in a terminal; "view": the live view only).
Show = Literal["context", "history", "help", "settings", "timeline", "view"]

# The last word of a synopsis that stands for free text: the rest of the line as typed.
FREE_TEXT = ("TEXT", "[TEXT]", "REASON", "[REASON]")


class UsageProblem(Exception):
    """The arguments do not fit the command; the surface answers with its usage sentence."""


def refuse(why: str) -> Any:
    """Stop a handler whose arguments do not fit (the surface shows the command's usage)."""
    raise UsageProblem(why)


def read_options(
    command: str, args: list[str], valued: Mapping[str, str], flags: tuple[str, ...] = ()
) -> tuple[dict[str, str], set[str], list[str]]:
    """A command's `--name value` (or `--name=value`) options, its flags given, and its other words;
    an option without its value (`valued` says what it needs) or an unknown one is refused."""
    options: dict[str, str] = {}
    given: set[str] = set()
    words: list[str] = []
    rest = iter(args)
    for arg in rest:
        name, equals, value = arg.partition("=")
        if name in valued:
            options[name] = (value if equals else next(rest, None)) or refuse(f"{name} needs {valued[name]}")
        elif arg in flags:
            given.add(arg)
        elif arg.startswith("--"):
            refuse(f"unknown option {arg}: `{command}` takes {', '.join([*flags, *valued])}")
        else:
            words.append(arg)
    return options, given, words


@dataclass(frozen=True)
class Call:
    """One invocation: which command, on which session (None before a notebook picked one), its arguments."""

    name: str
    session: Session | None
    args: list[str] = field(default_factory=list)
    text: str = ""
    surface: Surface = NOTEBOOK
    # The kernel's user namespace, where there is one: what `{expressions}` and `attach NAME` read.
    namespace: Mapping[str, Any] | None = None
    # The notebook and cell a `%mewrk` command ran in, where the kernel knows them (`new` reads the
    # session the cell made before).
    place: NotebookPlace | None = None

    @property
    def current(self) -> Session:
        """The session the command acts on (a surface runs a session's command only when it has one)."""
        if self.session is None:  # the surfaces check `needs_session` first; this is for the type
            raise InvalidInput("There is no current session.")
        return self.session


@dataclass(frozen=True)
class Result:
    """What a command did: a plain sentence, and the facts a surface needs to show the rest its own way."""

    message: str = ""
    markdown: str = ""  # the notebook's fuller rendering, when it says more than the sentence
    run: Any = None  # a turn the command started: the notebook follows it, the widget sticks to the end
    replay: Any = None  # a replay the command started: the notebook follows it and shows its report
    opened: Session | None = None  # a session the command made or opened
    left: Session | None = None  # the session the person was on before `opened`: the way back
    show: Show | None = None
    data: dict[str, Any] = field(default_factory=dict)  # more for a view: the cards it touched, …
    while_state: str | None = None  # the sentence stays true only while the session is in this state


Handler = Callable[[Call], Result]


@dataclass(frozen=True)
class Command:
    """One command of `%mewrk` and the composer. Its synopsis says what it takes: `[X]` is optional,
    `…` repeats, and a final `TEXT` / `REASON` (or `[TEXT]`, `[REASON]`) is free text — the rest of the
    line as typed, or the `%%mewrk` cell body."""

    name: str
    synopsis: str
    summary: str
    run: Handler
    needs_session: bool = True
    surfaces: tuple[Surface, ...] = BOTH
    needs: str = ""  # a Session method the command needs; where the session lacks it, it is not offered
    # It starts a turn: in a kernel it first waits for the turn the same process still runs (Run All).
    after_turn: bool = False
    # Where one surface takes other arguments (in the composer a card defaults to the last one).
    synopsis_on: tuple[tuple[Surface, str], ...] = ()

    def synopsis_for(self, surface: Surface) -> str:
        """The arguments as this surface takes them."""
        return dict(self.synopsis_on).get(surface, self.synopsis)

    def offered(self, surface: Surface, session: object = Session) -> bool:
        """True when `surface` offers the command and the session (or the Session class) can do it."""
        return surface in self.surfaces and (not self.needs or callable(getattr(session, self.needs, None)))

    def shape(self, surface: Surface = NOTEBOOK) -> tuple[int, int | None, str]:
        """Fewest and most arguments (None: any number), and the free text: "TEXT", "[REASON]", … or ""."""
        words = re.findall(r"\[[^\]]*\]|\S+", self.synopsis_for(surface))
        text = words.pop() if words and words[-1] in FREE_TEXT else ""
        # An option with its value (`[--model M]`) is two arguments.
        most = None if any("…" in w for w in words) else sum(len(w.split()) for w in words)
        return sum(not w.startswith("[") for w in words), most, text


def form(command: Command, surface: Surface) -> str:
    """How a person types the command on a surface: "`%mewrk edit CARD TEXT`" or "/edit CARD TEXT"."""
    synopsis = command.synopsis_for(surface)
    if surface == NOTEBOOK:
        return "`" + f"%mewrk {command.name} {synopsis}".strip() + "`"
    return f"/{command.name} {synopsis}".strip()


def summary_for(command: Command, surface: Surface) -> str:
    """The summary as the surface shows it: Markdown in a notebook, plain text in the composer."""
    return command.summary if surface == NOTEBOOK else command.summary.replace("`", "")


def usage(command: Command, surface: Surface) -> str:
    """The usage sentence of one command, the same words on both surfaces."""
    return f"Usage: {form(command, surface)} — {summary_for(command, surface)}"


def sentence(text: str) -> str:
    """An engine's phrase as a sentence: "undid: edited reply" → "Undid: edited reply."."""
    return text[:1].upper() + text[1:] + "." if text else ""
