"""`python -m mewrk_jupyter`: a short demo on the offline model — send, edit a card, send again."""

from __future__ import annotations

import mewrk_jupyter as mw
from mewrk_jupyter.cards.words import label


def _show_cards(s: mw.Session) -> None:
    for card in s.cards:
        mark = " (edited)" if card.edited else ""
        print(f"  {label(card.kind):<14} {card.id}{mark}: {card.title_line()}")


def main() -> None:
    """Run the demo in the current directory's workspace and print the timeline and the history."""
    s = mw.Session.new(title="demo")
    print(f"Session {s.id} · model {s.settings.model} · stored in {s.workspace.db_path}\n")

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


if __name__ == "__main__":
    main()
