"""`/compact` typed in the composer (C6): the status line and the header while the summary is written, then the divider
drawn as a rule across the timeline with its line, the summary itself never shown; undo takes it away."""

from __future__ import annotations

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook
from .test_browser import widget_cell

SETUP = (
    ATTACH
    + "s = mw.Session.new()\n"
    + "for i in range(5):\n    s.send(f'question {i}\\nlong: 900', wait=True)\n"
    # The slow offline model writes the summary word by word: the status line stays long enough to see.
    + "s.configure(model='offline/slow')\n"
    + "s.widget()"
)

RULE = """el => {
  const line = getComputedStyle(el, "::before");
  const list = el.closest(".mw-root").getBoundingClientRect().width;
  return [line.borderTopStyle, line.borderTopWidth, el.getBoundingClientRect().width / list];
}"""


def test_slash_compact_shows_the_status_then_the_divider_as_a_rule_and_undo_removes_it(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, SETUP)
    expect(
        root.locator(".mw-card").first
    ).to_be_visible()  # a long timeline: only the cards in view are drawn
    box = root.locator("[data-testid='mw-input']")
    status = root.locator("[data-testid='mw-status']")
    expect(status).to_be_hidden()

    box.fill("/compact")
    expect(root.locator("[data-testid='mw-hints']")).to_contain_text("/compact")
    box.press("Enter")  # the whole command typed: Enter runs it
    expect(status).to_have_text("Compacting the conversation…")
    expect(status).to_be_visible()
    header = root.locator("[data-testid='mw-state']")
    expect(header).to_have_text("compacting")  # the header says so too, not "idle"
    expect(header.locator(".mw-spinner")).to_have_count(1)
    divider = root.locator(".mw-card[data-kind='summary_divider'] [data-testid='mw-divider']")
    expect(divider).to_have_count(1, timeout=60_000)
    expect(status).to_be_hidden()
    expect(header).to_have_text("idle")
    expect(box).to_have_value("")

    line = nb.print_value("s.cards[-1].title_line()")
    assert line.startswith("10 earlier messages · compacted into a summary · ≈") and line.endswith(
        " tokens saved"
    )
    expect(divider).to_have_text(line)
    expect(root.locator("[data-testid='mw-notice']")).to_contain_text(f"Compacted: {line}.")
    style, width, share = divider.evaluate(RULE)
    assert style == "solid" and width == "1px" and share > 0.8  # a rule across the timeline
    assert nb.print_value("len(s.cards)") == "11"  # the cards above stay
    # The summary is the model's working material: closed until the person opens it (C7).
    expect(root.locator("[data-testid='mw-summary']")).to_be_hidden()
    assert nb.print_value("s.cards[-1].summary.splitlines()[0]") == "## Goal"

    nb.run("s.undo()")
    expect(divider).to_have_count(0)
    assert nb.print_value("[c.kind for c in s.cards].count('summary_divider')") == "0"
