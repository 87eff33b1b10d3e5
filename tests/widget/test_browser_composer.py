"""The composer, panels, approvals and the tool-call form in a real JupyterLab and Chromium, checked kernel-side."""

from __future__ import annotations

import base64
import re

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook
from .test_actions import PNG
from .test_browser import widget_cell

PASTE = """(el, text) => {
  const data = new DataTransfer();
  data.setData("text/plain", text);
  el.focus();
  el.dispatchEvent(new ClipboardEvent("paste", { clipboardData: data, bubbles: true, cancelable: true }));
}"""

DROP = """(el, [name, type, b64]) => {
  const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
  const data = new DataTransfer();
  data.items.add(new File([bytes], name, { type }));
  el.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
}"""


def test_slash_commands_history_panel_and_context_ring(lab, page):
    nb = Notebook.open(page, lab)
    code = ATTACH + "s = mw.Session.new()\ns.send('first question', wait=True)\ns.widget()"
    _, root = widget_cell(nb, code)
    box = root.locator("[data-testid='mw-input']")
    expect(root.locator(".mw-card")).to_have_count(2)
    root.locator(".mw-card").nth(0).hover()
    root.locator(".mw-card").nth(0).locator("[data-act='delete']").click()
    expect(root.locator(".mw-card")).to_have_count(1)

    box.fill("/un")
    hints = root.locator("[data-testid='mw-hints']")
    expect(hints).to_be_visible()
    expect(hints.locator("[data-command]")).to_have_count(1)
    expect(hints).to_contain_text("/undo")
    box.press("Tab")  # completes the command
    expect(box).to_have_value("/undo")
    box.press("Enter")  # the whole command typed: Enter runs it
    expect(root.locator(".mw-card")).to_have_count(2)
    expect(box).to_have_value("")
    assert nb.print_value("[c.kind for c in s.cards]") == "['user_input', 'model_reply']"

    box.fill("/frobnicate")
    box.press("Control+Enter")
    notice = root.locator("[data-testid='mw-notice']")
    expect(notice).to_contain_text("Unknown command /frobnicate — type /help")
    expect(notice).to_have_attribute("data-level", "error")
    expect(box).to_have_value("/frobnicate")  # nothing typed is lost

    box.fill("/continue")
    expect(hints).to_be_visible()
    box.press("Escape")  # the list closed: a whole command still runs on Enter, not a new line
    expect(hints).to_be_hidden()
    box.press("Enter")
    expect(root.locator(".mw-card")).to_have_count(3)
    expect(box).to_have_value("")
    assert nb.print_value("[c.kind for c in s.cards]") == "['user_input', 'model_reply', 'model_reply']"

    box.fill("/history")
    box.press("Control+Enter")
    panel = root.locator("[data-testid='mw-panel']")
    rows = panel.locator(".mw-history-row")
    expect(rows).to_have_count(2)
    assert nb.print_value("len(s.history)") == "2"
    expect(rows.nth(0)).to_contain_text("Request 1")
    rows.nth(0).get_by_role("button", name="Show the request as sent (raw JSON)").click()
    sent = rows.nth(0).locator(".mw-json").first
    expect(sent).to_contain_text('model: "offline/echo"')
    for _ in range(8):  # unfold the request level by level, as a person clicks down to the message
        sent.evaluate("el => el.querySelectorAll('details:not([open])').forEach((d) => { d.open = true; })")
        page.wait_for_timeout(50)
    expect(sent).to_contain_text('"first question"')

    root.locator("[data-testid='mw-ring']").click()  # the ring opens the breakdown by card kind
    expect(panel).to_have_attribute("data-panel", "context")
    kinds = panel.locator("[data-testid='mw-kinds'] .mw-kind-row")
    expect(kinds).to_have_count(2)
    expect(panel.locator("[data-testid='mw-kinds']")).to_contain_text(re.compile(r"Model\s*≈\d+"))
    cost = nb.print_value("s.context.cost_line()")
    expect(root.locator("[data-testid='mw-cost']")).to_have_text(cost)
    expect(root.locator("[data-testid='mw-dashboard']")).to_have_text(nb.print_value("s.context.line()"))


def test_set_typed_in_the_composer_changes_the_setting_clears_the_box_and_says_so(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, ATTACH + "s = mw.Session.new()\ns.widget()")
    box = root.locator("[data-testid='mw-input']")
    notice = root.locator("[data-testid='mw-notice']")

    typed = [
        (
            "/set model offline/thinker",
            "Changed model 'offline/echo' → 'offline/thinker'.",
            "model",
            "offline/thinker",
        ),
        ("/set plan_mode on", "Changed plan_mode False → True.", "plan_mode", "True"),
    ]
    for line, said, name, value in typed:
        box.click()
        page.keyboard.type(line)
        page.keyboard.press("Control+Enter")
        expect(notice).to_have_text(said)
        expect(notice).to_have_attribute("data-level", "info")
        expect(box).to_have_value("")  # done: the command leaves the composer
        assert nb.print_value(f"s.settings.{name}") == value
    expect(root.locator("[data-testid='mw-dashboard']")).to_contain_text("offline/thinker")


def test_attachments_by_button_paste_and_drop_and_the_vision_gate(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, ATTACH + "s = mw.Session.new()\ns.widget()")
    box = root.locator("[data-testid='mw-input']")
    root.locator("[data-testid='mw-file']").set_input_files(
        files=[{"name": "notes.txt", "mimeType": "text/plain", "buffer": b"remember the milk\n" * 50}]
    )
    expect(root.locator("[data-testid='mw-attachment']")).to_contain_text("notes.txt")
    box.fill("Before the paste. ")
    box.press("End")
    pasted = "\n".join(f"pasted line {i}" for i in range(80))  # over 800 characters
    box.evaluate(PASTE, pasted)
    expect(box).to_have_value(re.compile(r"Before the paste\. \[Pasted text #1 \+80 lines\]$"))
    expect(root.locator("[data-testid='mw-pasted']")).to_contain_text("Pasted text #1")
    root.locator("[data-testid='mw-send']").click()
    expect(root.locator(".mw-card[data-kind='user_input'] [data-testid='mw-card-attachment']")).to_have_text(
        "notes.txt"
    )
    expect(root.locator("[data-testid='mw-chips']")).to_be_hidden()
    assert (
        nb.print_value(
            "s.cards[0].text == 'Before the paste. ' + '\\n'.join(f'pasted line {i}' for i in range(80))"
        )
        == "True"
    )
    assert nb.print_value("[(a.name, a.size) for a in s.cards[0].attachments]") == "[('notes.txt', 900)]"

    # A file that would take the message past 32 MB is refused by name; nothing else is lost (T18).
    root.locator("[data-testid='mw-composer']").evaluate(
        """el => {
          const data = new DataTransfer();
          data.items.add(new File([new Uint8Array(33 * 1024 * 1024)], "huge.bin"));
          el.dispatchEvent(new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }));
        }"""
    )
    expect(root.locator("[data-testid='mw-notice']")).to_contain_text(
        "“huge.bin” (33.0 MB) was not attached: a message takes at most 32 MB"
    )
    expect(root.locator("[data-testid='mw-attachment']")).to_have_count(0)

    # A dropped image: the composer warns at once, the session refuses the send, nothing is lost.
    before = nb.print_value("len(s.cards)")
    root.locator("[data-testid='mw-composer']").evaluate(
        DROP, ["cat.png", "image/png", base64.b64encode(PNG).decode()]
    )
    expect(root.locator("[data-testid='mw-attachment']")).to_contain_text("cat.png")
    expect(root.locator("[data-testid='mw-vision']")).to_contain_text("has no vision input")
    box.fill("what is this?")
    root.locator("[data-testid='mw-send']").click()
    notice = root.locator("[data-testid='mw-notice']")
    expect(notice).to_contain_text(
        "has no vision input. Switch the model (`/set model vendor/model`) or delete the images."
    )
    expect(root.locator("[data-testid='mw-attachment']")).to_contain_text("cat.png")
    expect(box).to_have_value("what is this?")
    assert nb.print_value("len(s.cards)") == before

    # A /command with files attached runs nothing and keeps both (N4).
    box.fill("/undo")
    root.locator("[data-testid='mw-send']").click()
    expect(notice).to_contain_text("A /command runs without attachments")
    expect(root.locator("[data-testid='mw-attachment']")).to_contain_text("cat.png")
    expect(box).to_have_value("/undo")
    assert nb.print_value("len(s.cards)") == before


def test_approval_card_and_the_tool_call_form(lab, page):
    nb = Notebook.open(page, lab)
    code = ATTACH + (
        "s = mw.Session.new()\n"
        "open('here.txt', 'w').write('x')\n"
        's.send(\'go\\ncall: bash {"command": "echo approved-run"}\', wait=True)\n'
        "s.widget()"
    )
    _, root = widget_cell(nb, code)
    card = root.locator(".mw-card[data-kind='approval']")
    expect(card.locator("[data-testid='mw-approval-input']")).to_contain_text(
        '"command": "echo approved-run"'
    )
    expect(root.locator("[data-testid='mw-state']")).to_have_text("waiting for approval")
    assert nb.print_value("s.state") == "awaiting_approval"
    card.locator("[data-testid='mw-reason']").fill("looks harmless")
    card.locator("[data-testid='mw-approve']").click()
    expect(card.locator("[data-testid='mw-decision']")).to_have_text("Approved — looks harmless")
    tool = root.locator(".mw-card[data-kind='tool_call']").first
    expect(tool).to_contain_text("approved-run")
    expect(root.locator("[data-testid='mw-state']")).to_have_text("idle")
    kernel = "(s.state, s.cards[-1].kind, [(c.decision, c.reason) for c in s.cards if c.kind == 'approval'])"
    assert nb.print_value(kernel) == "('idle', 'model_reply', [('approved', 'looks harmless')])"

    # The tool-call form from the context menu: ls on the workspace, Execute and add.
    last = root.locator(".mw-card").last
    last.click(button="right")
    page.locator(".mw-menu [data-testid='insert-tool_call']").click()
    form = root.locator("[data-testid='mw-tool-form']")
    form.locator("[data-testid='mw-tool-picker']").select_option("ls")
    form.locator("[data-param='path']").fill(".")
    root.locator(".mw-card.mw-draft [data-testid='mw-execute']").click()
    ls = root.locator(".mw-card[data-kind='tool_call']").last
    expect(ls).to_contain_text('ls(path=".")')
    expect(ls).to_contain_text("here.txt")
    assert "here.txt" in nb.print_value(
        "[c.result for c in s.cards if c.kind == 'tool_call' and c.name == 'ls'][0]"
    )

    # Re-execute: only on the read-only tools (T6); the new result is recorded.
    nb.run("open('later.txt', 'w').write('y')")
    ls.hover()
    ls.locator("[data-testid='mw-reexecute']").click()
    expect(ls).to_contain_text("later.txt")
    assert "later.txt" in nb.print_value(
        "[c.result for c in s.cards if c.kind == 'tool_call' and c.name == 'ls'][0]"
    )
    expect(tool.locator("[data-testid='mw-reexecute']")).to_have_count(0)  # bash is not re-executable


def test_approve_always_shows_the_rules_it_would_add_and_adds_the_one_chosen(lab, page):
    # A5: the card lists "this command" and "commands like this" with their rules before either is added.
    nb = Notebook.open(page, lab)
    code = ATTACH + (
        "s = mw.Session.new()\n"
        's.send(\'call: bash {"command": "git status && echo one"}\', wait=True)\n'
        "s.widget()"
    )
    _, root = widget_cell(nb, code)
    card = root.locator(".mw-card[data-kind='approval']")
    choice = card.locator("[data-testid='mw-always-choice']")
    expect(choice.locator("option")).to_have_count(3)  # drawn once the card is in view
    labels = choice.locator("option").all_inner_texts()
    assert labels == [
        "this command: bash(git status && echo one)",
        "commands like this: bash(git status*), bash(echo *)",
        "every call of bash",
    ]
    choice.select_option("like")
    card.locator("[data-testid='mw-always-policy']").check()
    card.locator("[data-testid='mw-approve-always']").click()
    expect(card.locator("[data-testid='mw-decision']")).to_have_text(
        "Approved always in policy/default.yaml: bash(git status*), bash(echo *)"
    )
    expect(root.locator("[data-testid='mw-state']")).to_have_text("idle")
    assert nb.print_value("s.settings.approved_always") == "[]"
    assert "bash(git status*)" in nb.print_value("open('.mewrk/policy/default.yaml').read()")
    try:
        # The rule is the level's now: a command like it runs without asking.
        nb.run('s.send(\'call: bash {"command": "echo two"}\', wait=True)')
        assert nb.print_value("s.state") == "idle"
        expect(root.locator(".mw-card[data-kind='approval']")).to_have_count(1)
    finally:  # the other tests of this JupyterLab ask at the built-in level
        nb.run("import os; os.remove('.mewrk/policy/default.yaml')")


WITH_THE_CALL = ["user_input", "model_reply", "tool_call", "approval"]


def test_a_call_run_by_hand_asks_as_the_person_and_its_undo_takes_it_back(lab, page):
    # bash asks at the default safety level: the person runs it from the tool-call form, approves, undoes.
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, ATTACH + "s = mw.Session.new()\ns.send('first', wait=True)\ns.widget()")
    last = root.locator(".mw-card").last
    expect(last).to_contain_text("first")
    last.click(button="right", position={"x": 40, "y": last.bounding_box()["height"] - 6})  # insert below
    page.locator(".mw-menu [data-testid='insert-tool_call']").click()
    form = root.locator("[data-testid='mw-tool-form']")
    form.locator("[data-testid='mw-tool-picker']").select_option("bash")
    form.locator("[data-param='command']").fill("echo by-hand > made.txt")
    root.locator(".mw-card.mw-draft [data-testid='mw-execute']").click()
    approval = root.locator(".mw-card[data-kind='approval']")
    expect(approval.locator("[data-testid='mw-approval-asker']")).to_have_text("You asked to run bash:")
    approval.locator("[data-testid='mw-approve']").click()
    expect(approval.locator("[data-testid='mw-decision']")).to_have_text("Approved")
    expect(root.locator("[data-testid='mw-state']")).to_have_text("idle")
    assert nb.print_value("[c.kind for c in s.cards]") == str(WITH_THE_CALL)

    box = root.locator("[data-testid='mw-input']")
    box.fill("/undo")
    box.press("Enter")
    expect(root.locator("[data-testid='mw-notice']")).to_contain_text("Undid: ran bash")
    expect(root.locator(".mw-card")).to_have_count(2)
    assert nb.print_value("([c.kind for c in s.cards], open('made.txt').read())") == (
        "(['user_input', 'model_reply'], 'by-hand\\n')"
    )
    # As a person sees it: the session idle and Send enabled again before the next command is typed.
    expect(root.locator("[data-testid='mw-state']")).to_have_text("idle")
    expect(root.locator("[data-testid='mw-send']")).to_be_enabled()
    box.fill("/redo")
    expect(root.locator("[data-testid='mw-hints']")).to_contain_text("redo")
    box.press("Enter")
    expect(root.locator("[data-testid='mw-notice']")).to_contain_text("Redid: ran bash")
    expect(root.locator(".mw-card[data-kind='approval']")).to_have_count(1)
    assert nb.print_value("[c.kind for c in s.cards]") == str(WITH_THE_CALL)


def test_a_closed_tab_stops_its_views_store_watch(lab, page, browser):
    nb = Notebook.open(page, lab)
    code = ATTACH + (
        "from mewrk_jupyter.widget import timeline as wt\n"
        "wt.HEARTBEAT_EVERY, wt.VIEW_TIMEOUT = 0.5, 3.0\n"
        "s = mw.Session.new()\n"
        "w = s.widget()\n"
        "w"
    )
    widget_cell(nb, code)
    assert nb.print_value("(len(w.views), w.watcher is not None and w.watcher.is_alive())") == "(1, True)"
    page.close()  # the tab goes away with its output still in the notebook

    other = browser.new_context(viewport={"width": 1280, "height": 900}).new_page()
    again = Notebook.open(other, lab, nb.path)  # the same kernel, from a new tab that shows no widget
    try:
        expect(again.cells.first).to_be_visible()
        for _ in range(20):
            if again.print_value("(len(w.views), w.watcher is None)") == "(0, True)":
                break
        assert again.print_value("(len(w.views), w.watcher is None)") == "(0, True)"
    finally:
        other.context.close()
