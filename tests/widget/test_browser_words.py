"""Words and figures a person reads in a real JupyterLab and Chromium: the dashboard's two context sizes
after a message is sent, and the undo notice after a deletion, checked against the kernel's session."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook
from .test_browser import widget_cell

CODE = re.compile(r"\b[TADNSRC]\d{1,2}\b")


def test_after_a_reply_the_dashboard_says_the_last_requests_size_and_the_next_ones(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, ATTACH + "s = mw.Session.new()\ns.widget()")
    dashboard = root.locator("[data-testid='mw-dashboard']")
    expect(dashboard).to_have_text("Agent: main · offline/echo · Reasoning: off · Context: ≈0 / 32k (0 %)")

    box = root.locator("[data-testid='mw-input']")
    box.click()
    box.press_sequentially("What does the timeline hold?")
    box.press("Control+Enter")
    reply = root.locator(".mw-card[data-kind='model_reply']")
    expect(reply).to_contain_text("What does the timeline hold?")
    figures = re.compile(r"Context: last request ≈(\d+) / 32k \((\d+) %\) · next ≈(\d+)$")
    expect(dashboard).to_have_text(figures)
    found = figures.search(dashboard.inner_text().strip())
    assert found is not None
    last_size, next_size = int(found.group(1)), int(found.group(3))
    # The figure is the last request's size, the vendor's own count (≈: the vendor counts its own way);
    # the next one carries the reply too, an estimate.
    assert last_size == int(nb.print_value("s.history[-1].response['usage']['input_tokens']"))
    assert next_size == int(nb.print_value("s.context.next_request")) > last_size
    assert dashboard.inner_text().strip() == nb.print_value("s.context.line()")

    root.locator("[data-testid='mw-ring']").click()
    panel = root.locator("[data-testid='mw-panel']")
    expect(panel.locator("[data-testid='mw-context-figure']")).to_have_text(
        re.compile(rf"^Next request: ≈{next_size} of 32k \(\d+ %\) — an estimate")
    )
    expect(panel.locator("[data-testid='mw-context-last']")).to_have_text(
        re.compile(
            rf"^Last request: ≈{last_size} tokens of 32k \(\d+ %\) — the vendor's own count of what was sent\.$"
        )
    )
    kinds = panel.locator("[data-testid='mw-kinds']")
    expect(kinds.locator("[data-kind='model_reply'] .mw-kind-name")).to_have_text("Model")
    expect(kinds.locator("[data-kind='user_input'] .mw-kind-tokens")).to_have_text(re.compile(r"^≈\d+$"))
    assert "model_reply" not in panel.inner_text() and "~" not in panel.inner_text()


def test_after_a_stopped_request_the_dashboard_shows_that_requests_estimate(lab, page):
    nb = Notebook.open(page, lab)
    code = ATTACH + "s = mw.Session.new(model='offline/slow')\ns.send('hello', wait=True)\ns.widget()"
    _, root = widget_cell(nb, code)
    dashboard = root.locator("[data-testid='mw-dashboard']")
    answered = int(nb.print_value("s.context.last_request"))
    expect(dashboard).to_contain_text(f"Context: last request ≈{answered} / 32k")

    box = root.locator("[data-testid='mw-input']")
    box.click()
    page.keyboard.type("Tell me a long story.")
    page.keyboard.press("Enter")
    page.keyboard.type("long: 2000")
    page.keyboard.press("Control+Enter")
    reply = root.locator(".mw-card[data-kind='model_reply']").nth(1)
    expect(reply).to_contain_text("the timeline")  # the reply has begun streaming
    root.locator("[data-testid='mw-stop']").click()
    expect(root.locator("[data-testid='mw-state']")).to_have_text("idle")
    # The vendor never counted the stopped request: the figure is the engine's estimate of it, and says
    # so, not the size of the request before it.
    stopped = re.compile(
        r"Context: last request \(stopped, estimated\) ≈(\d+) / 32k \(\d+ %\) · next ≈(\d+)$"
    )
    expect(dashboard).to_have_text(stopped)
    found = stopped.search(dashboard.inner_text().strip())
    assert found is not None and int(found.group(1)) > answered
    assert nb.print_value("s.history[-1].response['usage']") == "None"
    assert dashboard.inner_text().strip() == nb.print_value("s.context.line()")


def test_undoing_a_deletion_says_what_came_back_in_words(lab, page):
    nb = Notebook.open(page, lab)
    code = ATTACH + (
        "s = mw.Session.new()\n"
        "s.insert(mw.SystemPrompt(text='Answer in one sentence.'))\n"
        "s.send('hello', wait=True)\n"
        "s.widget()"
    )
    _, root = widget_cell(nb, code)
    cards = root.locator(".mw-card")
    expect(cards).to_have_count(3)
    prompt = root.locator(".mw-card[data-kind='system_prompt']")
    prompt.hover()
    prompt.locator("[data-act='delete']").click()
    expect(cards).to_have_count(2)
    assert nb.print_value("[c.kind for c in s.cards]") == "['user_input', 'model_reply']"

    cards.nth(0).locator(".mw-card-body").click()
    page.keyboard.press("Control+z")
    notice = root.locator("[data-testid='mw-notice']")
    expect(notice).to_have_text("Undid: deleted system prompt.")
    expect(cards).to_have_count(3)
    assert nb.print_value("[c.kind for c in s.cards]") == "['system_prompt', 'user_input', 'model_reply']"

    cards.nth(0).locator(".mw-card-body").click()
    page.keyboard.press("Control+x")
    expect(notice).to_have_text("Redid: deleted system prompt.")
    expect(cards).to_have_count(2)

    box = root.locator("[data-testid='mw-input']")
    box.click()
    box.press_sequentially("/help")
    box.press("Control+Enter")
    help_panel = root.locator("[data-testid='mw-help']")
    expect(help_panel).to_contain_text("/continue")
    assert not CODE.search(help_panel.inner_text())  # no requirement codes in what a person reads
