"""`%mewrk branch`, `fork` and `use` in a real ipykernel: each says where it went and shows that session's widget."""

from __future__ import annotations

from typing import Any

from tests.magics import test_kernel

kernel = test_kernel.kernel  # the same real-kernel fixture
markdown_of = test_kernel.markdown_of

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"


def _outputs(kernel: test_kernel.Kernel, cell_id: str) -> list[dict[str, Any]]:
    return [m for m in kernel.iopub if m["parent_header"].get("msg_id") == cell_id]


def _shown_sessions(kernel: test_kernel.Kernel, cell_id: str) -> list[str]:
    """The session of each timeline widget a cell displayed (its model's synced `session_id`)."""
    outputs = _outputs(kernel, cell_id)
    models = {
        m["content"]["comm_id"]: m["content"]["data"]["state"].get("session_id")
        for m in outputs
        if m["msg_type"] == "comm_open"
    }
    return [
        models.get(m["content"]["data"][WIDGET_VIEW]["model_id"])
        for m in outputs
        if m["msg_type"] == "display_data" and WIDGET_VIEW in m["content"]["data"]
    ]


def _said(kernel: test_kernel.Kernel, cell_id: str) -> str:
    return "\n".join(markdown_of(m) for m in _outputs(kernel, cell_id) if m["msg_type"] == "display_data")


def test_branch_fork_and_use_show_the_widget_of_the_session_they_lead_to(kernel):
    kernel.execute("%load_ext mewrk_jupyter")
    kernel.execute("%mewrk new demo")
    kernel.execute(
        "%mewrk send hello\nfrom mewrk_jupyter.magics import current_session\ncurrent_session().last_run.wait()"
    )
    original = kernel.stdout("print(current_session().id)").strip()

    branch_cell, _ = kernel.execute("%mewrk branch -1")
    branch = kernel.stdout("print(current_session().id)").strip()
    assert branch != original
    said = _said(kernel, branch_cell)
    assert "Branched “demo” at the reply" in said and f"into “demo (branch)” (id {branch})" in said
    assert _shown_sessions(kernel, branch_cell) == [
        branch
    ]  # the new session's live timeline, not the old one

    fork_cell, _ = kernel.execute(f"%mewrk use {original}\n%mewrk fork -1")
    fork = kernel.stdout("print(current_session().id)").strip()
    said = _said(kernel, fork_cell)
    assert f"Switched to “demo” (id {original})" in said
    assert f"into “demo (fork)” (id {fork}): the 1 card above it." in said
    assert _shown_sessions(kernel, fork_cell) == [original, fork]

    use_cell, _ = kernel.execute(f"%mewrk use {branch[:6]}")
    assert f"Switched to “demo (branch)” (id {branch}): offline/echo, 2 cards." in _said(kernel, use_cell)
    assert _shown_sessions(kernel, use_cell) == [branch]
    assert not [m for m in kernel.iopub if m["msg_type"] == "error" or m["content"].get("name") == "stderr"]
