"""After a kernel restart in a real ipykernel: the new kernel has no current session, and what the widget's
banner advises brings the same session back — re-running the cell that made it (`%mewrk new`), `%mewrk use
ID`, or any `%mewrk` command, which takes up the session the notebook used last. The notebook's path and
the cell's id come as JupyterLab sends them (the server's JPY_SESSION_NAME, the request's `cellId`)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from jupyter_client.manager import start_new_kernel

from .test_kernel import WAIT, Kernel


class NotebookKernel(Kernel):
    """A kernel that runs cells as JupyterLab does: each request names its cell."""

    def run_cell(self, cell_id: str, code: str) -> str:
        """Run `code` as the cell `cell_id`; return the Markdown and text it showed."""
        content = {"code": code, "silent": False, "store_history": True, "user_expressions": {}}
        msg = self.client.session.msg("execute_request", content, metadata={"cellId": cell_id})
        self.client.shell_channel.send(msg)
        msg_id = msg["header"]["msg_id"]
        reply = self.client.get_shell_msg(timeout=WAIT)
        while reply["parent_header"].get("msg_id") != msg_id:
            reply = self.client.get_shell_msg(timeout=WAIT)
        assert reply["content"]["status"] == "ok", reply["content"]
        self._drain_until(lambda: any(self._is_idle(m, msg_id) for m in self.iopub))
        shown = [m for m in self.iopub if m["parent_header"].get("msg_id") == msg_id]
        return "\n".join(
            m["content"].get("data", {}).get("text/markdown", "") or m["content"].get("text", "")
            for m in shown
            if m["msg_type"] in ("display_data", "stream", "execute_result")
        )

    def current(self) -> str:
        return self.stdout(
            "from mewrk_jupyter.magics import current_session as c\nprint(c() and c().id)"
        ).strip()


@pytest.fixture
def notebook(tmp_path: Path):
    env = {k: v for k, v in os.environ.items() if k != "MEWRK_HOME"}
    env["HOME"] = str(tmp_path / "home")
    env["JPY_SESSION_NAME"] = str(tmp_path / "analysis.ipynb")  # what the Jupyter server gives a kernel
    (tmp_path / "home").mkdir()
    manager, client = start_new_kernel(kernel_name="python3", cwd=str(tmp_path), env=env)
    holder: dict[str, Any] = {"kernel": NotebookKernel(client)}

    def restart() -> NotebookKernel:
        holder["kernel"].client.stop_channels()
        manager.restart_kernel(now=True)
        client = manager.client()
        client.start_channels()
        client.wait_for_ready(timeout=WAIT)
        holder["kernel"] = NotebookKernel(client)
        return holder["kernel"]

    try:
        yield holder["kernel"], restart
    finally:
        holder["kernel"].client.stop_channels()
        manager.shutdown_kernel(now=True)


def test_rerunning_the_cell_after_a_restart_brings_the_same_session_back(notebook):
    kernel, restart = notebook
    kernel.run_cell("load", "%load_ext mewrk_jupyter")
    made = kernel.run_cell("start", "%mewrk new notes")
    session_id = kernel.current()
    assert f"New session `{session_id}`" in made
    kernel.run_cell("ask", "%%mewrk\nremember the milk")

    kernel = restart()
    assert kernel.current() == "None"  # a new process: nothing in memory
    kernel.run_cell("load", "%load_ext mewrk_jupyter")
    again = kernel.run_cell("start", "%mewrk new notes")  # the cell as it was, run again
    assert kernel.current() == session_id
    assert (
        f"This cell's session `{session_id}` “notes”" in again
        and "`%mewrk new --fresh` starts another" in again
    )
    count = "import mewrk_jupyter as mw\nprint(len(mw.list_sessions()), [c.kind for c in mw.Session.open(%r).cards])"
    assert kernel.stdout(count % session_id).strip() == "1 ['user_input', 'model_reply']"

    # After another restart, `%mewrk show` (or any command) takes up the session the notebook used last.
    kernel = restart()
    kernel.run_cell("load", "%load_ext mewrk_jupyter")
    shown = kernel.run_cell("later", "%mewrk show")
    assert f"Working with `{session_id}` “notes” again, the session this notebook used last" in shown
    assert kernel.current() == session_id
    # `--fresh` starts another, and a new cell starts a new one.
    kernel.run_cell("start", "%mewrk new --fresh")
    assert kernel.current() not in (session_id, "None")
    kernel.run_cell("other", "%mewrk new")
    assert kernel.stdout(count % session_id).strip().startswith("3 ")


def test_use_with_the_id_the_banner_names_brings_the_session_back(notebook):
    kernel, restart = notebook
    kernel.run_cell("load", "%load_ext mewrk_jupyter")
    kernel.run_cell("start", "%mewrk new")
    session_id = kernel.current()
    kernel = restart()
    kernel.run_cell("load", "%load_ext mewrk_jupyter")
    kernel.run_cell("back", f"%mewrk use {session_id}")
    assert kernel.current() == session_id
