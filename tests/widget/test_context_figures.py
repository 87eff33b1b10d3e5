"""The context figures a view receives, kernel side: the last request's size (the vendor's count, or the
engine's estimate of a request stopped before the vendor counted it) and the next request's (an
estimate), each with ≈, before and after a reply and after a stopped turn."""

from __future__ import annotations

import time
from typing import Any

import mewrk_jupyter as mw

from .recording import RecordingWidget


def _until(condition: Any, what: str, bound: float = 60.0) -> None:
    deadline = time.monotonic() + bound
    while not condition():
        assert time.monotonic() < deadline, f"waited too long for {what}"
        time.sleep(0.05)


def _idle_context(w: RecordingWidget, after: int) -> dict[str, Any]:
    """The figures sent when the turn that started after message `after` ended."""
    _until(lambda: any(m["type"] == "state" and m["state"] == "idle" for m in w.sent[after:]), "the turn end")
    ended = next(
        i for i, m in enumerate(w.sent) if i >= after and m["type"] == "state" and m["state"] == "idle"
    )
    _until(lambda: any(m["type"] == "context" for m in w.sent[ended:]), "the figures")
    return next(m for m in w.sent[ended:] if m["type"] == "context")


def _stopped_turn(s: mw.Session) -> tuple[RecordingWidget, dict[str, Any]]:
    """A view of `s` that sends a long story and stops it at its first words; the figures after it."""
    w = RecordingWidget(s)
    w.hello()
    mark = len(w.sent)
    assert w.do("send", text="Tell me a long story.\nlong: 2000")["ok"]
    _until(lambda: any(m["type"] == "text_delta" for m in w.sent[mark:]), "the first words")
    assert w.do("stop")["ok"]
    return w, _idle_context(w, mark)


def test_before_and_after_a_reply_the_view_gets_both_sizes_and_which_is_which(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    s = mw.Session.new(workspace=tmp_path)
    w = RecordingWidget(s)
    before = w.hello()["context"]
    assert before["line"] == "Agent: main · offline/echo · Reasoning: off · Context: ≈0 / 32k (0 %)"
    assert before["last_request"] is None and before["last_text"] is None
    assert before["sizes"] == [
        "Next request: ≈0 of 32k (0 %) — an estimate: the timeline as it stands.",
        "Last request: none sent yet.",
    ]

    mark = len(w.sent)
    assert w.do("send", text="long: 200")["ok"]
    after = _idle_context(w, mark)
    sent = s.history[-1].response["usage"]["input_tokens"]
    assert after["last_request"] == sent and after["last_text"] == f"≈{sent}"  # the vendor's count
    assert after["used"] == sent and after["used_text"] == f"≈{sent}"  # the figure is the last request's
    assert after["last_words"] == "last request" and not after["estimated"]
    nxt = after["next_request"]
    assert nxt > sent and after["next_text"] == f"≈{nxt}"  # the next one carries the 200-token reply too
    assert after["by_kind"]["model_reply"] >= 200
    assert after["line"] == s.context.line()
    share = f"{100 * sent / 32_000:.0f} %"
    assert after["line"].endswith(f"Context: last request ≈{sent} / 32k ({share}) · next ≈{nxt}")
    assert after["sizes"][1] == (
        f"Last request: ≈{sent} tokens of 32k ({share}) — the vendor's own count of what was sent."
    )
    assert after["sizes"][0].startswith(f"Next request: ≈{nxt} of 32k (1 %) — an estimate")
    w.close()


def test_after_a_stopped_turn_the_figure_is_the_stopped_requests_estimate(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    s = mw.Session.new(model="offline/slow", workspace=tmp_path)
    s.send("hello")
    before = s.context.last_request
    w, ctx = _stopped_turn(s)
    assert s.last_run.state == "stopped" and s.history[-1].response["usage"] is None
    # The stopped request never got the vendor's count: the figure is its estimate, and says so.
    assert ctx["last_request"] == ctx["used"] > before and ctx["estimated"]
    assert ctx["last_words"] == "last request (stopped, estimated)"
    assert ctx["last_text"] == ctx["used_text"] == f"≈{ctx['used']}"
    assert ctx["next_request"] > ctx["used"]  # it carries the stopped reply's words too
    assert ctx["line"] == s.context.line()
    share = f"{100 * ctx['used'] / 32_000:.0f} %"
    assert ctx["line"].endswith(
        f"Context: last request (stopped, estimated) ≈{ctx['used']} / 32k ({share}) · next ≈{ctx['next_request']}"
    )
    w.close()


def test_a_first_request_stopped_is_estimated_with_its_hidden_prefix(tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    s = mw.Session.new(model="offline/slow", workspace=tmp_path)
    w, ctx = _stopped_turn(s)
    assert s.last_run.state == "stopped" and [c.kind for c in s.cards] == ["user_input", "model_reply"]
    # No earlier count to go by: the hidden prefix and tools are estimated from the body that was sent.
    assert ctx["last_request"] > ctx["by_kind"]["user_input"] and ctx["last_words"].endswith(
        "(stopped, estimated)"
    )
    assert ctx["next_request"] > ctx["last_request"]
    assert set(ctx["by_kind"]) == {"user_input", "model_reply"}
    assert ctx["line"] == s.context.line() and "≈0 /" not in ctx["line"]
    w.close()
