"""Commands over one session's timeline: send and continue, undo and redo, stop, delete and edit, branch
and fork, and what shows the timeline, its history and its context."""

from __future__ import annotations

from ..cards.inert import inert_inline
from ..cards.models import Card
from ..cards.words import cards_of, count, label, noun
from ..engine.compaction import compacted
from ..engine.history_summary import full_markdown, previous_request, summarise
from ..engine.navigation import copy_session
from ..engine.replay.run import stop_replays
from ..engine.session import Session
from ..errors import InvalidInput
from .base import NOTEBOOK, Call, Result, sentence
from .interpolate import interpolate

STOPPING = "Stopping the turn."
NOTHING_RUNS = "Nothing is running."
STOPPED_ELSEWHERE = "Stopped the turn another window or process was running; the session is free to use here."
STOPPING_REPLAY = "Stopping the replay: it asks no more messages."


def card_id(session: Session, ref: str) -> str:
    """A card id from an id, an id prefix, or a position from the end such as `-1` (the session reads it)."""
    return session.card(ref).id


def stopped(session: Session) -> Result:
    """Stop the session's turn and say so: this process's turn still winds down (the sentence holds while
    it runs); another process's turn has ended, by itself or because this window took the session over.
    A replay this process runs of the session, or on it (its branch), stops too: it asks no more."""
    replays = stop_replays(session.id)
    run = session.last_run
    here = run is not None and not run.done
    if not session.stop():
        return Result(STOPPING_REPLAY if replays else NOTHING_RUNS)
    if replays:
        return Result(STOPPING_REPLAY)
    return Result(STOPPING, while_state="running") if here else Result(STOPPED_ELSEWHERE)


def deleted(gone: list[Card]) -> str:
    """What a delete says where the cards vanish in sight: "Deleted." or "Deleted 2 cards."."""
    return f"Deleted {cards_of([c.kind for c in gone])}." if len(gone) > 1 else "Deleted."


def send(call: Call) -> Result:
    """`send [TEXT]`: a message (no text: the model continues); in a notebook its `{expressions}` are
    interpolated from the kernel's namespace, and the card keeps what each became."""
    if call.namespace is None or not call.text.strip():
        return Result(run=call.current.send(call.text or None, wait=False))
    text, done = interpolate(call.text, call.namespace, call.current.secret_check())
    template = call.text if done or text != call.text else None
    return Result(run=call.current.send(text, wait=False, template=template, interpolated=done))


def continue_(call: Call) -> Result:
    """`continue`: run the model on the timeline as it stands."""
    return Result(run=call.current.send(None, wait=False))


def undo(call: Call) -> Result:
    """`undo`: the session's last change, undone."""
    return Result(sentence(call.current.undo()))


def redo(call: Call) -> Result:
    """`redo`: what was undone last, done again."""
    return Result(sentence(call.current.redo()))


def stop(call: Call) -> Result:
    """`stop`: the running turn, whichever window owns it."""
    return stopped(call.current)


def delete(call: Call) -> Result:
    """`delete CARD [CARD…]`: the cards go, one undo brings them back."""
    gone = call.current.delete(*(card_id(call.current, ref) for ref in call.args))
    what = f"{noun(gone[0].kind)} `{gone[0].id}`" if len(gone) == 1 else cards_of([c.kind for c in gone])
    back = f"Deleted {what} — `%mewrk undo` brings {'it' if len(gone) == 1 else 'them'} back."
    return Result(deleted(gone), markdown=back, data={"card_ids": [c.id for c in gone]})


def edit(call: Call) -> Result:
    """`edit CARD TEXT`: a card's text replaced."""
    card = call.current.edit(card_id(call.current, call.args[0]), text=call.text)
    back = f"Edited {noun(card.kind)} `{card.id}` — `%mewrk undo` brings the old text back."
    return Result(f"Edited the {noun(card.kind)}.", markdown=back, data={"card_id": card.id})


def copy(call: Call) -> Result:
    """`branch CARD` / `fork CARD`: a new session cut at a card (in the composer, the last card by default)."""
    new, said = copy_session(
        call.current, call.name, card_id(call.current, call.args[0] if call.args else "-1")
    )
    return Result(said, opened=new, left=call.current, show="timeline" if call.surface == NOTEBOOK else None)


def cards(call: Call) -> Result:
    """`cards`: the timeline as a table."""
    rows = [
        f"| {i} | `{c.id}` | {label(c.kind)} | {'✎' if c.edited else ''} | {inert_inline(c.title_line()).replace('|', '&#124;')} |"
        for i, c in enumerate(call.current.cards)
    ]
    head = ["| # | id | kind | edited | text |", "|---|---|---|---|---|"]
    return Result(markdown="\n".join(head + rows) if rows else "_The timeline is empty._")


def show(_call: Call) -> Result:
    """`show`: the whole timeline."""
    return Result(show="timeline")


def history(call: Call) -> Result:
    """`history [N]`: every request in a few lines, or request N in full, exactly as sent."""
    if not call.args:
        return Result(show="history")
    entries = call.current.history
    number = int(call.args[0]) if call.args[0].isdigit() else 0
    if not 1 <= number <= len(entries):
        held = f"it has {count(len(entries), 'request')}" if entries else "it has no requests yet"
        raise InvalidInput(f"There is no request {call.args[0]} in this session: {held}.")
    entry = entries[number - 1]
    summary = summarise(entry, previous_request(entries, number)).markdown(messages=None)
    return Result(markdown=f"{summary}\n\n{full_markdown(entry)}")


def context(_call: Call) -> Result:
    """`context`: how full the context window is."""
    return Result(show="context")


def compact(call: Call) -> Result:
    """`compact [TEXT]`: the conversation so far summarised in place, behind a divider, TEXT its
    instructions; `compact now [TEXT]`: it continues in a new session, which becomes the one commands
    act on."""
    words = call.text.split(None, 1)
    session = call.current
    if not words or words[0] != "now":
        return Result(compacted(session.compact(instructions=call.text.strip() or None)))
    handover = session.compact_now(instructions=words[1].strip() if len(words) > 1 else None)
    said = f"Handed over to the new session “{handover.title}” (`{handover.id}`); it waits for your next message."
    return Result(said, opened=handover, left=session, show="view")


def workflow(call: Call) -> Result:
    """`workflow NAME [TEXT]`: start a workflow with TEXT as its input; its card follows its steps."""
    card = call.current.workflow(call.args[0], call.text.strip())
    steps = ", ".join(f"`{step.name}`" for step in card.steps)
    said = (
        f"Started the workflow `{card.name}` in the background ({steps}); its card shows each step, and "
        "its result reaches the model before its next request."
    )
    return Result(said, data={"card_id": card.id})


def help_(_call: Call) -> Result:
    """`help`: the commands."""
    return Result(show="help")
