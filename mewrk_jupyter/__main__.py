"""`python -m mewrk_jupyter [COMMAND]`: the package's commands; with none, a short demo on the offline model."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence

import mewrk_jupyter as mw
from mewrk_jupyter.cards.words import label


def _show_cards(s: mw.Session) -> None:
    for card in s.cards:
        mark = " (edited)" if card.edited else ""
        print(f"  {label(card.kind):<14} {card.id}{mark}: {card.title_line()}")


def demo(_args: argparse.Namespace) -> int:
    """Run the demo in the current directory's workspace and print the timeline and the history."""
    s = mw.Session.new(title="demo")
    print(f"Session {s.id} · model {s.settings.model} · stored in {s.workspace.store}\n")

    s.send("What is the timeline in mewrk_jupyter?")
    print("After the first send:")
    _show_cards(s)

    reply = s.cards[-1]
    s.edit(reply.id, text="The timeline is the context: every card can be edited before the model reads it.")
    print(f"\nEdited the reply {reply.id}. Continuing with an empty send (the model reads the edit):")
    s.send()
    _show_cards(s)

    print(f"\n{s.context.line()}\n")
    print(f"History — {len(s.history)} requests, each in short:\n")
    print(s.history)
    print(f"\nReopen it later with: mw.Session.open({s.id!r})")
    return 0


# Each command: its name, one line of help, and what runs it.
COMMANDS: dict[str, tuple[str, Callable[[argparse.Namespace], int]]] = {
    "demo": ("send, edit a card and send again on the offline model, in this folder (the default)", demo),
}


def parser() -> argparse.ArgumentParser:
    """The command line: one subcommand per entry of COMMANDS."""
    top = argparse.ArgumentParser(
        prog="python -m mewrk_jupyter",
        description="mewrk_jupyter's commands. With no command, the demo runs.",
    )
    commands = top.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, (summary, _run) in COMMANDS.items():
        commands.add_parser(name, help=summary, description=summary[:1].upper() + summary[1:] + ".")
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command `argv` names (the demo when it names none); its exit status."""
    # argparse says what is wrong and the usage on stderr, and exits 2, for an unknown command or option.
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    _summary, run = COMMANDS[args.command or "demo"]
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
