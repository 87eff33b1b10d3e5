"""Which sessions are offered the notebook tools (N5): none outside a kernel that a Jupyter server
started (with a notice saying how), all three where there is a bridge, only `notebook_read` in plan mode
and for a subagent whose agent file lists no tools. The tools' own work is tested in a real JupyterLab
(tests/widget/test_browser_notebook.py); here the bridge points nowhere, since no call is made."""

from __future__ import annotations

import warnings

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.config.policy import DEFAULT_POLICY
from mewrk_jupyter.errors import ConfigNotice
from mewrk_jupyter.tools import notebook
from mewrk_jupyter.tools.notebook_bridge import NOT_IN_JUPYTERLAB, Bridge

from ..conftest import wait_for

NOTEBOOK = {"notebook_read", "notebook_edit", "notebook_run"}


def offered(s: mw.Session) -> set[str]:
    return {spec.name for spec in s.tool_specs()} & NOTEBOOK


@pytest.fixture
def bridged(monkeypatch):
    """A kernel that a Jupyter server started, as far as offering the tools goes."""
    bridge = Bridge(url="http://127.0.0.1:9/", kernel_id="k1", token="not-used")
    monkeypatch.setattr(notebook, "find_bridge", lambda: bridge)
    return bridge


def test_outside_a_kernel_a_server_started_no_notebook_tool_is_offered(workspace):
    assert offered(mw.Session.new()) == set()


def test_an_agent_file_listing_them_there_is_told_why_they_are_missing(workspace):
    folder = workspace / ".mewrk" / "agents"
    folder.mkdir(parents=True)
    (folder / "main.yaml").write_text("model: offline/echo\ntools: [read, notebook_read, notebook_edit]\n")
    mw.trust(workspace)
    with pytest.warns(ConfigNotice) as caught:
        s = mw.Session.new()
    said = [str(w.message) for w in caught]
    assert (
        f"agents/main.yaml lists notebook_read, notebook_edit, which are not offered here. {NOT_IN_JUPYTERLAB}"
        in said
    )
    assert offered(s) == set()


def test_with_a_bridge_all_three_are_offered_reading_freely_and_changing_after_approval(workspace, bridged):
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConfigNotice)  # nothing to say where they are offered
        s = mw.Session.new()
    assert offered(s) == NOTEBOOK
    assert DEFAULT_POLICY.tier("notebook_read") == "allow"
    assert DEFAULT_POLICY.tier("notebook_edit") == DEFAULT_POLICY.tier("notebook_run") == "ask"


def test_plan_mode_withholds_the_edit_and_the_run(workspace, bridged):
    s = mw.Session.new()
    s.configure(plan_mode=True)
    assert offered(s) == {"notebook_read"}
    s.configure(plan_mode=False)
    assert offered(s) == NOTEBOOK


@pytest.mark.parametrize(
    ("helper_tools", "expected"),
    [(None, {"notebook_read"}), ("[notebook_read, notebook_run]", {"notebook_read", "notebook_run"})],
)
def test_a_subagent_reads_the_notebook_but_changes_it_only_when_its_agent_file_says(
    workspace, bridged, helper_tools, expected
):
    folder = workspace / ".mewrk" / "agents"
    folder.mkdir(parents=True)
    (folder / "main.yaml").write_text("model: offline/echo\ntools: [agent_spawn, task_wait, notebook_read]\n")
    listed = f"tools: {helper_tools}\n" if helper_tools else ""
    (folder / "helper.yaml").write_text(f"model: offline/echo\n{listed}system_prompt: You help.\n")
    mw.trust(workspace)
    s = mw.Session.new()
    run = s.send('call: agent_spawn {"agent": "helper", "task": "say hi"}')
    assert run.state == "done", run.error
    card = wait_for(lambda: next((c for c in s.cards if isinstance(c, mw.Subagent)), None))
    child = mw.Session.open(card.session_id)
    assert offered(child) == expected
