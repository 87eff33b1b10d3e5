"""A replay as Server-Sent Events, as a run is streamed: the branch first, then each turn's comparison as it
is made (numbered from 1, the turn's number), then `end` with how it ended and the report. A replay lives
in the process that started it, so a client that drops comes back to this server with the branch's id
(and the last turn it read) for the turns it missed, then the live rest."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Any

from tornado.iostream import StreamClosedError
from tornado.web import RequestHandler

from ..engine.replay.compare import ReplayTurn, SideFigures
from ..engine.replay.run import Replay
from .stream import KEEPALIVE_EVERY, off_loop, sse

LOOK_EVERY = 1.0  # seconds between looks at whether the client left, while no turn ends


def side_body(side: SideFigures) -> dict[str, Any]:
    """One side of a turn as the API shows it: what it said, called and spent."""
    return {
        "model": side.model,
        "text": side.text,
        "tools": [asdict(tool) for tool in side.tools],
        "usage": side.usage,
        "tokens": side.tokens,
        "cost": side.cost,
        "latency": side.latency,
        "cardIds": side.card_ids,
    }


def turn_body(turn: ReplayTurn) -> dict[str, Any]:
    """One turn's comparison as the API shows it: the verdicts, the unified diffs and both sides."""
    return {
        "number": turn.number,
        "message": turn.message,
        "sameText": turn.same_text,
        "sameTools": turn.same_tools,
        "diff": turn.diff,
        "toolsDiff": turn.tools_diff,
        "recorded": side_body(turn.recorded),
        "replayed": side_body(turn.replayed),
    }


def head_body(replay: Replay) -> dict[str, Any]:
    """What the stream says first: the branch, both models, the tools and how many messages it asks."""
    return {
        "branchId": replay.branch.id,
        "sessionId": replay.source.id,
        "model": replay.model,
        "recordedModel": replay.recorded_model,
        "tools": replay.tools,
        "messages": replay.messages,
    }


async def stream_replay(
    handler: RequestHandler, replay: Replay, after: int, gone: Callable[[], bool]
) -> None:
    """Write the replay's head, its turns after the turn `after`, then `end` with its state, error and
    report; returns early, leaving the replay to go on, when the client goes away (`gone()` says so)."""
    loop = asyncio.get_running_loop()
    heard: asyncio.Queue[ReplayTurn | None] = asyncio.Queue()
    handler.write(sse("replay", head_body(replay)))
    last = 0
    wrote_at = time.monotonic()
    try:
        await handler.flush()
        # The replay's thread tells each turn (those made already first, at once) and then None.
        await off_loop(replay.follow, lambda turn: loop.call_soon_threadsafe(heard.put_nowait, turn))
        while not gone():
            try:
                turn = await asyncio.wait_for(heard.get(), LOOK_EVERY)
            except TimeoutError:
                if time.monotonic() - wrote_at > KEEPALIVE_EVERY:
                    handler.write(": keepalive\n\n")
                    await handler.flush()
                    wrote_at = time.monotonic()
                continue
            if turn is None:
                report = await off_loop(replay.report)
                end = {"branchId": replay.branch.id, "state": replay.state, "error": replay.error}
                handler.write(sse("end", {**end, "report": report, "lastEvent": last}))
                await handler.flush()
                return
            last = turn.number
            if turn.number > after:
                handler.write(sse("turn", turn_body(turn), turn.number))
                await handler.flush()
                wrote_at = time.monotonic()
    except StreamClosedError:
        return  # the client left; the replay is the server's and goes on
