"""`replay`: the session's messages asked again of another model or agent, on a branch, each turn compared
with the recording's (#38); and the replays this process started, by their branch's id, which Stop and
the HTTP API follow again."""

from __future__ import annotations

import threading
from typing import cast

from ..cards.words import count
from ..engine.replay.run import Replay
from ..engine.session import Session
from .base import COMPOSER, Call, Result, read_options, refuse

# The options of `replay`, each with what it needs after it.
REPLAY_OPTIONS = {
    "--model": "vendor/model",
    "--agent": "the name of an agent file of .mewrk/agents/",
    "--upto": "a number of messages or a card",
}
KEEP_ENDED = 20  # ended replays kept for a client that comes back for the report; the oldest go first

_replays: dict[str, Replay] = {}  # by the branch's id, oldest first
_lock = threading.Lock()


def start(
    session: Session,
    model: str | None = None,
    agent: str | None = None,
    upto: str | int | None = None,
    tools: str = "recorded",
) -> Replay:
    """Start a replay of the session and keep it, so that `replay_of` finds it (Stop is the session's)."""
    replay = session.replay(model, agent=agent, upto=upto, tools=tools)
    with _lock:
        _replays[replay.branch.id] = replay
        ended = [branch for branch, r in _replays.items() if r.done and r is not replay]
        for branch in ended[: max(0, len(ended) - KEEP_ENDED)]:
            del _replays[branch]
    return replay


def replay_of(branch_id: str) -> Replay | None:
    """The replay this process started on that branch, running or ended (the last few), if any."""
    with _lock:
        return _replays.get(branch_id)


def replay(call: Call) -> Result:
    """`replay [--model M] [--agent A] [--upto N/CARD] [--live]`: start a replay of the current session;
    a notebook follows it in the cell and ends with the report, the composer offers to open the branch."""
    options, flags, words = read_options("replay", call.args, REPLAY_OPTIONS, ("--live",))
    if words:
        refuse(f"`replay` takes options only, not {words[0]}")
    live = "--live" in flags
    session = call.current
    given = options.get("--upto")
    upto: str | int | None = None
    if given is not None:
        # A number of messages, or a card as any command names one (an id prefix, `-1`).
        upto = int(given) if given.isdigit() else session.card(given).id
    made = start(
        session, options.get("--model"), options.get("--agent"), upto, "live" if live else "recorded"
    )
    branch = made.branch.id
    asked = f"Replaying {count(made.messages, 'message')} on `{made.model}` with {made.tools} tools, in the branch `{branch}`"
    if call.surface == COMPOSER:
        said = f"{asked}; open it to follow the replay, and Stop there stops it.".replace("`", "")
        return Result(said, opened=cast(Session, made.branch))  # opened by Session.open
    said = f"{asked}: `%mewrk use {branch}` opens it; `%mewrk stop` stops the replay."
    return Result(said, replay=made)
