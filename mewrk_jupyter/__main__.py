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


def store(args: argparse.Namespace) -> int:
    """Copy a workspace's store into another (`store copy SRC DST`): progress on stderr, the summary on
    stdout; a sentence and exit status 1 when it cannot, with nothing written."""
    from .errors import StoreError
    from .store.copy import Progress, copy_store, plan_copy

    progress = Progress(sys.stderr)
    plan = None
    try:
        plan = plan_copy(args.source, args.target, args.workspace)
        progress.say(plan.heading())
        summary = copy_store(plan, progress)
    except StoreError as exc:
        progress.say(str(exc))
        return 1
    except KeyboardInterrupt:
        where = plan.target if plan is not None else "the target"
        progress.say(f"The copy was interrupted, so nothing was written to {where}: run it again.")
        return 130
    print(summary.line())
    return 0


def store_arguments(command: argparse.ArgumentParser) -> None:
    """`store copy SRC DST [--workspace NAME]`."""
    actions = command.add_subparsers(dest="action", metavar="ACTION", title="actions", required=True)
    summary = (
        "copy every session, card, history row, run, approval, task and grant of a store into another "
        "(SQLite into PostgreSQL, or back); a second run copies nothing new, and a target that holds other "
        "data is refused with nothing written"
    )
    copy = actions.add_parser(
        "copy", help="copy a store into another", description=summary[:1].upper() + summary[1:] + "."
    )
    side = "a workspace folder (its .mewrk/mewrk.db), an SQLite .db file, or a postgresql:// URL"
    copy.add_argument("source", metavar="SRC", help=f"the store to copy: {side}")
    copy.add_argument(
        "target", metavar="DST", help=f"the store to copy into: {side} (a new .db file is made)"
    )
    copy.add_argument(
        "--workspace",
        metavar="NAME",
        help="the workspace's name in PostgreSQL (default: MEWRK_WORKSPACE, else the workspace folder's name, "
        "else the current folder's)",
    )


# Each command: its name, one line of help, what runs it, and what adds its own arguments (if any).
COMMANDS: dict[
    str, tuple[str, Callable[[argparse.Namespace], int], Callable[[argparse.ArgumentParser], None] | None]
] = {
    "demo": (
        "send, edit a card and send again on the offline model, in this folder (the default)",
        demo,
        None,
    ),
    "store": ("copy a workspace's sessions between stores: store copy SRC DST", store, store_arguments),
}


def parser() -> argparse.ArgumentParser:
    """The command line: one subcommand per entry of COMMANDS."""
    top = argparse.ArgumentParser(
        prog="python -m mewrk_jupyter",
        description="mewrk_jupyter's commands. With no command, the demo runs.",
    )
    commands = top.add_subparsers(dest="command", metavar="COMMAND", title="commands")
    for name, (summary, _run, arguments) in COMMANDS.items():
        command = commands.add_parser(name, help=summary, description=summary[:1].upper() + summary[1:] + ".")
        if arguments is not None:
            arguments(command)
    return top


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command `argv` names (the demo when it names none); its exit status."""
    # argparse says what is wrong and the usage on stderr, and exits 2, for an unknown command or option.
    args = parser().parse_args(sys.argv[1:] if argv is None else argv)
    _summary, run, _arguments = COMMANDS[args.command or "demo"]
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
