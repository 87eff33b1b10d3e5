"""Replay from the Session menu (#38), in JupyterLab and Chromium: a session recorded on offline/echo is
asked again of offline/thinker; its branch opens in place with a comparison card after each turn's reply,
its verdict on one line and the diff behind a disclosure; a session with nothing to replay is refused in
the panel, in the engine's words."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook
from .test_browser import widget_cell

RECORDED = (
    ATTACH
    + """\
s = mw.Session.new(title='recorded')
s.send('hello there', wait=True)
s.send('call: bash {"command": "echo ran"}', wait=True)
s.approve(wait=True)
s.widget()"""
)


def _open_replay(page, root):
    root.locator("[data-testid='mw-session-menu']").click()
    page.locator(".mw-menu [data-testid='replay']").click()
    panel = root.locator("[data-testid='mw-replay']")
    expect(panel).to_be_visible()
    return panel


def test_replay_opens_the_branch_with_a_comparison_after_each_turn_s_reply(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, RECORDED)
    expect(root.locator(".mw-card[data-kind='tool_call']")).to_contain_text("echo ran")
    recorded_id = nb.print_value("s.id")

    panel = _open_replay(page, root)
    model = panel.locator("[data-testid='mw-replay-model']")
    expect(model).to_have_value("offline/echo")  # the session's own model, first
    expect(panel.locator("[data-testid='mw-replay-tools']")).to_have_value("recorded")
    model.select_option("offline/thinker")
    panel.locator("[data-testid='mw-replay-start']").click()

    header = root.locator(".mw-header .mw-title")
    expect(header).to_contain_text("recorded (replay on offline/thinker) · ")
    expect(root.locator("[data-testid='mw-back']")).to_have_text("← back to “recorded”")
    expect(root.locator("[data-testid='mw-notice']")).to_contain_text(
        "Replaying “recorded” on offline/thinker (2 messages, tool calls answered from the recording)"
    )
    expect(root.locator("[data-testid='mw-panel']")).to_be_hidden()

    comparisons = root.locator(".mw-card[data-kind='comparison']")
    expect(comparisons).to_have_count(2)  # one per turn, each as its turn ends
    first, second = comparisons.nth(0), comparisons.nth(1)
    expect(first.locator(".mw-label")).to_have_text("Replay")
    expect(first.locator("[data-testid='mw-comparison-line']")).to_have_text(
        re.compile(r"^turn 1 · same · \d+ → \d+ tokens$")
    )
    expect(second.locator("[data-testid='mw-comparison-line']")).to_have_text(
        re.compile(r"^turn 2 · same tools, other text · \d+ → \d+ tokens$")
    )
    expect(second).to_contain_text("offline/echo → offline/thinker")
    # Each comes right after its turn's new reply.
    kinds = root.locator(".mw-card").evaluate_all("cards => cards.map((card) => card.dataset.kind)")
    assert [kinds[i - 1] for i, kind in enumerate(kinds) if kind == "comparison"] == ["model_reply"] * 2
    assert "mw-comparison-diffs" not in first.inner_html()  # the same: nothing to open

    diff = second.locator("[data-testid='mw-comparison-diff']")
    expect(diff).to_be_hidden()
    second.locator("summary").click()
    expect(diff).to_be_visible()
    expect(diff.locator("[data-diff='file']").first).to_have_text("--- recorded (offline/echo)")
    expect(diff.locator("[data-diff='del']")).to_contain_text("-The tool call")
    expect(diff.locator("[data-diff='add']")).to_contain_text("+The tool call")

    branch = "[x for x in mw.list_sessions() if x.parent_id == s.id][0].id"
    sent = f"'--- recorded' in str([e.request for e in mw.Session.open({branch}).history])"
    assert nb.print_value(sent) == "False"  # the model never read a comparison

    second.locator("[data-testid='mw-open-recording']").click()
    expect(header).to_have_text(f"recorded · {recorded_id} · offline/echo")


def test_a_session_with_nothing_to_replay_is_refused_in_the_panel(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, ATTACH + "s = mw.Session.new(title='empty')\ns.widget()")
    sessions = nb.print_value("len(mw.list_sessions())")
    panel = _open_replay(page, root)
    expect(panel.locator("[data-testid='mw-replay-model']")).to_have_value("offline/echo")
    panel.locator("[data-testid='mw-replay-start']").click()
    said = panel.locator("[data-testid='mw-replay-said']")
    expect(said).to_have_text("This session has no message of the person to replay.")
    expect(said).to_have_attribute("role", "alert")
    expect(root.locator(".mw-header .mw-title")).to_contain_text("empty · ")
    assert nb.print_value("len(mw.list_sessions())") == sessions  # nothing was made
