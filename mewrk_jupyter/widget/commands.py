"""The composer's slash commands: the shared command table (`mewrk_jupyter.commands`), as the widget shows it.

The front end only offers completions from `offered()` and sends what was typed; the table's parser
reads it and its handler calls the session. Here a result becomes the widget's answer: a sentence
for the notice, a panel to open, the offer to open a new session, the run to follow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ..commands import (
    COMMANDS,
    COMPOSER,
    Call,
    Result,
    UsageProblem,
    listed,
    parse,
    split_name,
    summary_for,
    usage,
)
from ..errors import InvalidInput
from .answers import Answer
from .protocol import ResultData

if TYPE_CHECKING:
    from ..engine.session import Session


def offered(session: Session) -> list[dict[str, str]]:
    """The commands this session can do, for the composer's completion list and /help."""
    return [
        {"name": c.name, "synopsis": c.synopsis_for(COMPOSER), "summary": summary_for(c, COMPOSER)}
        for c in listed(COMPOSER, session)
    ]


def answer(result: Result) -> Answer:
    """A command's result as the widget's answer: the notice's sentence and the data the view acts on."""
    # A command's own data (the cards it touched, whether the folder is trusted now) is read by the
    # view as ResultData, which lets a command add more.
    data = cast(ResultData, dict(result.data))
    if result.run is not None:
        data["run_id"], data["sent"] = result.run.id, True  # the view follows the turn at the list's end
    if result.opened is not None:
        data["session_id"], data["title"], data["offer_open"] = result.opened.id, result.opened.title, True
    if result.show is not None:
        data["open"] = result.show
    return Answer(result.message, data, result.while_state)


def user_namespace() -> dict[str, Any] | None:
    """The kernel's user namespace, which `/attach` reads; None outside IPython."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    return None if shell is None else shell.user_ns


def run_command(session: Session, line: str) -> Answer:
    """Carry out one `/name args` line typed in the composer; an unknown name is a plain refusal."""
    line = line.strip()
    if not line.startswith("/"):
        raise InvalidInput("A command starts with /.")
    name, rest = split_name(line[1:])
    command = COMMANDS.get(name)
    if command is None or not command.offered(COMPOSER, session):
        raise InvalidInput(
            f"Unknown command /{name} — type /help to see the commands, "
            "or start with a space to send the text as a message."
        )
    try:
        args, text = parse(command, rest, None, COMPOSER)
        return answer(command.run(Call(command.name, session, args, text, COMPOSER, user_namespace())))
    except UsageProblem:
        raise InvalidInput(usage(command, COMPOSER)) from None
