"""Edit the question above a signed thinking block in the widget: the thinking card says it is not sent."""

from __future__ import annotations

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook, edit_card
from .test_browser import widget_cell

NOTE = (
    "Not sent: a change above this signed thinking means the provider would reject it; "
    "undo that change or delete this card"
)


def test_an_edit_above_signed_thinking_shows_the_note_and_undo_takes_it_away(lab, page):
    nb = Notebook.open(page, lab)
    code = ATTACH + "s = mw.Session.new(model='offline/thinker')\ns.send('hello', wait=True)\ns.widget()"
    _, root = widget_cell(nb, code)
    thinking = root.locator(".mw-card[data-kind='thinking']")
    expect(thinking).to_have_count(1)
    note = thinking.locator("[data-testid='mw-card-not-sent']")
    expect(note).to_have_count(0)

    edit_card(page, root.locator(".mw-card[data-kind='user_input']"), ["hello there"])
    expect(note).to_have_text(NOTE)
    assert nb.print_value("list(s.not_sent().values())") == f"[{NOTE.removeprefix('Not sent: ')!r}]"
    # The question's own card carries no note: it is sent as edited.
    expect(root.locator(".mw-card[data-kind='user_input'] [data-testid='mw-card-not-sent']")).to_have_count(0)

    nb.run("s.undo()")
    expect(note).to_have_count(0)
    expect(root.locator(".mw-card[data-kind='user_input']")).to_contain_text("hello")
