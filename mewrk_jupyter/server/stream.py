"""A run's events as Server-Sent Events, read from the store: the same for a run of this server, of a
kernel or of any other process, live or finished — so a client that comes back with the run id gets
every event it missed, exactly once and in order, then the live rest (R5)."""

from __future__ import annotations

import asyncio
import functools
import json
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, TypeVar

from tornado.iostream import StreamClosedError
from tornado.web import RequestHandler

from ..engine.session import Session

POLL_EVERY = 0.1  # seconds between reads of a running run's new events (the run writes them every 0.25 s)
KEEPALIVE_EVERY = 15.0  # a comment line this often, so that a dropped client is noticed
# The session calls block (the store, a stop waiting for another process): they run on threads of their
# own, so that a few slow stops neither hold the server's event loop nor starve its default executor.
WORKERS = ThreadPoolExecutor(max_workers=32, thread_name_prefix="mewrk-http")

T = TypeVar("T")


async def off_loop(fn: Callable[..., T], *args: Any, **kwargs: Any) -> T:
    """Run a blocking call on the API's threads and wait for it without blocking the event loop."""
    return await asyncio.get_running_loop().run_in_executor(WORKERS, functools.partial(fn, *args, **kwargs))


def sse(event: str, data: dict[str, Any], event_id: int | None = None) -> str:
    """One Server-Sent Event; the data is one line of JSON."""
    head = f"id: {event_id}\n" if event_id is not None else ""
    return f"{head}event: {event}\ndata: {json.dumps(data, ensure_ascii=False)}\n\n"


def start_stream(handler: RequestHandler) -> None:
    """Headers of an event stream (never cached, never buffered by a proxy)."""
    handler.set_header("Content-Type", "text/event-stream; charset=utf-8")
    handler.set_header("Cache-Control", "no-cache")
    handler.set_header("X-Accel-Buffering", "no")


async def stream_run(
    handler: RequestHandler, session: Session, run_id: str, after: int | None, gone: Callable[[], bool]
) -> None:
    """Write the run's id, its events after `after`, then `end` with how it ended; returns early, leaving
    the run to go on, when the client goes away (`gone()` says so)."""
    handler.write(sse("run", {"runId": run_id, "sessionId": session.id}))
    last = after or 0
    wrote_at = time.monotonic()
    try:
        await handler.flush()
        while not gone():
            # The run's row is read before its events: once it reads ended, every event is stored.
            info = await off_loop(session.run_info, run_id)
            events = await off_loop(session.run_events, run_id, last)
            for event in events:
                handler.write(sse(event.kind, event.data, event.seq))
                last = event.seq
            if not info.running:
                handler.write(
                    sse("end", {"runId": run_id, "state": info.state, "error": info.error, "lastEvent": last})
                )
                await handler.flush()
                return
            if events:
                await handler.flush()
                wrote_at = time.monotonic()
            elif time.monotonic() - wrote_at > KEEPALIVE_EVERY:
                handler.write(": keepalive\n\n")
                await handler.flush()
                wrote_at = time.monotonic()
            await asyncio.sleep(POLL_EVERY)
    except StreamClosedError:
        return  # the client left; the run is the server's and goes on
