"""When a request's history row is written (T17): once its reply has begun, so that storing it never
delays the request or the first token — yet always, with the time the request was sent, whether the
reply begins at once, slowly, or never."""

from __future__ import annotations

import time

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.engine.turns import run as turn_run
from tests.conftest import wait_for

from .three import Wire
from .wire import WireServer, disconnect_reply


def test_the_request_is_stored_with_its_send_time_right_after_the_first_card(
    wire: Wire, wire_server: WireServer
) -> None:
    s = mw.Session.new(model=wire.model)
    seen: list[tuple[str, int]] = []
    s.subscribe(
        lambda e: (
            e.kind == "card_added"
            and e.card.kind == "model_reply"
            and seen.append((e.card.id, len(s.history)))
        )
    )
    wire_server.enqueue(wire.reply("The answer."))
    before = time.time()
    s.send("A question.", wait=True)
    assert s.cards[-1].text == "The answer."
    # The reply's first card was shown before its request was stored, and the request is stored.
    assert seen == [(s.cards[-1].id, 0)]
    [entry] = s.history
    assert entry.ended_at is not None and before <= entry.started_at <= entry.ended_at
    sent = wire_server.requests[-1].json
    assert {k: v for k, v in sent.items() if k in entry.request} == entry.request
    assert entry.response is not None and entry.error is None


def test_a_reply_slow_to_begin_has_its_request_stored_within_a_heartbeat(
    wire: Wire, wire_server: WireServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(turn_run, "HEARTBEAT_EVERY", 0.1)
    s = mw.Session.new(model=wire.model)
    reply = wire.reply("At last.")
    reply.first_byte_delay = 2.0
    wire_server.enqueue(reply)
    sent_at = time.time()
    run = s.send("A question.", wait=False)
    try:
        [entry] = wait_for(lambda: s.history, timeout=1.5)
        # The reply has not begun: the request is there on its own, with the time it went out.
        assert not run.done and entry.response is None
        assert sent_at <= entry.started_at < time.time()
        assert [c.kind for c in s.cards] == ["user_input"]
    finally:
        run.wait()
    assert s.cards[-1].text == "At last."
    [entry] = s.history  # the same row, now with its response: not stored twice
    assert entry.response is not None


def test_a_request_whose_reply_never_begins_is_stored_with_the_error(
    wire: Wire, wire_server: WireServer
) -> None:
    s = mw.Session.new(model=wire.model)
    wire_server.enqueue(*[disconnect_reply() for _ in range(5)])  # the SDK's own retries too
    with pytest.raises(mw.ProviderError, match="Could not reach"):
        s.send("A question.", wait=True)
    [entry] = s.history
    assert ("user", "A question.") in wire.turns(entry.request)
    assert entry.response is not None and entry.error
