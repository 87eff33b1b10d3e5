"""In a kernel a send returns at once; the cell's output is the turn it started, updated as it streams."""

from __future__ import annotations

import threading

import pytest
from IPython.utils.capture import capture_output

from mewrk_jupyter import magics
from mewrk_jupyter.engine.events import SessionEvent

QUESTION = "Tell me about the timeline, " + " ".join(f"word{i}" for i in range(10))


@pytest.fixture
def kernel_like(ip, monkeypatch):
    """The test shell, with the magics believing they run in a kernel (so sends run in the background)."""
    ip.run_line_magic("mewrk", "new --model offline/slow")
    monkeypatch.setattr(magics, "_in_kernel", lambda shell: True)
    return ip


def markdown(output) -> str:
    return output.data["text/markdown"]


def test_the_cell_shows_its_turn_streaming_in_then_the_final_state(kernel_like):
    session = magics.current_session()
    deltas: list[SessionEvent] = []
    unsubscribe = session.subscribe(lambda e: deltas.append(e) if e.kind == "text_delta" else None)
    with capture_output() as captured:
        kernel_like.run_cell_magic("mewrk", "", QUESTION)
        assert session.state == "running"  # the magic returned while the turn runs
        view = magics.STATE.turn_view
        assert view is not None and view.join(60)
    unsubscribe()

    first, *updates = captured.outputs
    display_id = first.transient["display_id"]
    assert not first.update and updates
    assert QUESTION in markdown(first) and "Running…" in markdown(first)  # the question shows at once
    assert all(out.update and out.transient["display_id"] == display_id for out in updates)
    user, reply = session.cards
    assert user.text == QUESTION and reply.kind == "model_reply" and reply.complete
    final = markdown(updates[-1])
    assert user.id in final and reply.id in final and "offline echo" in final
    assert "Running…" not in final
    assert any("Running…" in markdown(out) and QUESTION in markdown(out) for out in captured.outputs[:-1])
    # Coalesced: a few updates per second, not one per streamed word.
    assert len(updates) < len(deltas)
    # Only the turn is shown, not the whole timeline: an earlier exchange stays out of this cell.
    with capture_output() as captured:
        kernel_like.run_line_magic("mewrk", "send a second question")
        assert magics.STATE.turn_view.join(60)
    final = markdown(captured.outputs[-1])
    assert "a second question" in final and user.id not in final and reply.id not in final


def test_continue_shows_only_the_new_reply(kernel_like):
    session = magics.current_session()
    session.send("hi", wait=True)
    with capture_output() as captured:
        kernel_like.run_line_magic("mewrk", "continue")
        assert magics.STATE.turn_view.join(60)
    new_reply = session.cards[-1]
    final = markdown(captured.outputs[-1])
    assert new_reply.id in final and session.cards[0].id not in final
    assert [c.kind for c in session.cards] == ["user_input", "model_reply", "model_reply"]


def test_stop_ends_the_turn_and_the_cell_says_so(kernel_like, mewrk):
    session = magics.current_session()
    with capture_output() as captured:
        kernel_like.run_line_magic("mewrk", "send long: 400")
        view = magics.STATE.turn_view
        assert mewrk("stop") == "Stopping the turn."
        assert view.join(60)
    assert "_Stopped._" in markdown(captured.outputs[-1])
    assert session.state == "idle"


def test_the_view_unsubscribes_when_the_turn_ends(kernel_like):
    session = magics.current_session()
    calls: list[str] = []
    original = session.subscribe

    def counting_subscribe(listener):
        unsubscribe = original(listener)

        def counted() -> None:
            calls.append("unsubscribed")
            unsubscribe()

        return counted

    session.subscribe = counting_subscribe  # instance attribute: this session only
    try:
        with capture_output():
            kernel_like.run_line_magic("mewrk", "send hello")
            assert magics.STATE.turn_view.join(60)
    finally:
        del session.subscribe
    assert calls == ["unsubscribed"]


def test_a_refused_send_shows_one_line_and_starts_no_view(kernel_like, mewrk):
    session = magics.current_session()
    session.send('call: write {"path": "a.txt", "content": "x"}', wait=True)  # it waits for approval
    assert session.pending_approval is not None
    assert mewrk("send again").startswith("**mewrk:** An approval is waiting: approve or reject it first")
    assert magics.STATE.turn_view is None
    assert [c.kind for c in session.cards].count("user_input") == 1  # nothing of "again" was stored


def test_the_persons_line_breaks_stay_in_the_cells_output_and_code_blocks_stay_whole(ip):
    import mistune

    ip.run_line_magic("mewrk", "new")
    body = "line one\nline two\ncall: ls {}\n\n```python\nx = 1\ny = 2\n```\nafter the code"
    with capture_output() as captured:
        ip.run_cell_magic("mewrk", "", body)
    shown = "\n".join(markdown(o) for o in captured.outputs)
    assert "line one  \nline two  \ncall: ls {}\n\n```python\nx = 1\ny = 2\n```\nafter the code" in shown
    html = mistune.html(shown)
    assert "line one<br />\nline two<br />\ncall: ls {}</p>" in html  # three lines, not one paragraph
    assert '<pre><code class="language-python">x = 1\ny = 2\n</code></pre>' in html
    assert magics.current_session().cards[0].text == body  # only the view changes, never the card


def test_a_send_waiting_for_this_kernels_turn_sends_nothing_if_that_turn_is_stopped(kernel_like, mewrk):
    """Run All: the next send cell waits for the turn still streaming; the person stops that turn (the
    Stop button, here from another thread), and the waiting cell says so and sends nothing."""
    session = magics.current_session()
    run = session.send("long: 400", wait=False)
    stopper = threading.Timer(0.5, session.stop)
    stopper.start()
    try:
        assert mewrk("send again") == f"**mewrk:** {magics.WAITED_FOR_STOPPED}"
    finally:
        stopper.join()
        run.wait(30)
    assert run.state == "stopped"
    assert [c.kind for c in session.cards] == ["user_input", "model_reply"]
    assert magics.STATE.turn_view is None  # the refused cell started no view
