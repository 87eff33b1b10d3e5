"""`%%mewrk` in a real ipykernel: the cell returns while the turn runs, and its output follows the turn."""

from __future__ import annotations

import os
import queue
import time
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel

QUESTION = "Please explain how the timeline becomes the context, " + " ".join(f"w{i}" for i in range(20))
WAIT = 60.0  # seconds: only ever a limit on waiting, never an assertion on speed


class Kernel:
    """A kernel client that keeps every iopub message, including those sent after a cell finished."""

    def __init__(self, client: Any):
        self.client = client
        self.iopub: list[dict[str, Any]] = []

    def _drain_until(self, done) -> None:
        deadline = time.monotonic() + WAIT
        while not done():
            assert time.monotonic() < deadline, "the kernel did not answer in time"
            try:
                self.iopub.append(self.client.get_iopub_msg(timeout=1))
            except queue.Empty:
                continue

    def execute(self, code: str) -> tuple[str, dict[str, Any]]:
        """Run a cell; return its msg_id and execute_reply once the kernel is idle again."""
        msg_id = self.client.execute(code)
        reply = self.client.get_shell_msg(timeout=WAIT)
        while reply["parent_header"].get("msg_id") != msg_id:  # e.g. a late kernel_info_reply from startup
            reply = self.client.get_shell_msg(timeout=WAIT)
        assert reply["content"]["status"] == "ok", reply["content"]
        self._drain_until(lambda: any(self._is_idle(m, msg_id) for m in self.iopub))
        return msg_id, reply

    def stdout(self, code: str) -> str:
        """Run a cell and return what it printed."""
        msg_id, _ = self.execute(code)
        return "".join(
            m["content"]["text"]
            for m in self.iopub
            if m["msg_type"] == "stream" and m["parent_header"].get("msg_id") == msg_id
        )

    def wait_for_message(self, predicate) -> dict[str, Any]:
        """Read iopub until a message satisfies `predicate`; return it."""
        self._drain_until(lambda: any(predicate(m) for m in self.iopub))
        return next(m for m in self.iopub if predicate(m))

    @staticmethod
    def _is_idle(msg: dict[str, Any], msg_id: str) -> bool:
        return (
            msg["msg_type"] == "status"
            and msg["content"]["execution_state"] == "idle"
            and msg["parent_header"].get("msg_id") == msg_id
        )


@pytest.fixture
def kernel(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k != "MEWRK_HOME"}
    env["HOME"] = str(tmp_path / "home")
    (tmp_path / "home").mkdir()
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(tmp_path), env=env)
    try:
        yield Kernel(client)
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def markdown_of(msg: dict[str, Any]) -> str:
    return msg["content"].get("data", {}).get("text/markdown", "")


def test_a_turn_runs_in_the_background_and_the_cell_output_follows_it(kernel, tmp_path):
    kernel.execute("%load_ext mewrk_jupyter")
    kernel.execute("%mewrk new --model offline/slow")
    session_id = kernel.stdout(
        "from mewrk_jupyter.magics import current_session\nprint(current_session().id)"
    )
    session_id = session_id.strip()
    assert (tmp_path / ".mewrk" / "mewrk.db").exists()

    cell_id, reply = kernel.execute(f"%%mewrk\n{QUESTION}")
    # The execute_reply came back; the turn is still running, as the store says to any reader (R4).
    check = f"import mewrk_jupyter as mw\nprint(mw.Session.open({session_id!r}).state)"
    assert kernel.stdout(check).strip() == "running"

    def is_final_update(msg: dict[str, Any]) -> bool:
        text = markdown_of(msg)
        return msg["msg_type"] == "update_display_data" and "offline echo" in text and "Running…" not in text

    final = kernel.wait_for_message(is_final_update)
    code = (
        f"s = mw.Session.open({session_id!r})\n"
        "print(s.state, [c.kind for c in s.cards], s.cards[-1].complete)"
    )
    assert kernel.stdout(code).strip() == "idle ['user_input', 'model_reply'] True"

    first = next(
        m for m in kernel.iopub if m["msg_type"] == "display_data" and m["parent_header"]["msg_id"] == cell_id
    )
    assert QUESTION in markdown_of(first)  # the cell shows the question at once
    display_id = first["content"]["transient"]["display_id"]
    updates = [
        m
        for m in kernel.iopub
        if m["msg_type"] == "update_display_data" and m["content"]["transient"]["display_id"] == display_id
    ]
    assert final in updates and len(updates) >= 2
    # Updates sent from the background carry the cell that started the turn, so they reach its output.
    assert all(m["parent_header"].get("msg_id") == cell_id for m in updates)
    assert any("Running…" in markdown_of(m) for m in [first, *updates])
    assert QUESTION in markdown_of(final) and "You said:" in markdown_of(final)
    show_id, _ = kernel.execute("%mewrk show")
    shown = [m for m in kernel.iopub if m["parent_header"].get("msg_id") == show_id]
    assert any(session_id in markdown_of(m) and "You said:" in markdown_of(m) for m in shown)
    assert not [m for m in kernel.iopub if m["msg_type"] == "error" or m["content"].get("name") == "stderr"]


def test_a_hostile_reply_reaches_the_cell_output_inert(kernel):
    from tests.markup import live_in_markdown

    attack = "<script>alert(1)</script> <img src=x onerror=alert(1)> [x](javascript:alert(1))"
    assert live_in_markdown(attack)  # as written, a notebook would run it
    kernel.execute("%load_ext mewrk_jupyter")
    kernel.execute("%mewrk new")
    cell_id, _ = kernel.execute(f"%%mewrk\n{attack}")

    def shows_the_reply(msg: dict[str, Any]) -> bool:
        text = markdown_of(msg)
        return (
            msg["parent_header"].get("msg_id") == cell_id and "You said:" in text and "Running…" not in text
        )

    final = kernel.wait_for_message(shows_the_reply)
    assert "onerror=alert(1)" in markdown_of(final)  # shown as text, not dropped
    show_id, _ = kernel.execute("from mewrk_jupyter.magics import current_session\ncurrent_session()")
    shown = [m for m in kernel.iopub if m["parent_header"].get("msg_id") == show_id and markdown_of(m)]
    assert shown  # the session's own display, with its Markdown beside the widget
    for msg in [final, *shown]:
        assert live_in_markdown(markdown_of(msg)) == [], markdown_of(msg)
