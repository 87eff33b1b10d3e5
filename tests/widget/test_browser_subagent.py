"""The subagent card in JupyterLab and Chromium (T15): its state as it changes, a subagent's approval
answered on the parent's timeline, and a click that opens the subagent's own timeline in place."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook
from .test_browser import widget_cell

SETUP = ATTACH + (
    "import pathlib\n"
    "folder = pathlib.Path('.mewrk/agents'); folder.mkdir(parents=True, exist_ok=True)\n"
    "(folder / 'main.yaml').write_text('model: offline/echo\\ntools: [read, agent_spawn, task_wait]\\n')\n"
    "(folder / 'helper.yaml').write_text('model: offline/echo\\ntools: [bash]\\n')\n"
    "mw.trust()\n"
    "s = mw.Session.new(title='lead')\n"
    's.send(\'call: agent_spawn {"agent": "helper", "task": "call: bash {\\\\"command\\\\": \\\\"echo hi\\\\"}"}\', wait=True)\n'
    "s.widget()"
)


def test_a_subagents_approval_is_answered_on_the_parent_and_a_click_opens_its_timeline(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, SETUP)
    card = root.locator(".mw-card[data-kind='subagent']")
    expect(card.locator("[data-testid='mw-subagent-state']")).to_have_text("waiting for an approval")
    approval = root.locator(".mw-card[data-kind='approval']")
    expect(approval).to_contain_text("A subagent asks to run bash")
    # The parent's own turn ended, and its header says what waits.
    state = root.locator("[data-testid='mw-state']")
    expect(state).to_have_text("a subagent waits for approval")
    approval.locator("[data-testid='mw-approve']").click()
    expect(card.locator("[data-testid='mw-subagent-state']")).to_have_text("completed")
    expect(state).to_have_text("idle")
    expect(approval.locator("[data-testid='mw-decision']")).to_have_text("Approved")
    child_id = nb.print_value(
        "s.cards[-1].session.id if s.cards[-1].kind == 'subagent' else [c for c in s.cards if c.kind == 'subagent'][0].session_id"
    )

    card.locator("[data-testid='mw-open-subagent']").click()
    header = root.locator(".mw-header .mw-title")
    expect(header).to_contain_text(f'helper: call: bash {{"command": "echo hi"}} · {child_id}')
    expect(root.locator(".mw-card[data-kind='user_input']")).to_have_count(1)
    expect(root.locator(".mw-card[data-kind='tool_call']")).to_contain_text("echo hi")

    root.locator("[data-testid='mw-back']").click()
    expect(header).to_contain_text("lead · ")
    expect(root.locator(".mw-card[data-kind='subagent']")).to_have_count(1)
    card.get_by_text("helper", exact=True).click()  # the card itself opens it too, not only its button
    expect(header).to_contain_text(f"· {child_id} ·")


def test_the_agent_filter_shows_one_figure_per_agent_and_opens_the_one_chosen(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, SETUP)
    agent_filter = root.locator("[data-testid='mw-agent-filter']")
    expect(agent_filter).to_be_visible()
    options = agent_filter.locator("option")
    expect(options).to_have_count(2)
    expect(options.nth(0)).to_contain_text("main — ")
    expect(options.nth(1)).to_contain_text("helper — ")
    expect(options.nth(1)).to_contain_text("Cost: ")
    child_id = nb.print_value("[c for c in s.cards if c.kind == 'subagent'][0].session_id")
    agent_filter.select_option(child_id)
    expect(root.locator(".mw-header .mw-title")).to_contain_text(f"· {child_id} ·")
    expect(root.locator("[data-testid='mw-dashboard']")).to_contain_text("Agent: helper")
    expect(agent_filter).to_have_value(child_id)


WORKFLOW = (
    "folder = pathlib.Path('.mewrk/workflows'); folder.mkdir(parents=True, exist_ok=True)\n"
    "(folder / 'review.yaml').write_text(\n"
    "    'steps:\\n'\n"
    "    '  - name: check\\n    agent: helper\\n    prompt: \\'call: bash {\"command\": \"echo {input}\"}\\'\\n'\n"
    "    '  - name: report\\n    prompt: Report.\\n'\n"
    ")\n"
    "w = mw.Session.new(title='flow')\n"
    "w.widget()"
)


def test_a_workflow_typed_in_the_composer_shows_its_steps_and_opens_each_ones_timeline(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, SETUP.replace("s.widget()", WORKFLOW))
    box = root.locator("[data-testid='mw-input']")
    box.fill("/workflow review the parser")
    box.press("Control+Enter")  # a command with its text is sent as a message is
    card = root.locator(".mw-card[data-kind='workflow']")
    expect(card.locator("[data-testid='mw-workflow-state']")).to_have_text("waiting for an approval")
    steps = card.locator("[data-testid='mw-workflow-step']")
    expect(steps).to_have_count(2)
    expect(steps.nth(0)).to_contain_text("check · helper · waiting for an approval")
    expect(steps.nth(1)).to_contain_text("report · main · waiting")
    expect(steps.nth(1).locator("[data-testid='mw-open-step']")).to_have_count(0)  # not started yet
    approval = root.locator(".mw-card[data-kind='approval']")
    expect(approval).to_contain_text("A subagent asks to run bash")
    approval.locator("[data-testid='mw-approve']").click()
    expect(card.locator("[data-testid='mw-workflow-state']")).to_have_text("completed")
    expect(steps.nth(1).locator("[data-testid='mw-workflow-step-state']")).to_have_text("completed")
    # Each step's own timeline opens in place, and Back returns.
    steps.nth(0).locator("[data-testid='mw-open-step']").click()
    header = root.locator(".mw-header .mw-title")
    first = nb.print_value("[c for c in w.cards if c.kind == 'workflow'][0].steps[0].session_id")
    expect(header).to_contain_text(f"· {first} ·")
    expect(root.locator(".mw-card[data-kind='tool_call']")).to_contain_text("echo the parser")
    # A step's timeline is a record: nothing is typed or sent there, and the composer says why.
    box = root.locator("[data-testid='mw-input']")
    expect(box).to_have_attribute("readonly", "")
    expect(box).to_have_attribute("placeholder", re.compile("^This is a workflow step's own timeline"))
    expect(root.locator("[data-testid='mw-send']")).to_be_disabled()
    root.locator("[data-testid='mw-back']").click()
    expect(box).not_to_have_attribute("readonly", "")  # the conversation takes messages again
    expect(header).to_contain_text("flow · ")
    card.locator("[data-testid='mw-open-step']").nth(1).click()
    second = nb.print_value("[c for c in w.cards if c.kind == 'workflow'][0].steps[1].session_id")
    expect(header).to_contain_text(f"· {second} ·")
    expect(root.locator(".mw-card[data-kind='user_input']").first).to_contain_text("Report.")
