"""`%mewrk history`: this session's requests numbered from 1, a few lines each; `%mewrk history N` in full."""

from __future__ import annotations

import json

from mewrk_jupyter import magics


def test_history_numbers_this_sessions_requests_and_stays_short(mewrk):
    mewrk("new")
    mewrk("send a request of an earlier session")
    mewrk("new")
    for text in ("first", "second", "third"):
        mewrk(f"send {text}")
    out = mewrk("history")
    assert [f"**Request {n}**" in out for n in (1, 2, 3, 4)] == [True, True, True, False]
    assert len(out.splitlines()) < 90  # 3 requests in a few lines each, not hundreds
    assert "input_schema" not in out and "tools: ls, read, grep" in out
    assert "Since request 2: added Model “You said: “second”…” and You “third”." in out
    assert "`%mewrk history N` shows request N in full" in out


def test_history_n_shows_one_request_in_full_with_what_changed(mewrk):
    mewrk("new")
    mewrk("send first")
    session = magics.current_session()
    mewrk(f"edit {session.cards[0].id} first, edited")
    mewrk("send second")
    out = mewrk("history 2")
    assert out.startswith("**Request 2**")
    assert "Since request 1: edited You “first” → “first, edited”" in out
    assert "```json" in out and json.dumps(session.history[1].request, indent=2, ensure_ascii=False) in out
    assert '"stop": "end_turn"' in out  # the response too


def test_history_n_out_of_range_says_what_there_is(mewrk):
    mewrk("new")
    assert mewrk("history 1") == "**mewrk:** There is no request 1 in this session: it has no requests yet."
    mewrk("send hello")
    assert mewrk("history 3") == "**mewrk:** There is no request 3 in this session: it has 1 request."
    assert mewrk("history two") == "**mewrk:** There is no request two in this session: it has 1 request."
    assert mewrk("history 1 2").startswith("Usage: `%mewrk history [N]`")
