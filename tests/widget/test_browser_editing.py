"""Editing a message in a real JupyterLab and Chromium: a file dropped on the message being edited is
attached to it, shown on its card once saved, and sent with it by the next request."""

from __future__ import annotations

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook
from .test_browser import widget_cell

NOTES = "the secret word is plum"


def test_a_file_dropped_on_the_message_being_edited_is_attached_to_it_and_sent_with_it(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(
        nb, ATTACH + "s = mw.Session.new()\ns.send('What does my file say?', wait=True)\ns.widget()"
    )
    message = root.locator(".mw-card[data-kind='user_input']")
    message.hover()
    message.locator("[data-act='edit']").click()
    area = message.locator("textarea")
    expect(area).to_be_focused()

    files = page.evaluate_handle(
        """([name, text]) => {
             const data = new DataTransfer();
             data.items.add(new File([text], name, { type: "text/plain" }));
             return data;
           }""",
        ["notes.txt", NOTES],
    )
    area.dispatch_event("dragenter", {"dataTransfer": files})
    area.dispatch_event("dragover", {"dataTransfer": files})
    area.dispatch_event("drop", {"dataTransfer": files})
    chip = message.locator("[data-testid='mw-edit-attachment']")
    expect(chip).to_have_text("notes.txt · 23 B×")
    expect(root.locator("[data-testid='mw-chips']")).to_be_empty()  # not the composer's
    expect(area).to_have_value("What does my file say?")  # the file's text is not typed into the box

    area.press("Control+Enter")
    expect(message.locator("textarea")).to_have_count(0)
    expect(message.locator("[data-testid='mw-card-attachment']")).to_have_text("notes.txt")
    assert (
        nb.print_value("[(a.name, a.text) for a in s.cards[0].attachments]") == f"[('notes.txt', '{NOTES}')]"
    )

    # The next request carries it: Send with an empty composer continues from the timeline.
    root.locator("[data-testid='mw-send']").click()
    expect(root.locator(".mw-card[data-kind='model_reply']")).to_have_count(2)
    parts = nb.print_value("[p.get('text') for p in s.history[-1].request['messages'][0]['parts']]")
    assert parts == f"['{NOTES}', 'What does my file say?']"

    # A dropped file can be taken off again before saving; Esc drops the whole edit, files too.
    message.hover()
    message.locator("[data-act='edit']").click()
    area.dispatch_event("drop", {"dataTransfer": files})
    expect(chip).to_have_count(1)
    chip.get_by_role("button", name="Remove notes.txt").click()
    expect(chip).to_have_count(0)
    area.dispatch_event("drop", {"dataTransfer": files})
    area.press("Escape")
    expect(message.locator("textarea")).to_have_count(0)
    assert nb.print_value("len(s.cards[0].attachments)") == "1"
