"""Slash commands of the composer (N4): the `%mewrk` commands that make sense inside one session's view.

The table lives here, kernel side, so the front end only offers completions from it and sends what
was typed; parsing and every action go through the session's own methods, as the magics do.
A command the session cannot do (no `compact()`, no pending approval API yet) is not offered.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ..cards.words import cards_of
from ..engine.navigation import copy_session
from ..errors import InvalidInput


@dataclass(frozen=True)
class SlashCommand:
    """One `/name` of the composer: its arguments, what it does, and what it needs of the session."""

    name: str
    synopsis: str
    summary: str
    run: Callable[[Any, list[str], str], tuple[str, dict[str, Any]]]
    needs: str = ""  # a Session attribute the command needs; absent there, the command is not offered

    def available(self, session: Any) -> bool:
        """True when this session can do what the command asks."""
        return not self.needs or callable(getattr(session, self.needs, None))


def card_ref(session: Any, ref: str | None) -> str:
    """A card id from an id, an id prefix or a position from the end; the last card by default."""
    return session.card(ref or "-1").id  # the session reads positions, so `-1` means the same everywhere


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "." if text else ""


def _continue(session: Any, _args: list[str], _text: str) -> tuple[str, dict[str, Any]]:
    run = session.send(None, wait=False)
    return "", {"run_id": run.id, "sent": True}


def _undo(session: Any, _args: list[str], _text: str) -> tuple[str, dict[str, Any]]:
    return _sentence(session.undo()), {}


def _redo(session: Any, _args: list[str], _text: str) -> tuple[str, dict[str, Any]]:
    return _sentence(session.redo()), {}


def _stop(session: Any, _args: list[str], _text: str) -> tuple[str, dict[str, Any]]:
    if session.stop():
        return "Stopping…", {"while_state": "running"}
    return "Nothing is running.", {}


def copy_at(session: Any, how: str, ref: str | None) -> tuple[str, dict[str, Any]]:
    """Branch or fork at a card; the answer says so and offers the view to open the new session."""
    new, sentence = copy_session(session, how, card_ref(session, ref))
    return sentence, {"session_id": new.id, "title": new.title, "offer_open": True}


def _copy(how: str) -> Callable[[Any, list[str], str], tuple[str, dict[str, Any]]]:
    def run(session: Any, args: list[str], _text: str) -> tuple[str, dict[str, Any]]:
        return copy_at(session, how, args[0] if args else None)

    return run


def _delete(session: Any, args: list[str], _text: str) -> tuple[str, dict[str, Any]]:
    gone = session.delete(*(card_ref(session, a) for a in args))
    return (f"Deleted {cards_of([c.kind for c in gone])}." if len(gone) > 1 else "Deleted."), {
        "card_ids": [c.id for c in gone]
    }


def _open(panel: str) -> Callable[[Any, list[str], str], tuple[str, dict[str, Any]]]:
    def run(_session: Any, _args: list[str], _text: str) -> tuple[str, dict[str, Any]]:
        return "", {"open": panel}

    return run


def _compact(session: Any, _args: list[str], _text: str) -> tuple[str, dict[str, Any]]:
    done = session.compact()
    return (done if isinstance(done, str) else "Compacted."), {}


def _approve(session: Any, _args: list[str], text: str) -> tuple[str, dict[str, Any]]:
    session.approve(reason=text.strip() or None, wait=False)
    return "Approved.", {}


def _reject(session: Any, _args: list[str], text: str) -> tuple[str, dict[str, Any]]:
    session.reject(reason=text.strip() or None, wait=False)
    return "Rejected.", {}


COMMANDS: dict[str, SlashCommand] = {
    c.name: c
    for c in (
        SlashCommand("continue", "", "run the model on the timeline as it stands", _continue),
        SlashCommand("undo", "", "undo this session's last change", _undo),
        SlashCommand("redo", "", "redo what was undone last", _redo),
        SlashCommand("stop", "", "stop the running turn, whichever window owns it", _stop),
        SlashCommand(
            "branch", "[CARD]", "new session with the timeline up to and including CARD", _copy("branch")
        ),
        SlashCommand("fork", "[CARD]", "new session with everything above CARD", _copy("fork")),
        SlashCommand("delete", "CARD [CARD…]", "delete cards (one undo restores them)", _delete),
        SlashCommand("compact", "", "summarise the older messages in place", _compact, needs="compact"),
        SlashCommand("approve", "[REASON]", "approve the pending tool call", _approve, needs="approve"),
        SlashCommand(
            "reject", "[REASON]", "reject the pending tool call, with a reason", _reject, needs="reject"
        ),
        SlashCommand("context", "", "how full the context window is, by card kind", _open("context")),
        SlashCommand(
            "history", "", "what was really sent and received, request by request", _open("history")
        ),
        SlashCommand("help", "", "the commands", _open("help")),
    )
}

CARD_HELP = "CARD is a card id, an id prefix or a position from the end (-1: the last card; the default)."


def offered(session: Any) -> list[dict[str, str]]:
    """The commands this session can do, for the composer's completion list and /help."""
    return [
        {"name": c.name, "synopsis": c.synopsis, "summary": c.summary}
        for c in COMMANDS.values()
        if c.available(session)
    ]


def run_command(session: Any, line: str) -> tuple[str, dict[str, Any]]:
    """Carry out one `/name args` line typed in the composer; an unknown name is a plain refusal."""
    line = line.strip()
    if not line.startswith("/"):
        raise InvalidInput("A command starts with /.")
    name, _, rest = line[1:].partition(" ")
    command = COMMANDS.get(name.strip().lower())
    if command is None or not command.available(session):
        raise InvalidInput(
            f"Unknown command /{name} — type /help to see the commands, "
            "or start with a space to send the text as a message."
        )
    free = command.synopsis.endswith("[REASON]")
    if free:
        args, text = [], rest
    else:
        try:
            args, text = shlex.split(rest), ""
        except ValueError as exc:
            raise InvalidInput(f"/{command.name}: {exc}.") from None
        fewest = sum(1 for w in command.synopsis.split() if not w.startswith("["))
        most = None if "…" in command.synopsis else len(command.synopsis.split())
        if len(args) < fewest or (most is not None and len(args) > most):
            raise InvalidInput(f"Usage: /{command.name} {command.synopsis} — {command.summary}.")
    return command.run(session, args, text)
