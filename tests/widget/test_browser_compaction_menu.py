"""The ring's auto-compaction section in a real JupyterLab and Chromium: the ring opens it under the
breakdown; the switch reaches preferences.yaml; the mode buttons change the session's mode, native closed
with the engine's reason on a model without a compaction of its own; a threshold out of range is refused
in its sentence and one in range is saved and marked on the ring; it reads well in both themes. Then the
handoff card drawn as Markdown and the native-compaction card with its kept messages, not editable."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook
from .test_browser import widget_cell
from .test_browser_look import keep_screenshot, low_contrast, switch_theme

SETUP = ATTACH + (
    "import os, tempfile\n"
    "os.chdir(tempfile.mkdtemp(dir='.'))  # a workspace of its own: its .mewrk is this test's alone\n"
    "s = mw.Session.new(model='offline/tiny')  # an offline model without a compaction of its own\n"
    "s.send('hello', wait=True)\n"
    "s.widget()"
)
NATIVE_REFUSED = (
    "compaction 'native' needs a model with a compaction of its own, and `offline/tiny` has none; "
    "keep 'handoff' (a summary handed to a new session) or choose such a model."
)
# A vendor whose model compacts by itself, trusted as the person who wrote it would.
VENDOR = (
    "os.makedirs('.mewrk/llm', exist_ok=True)\n"
    "open('.mewrk/llm/acme.yaml', 'w').write('protocol: openai-responses\\nbase_url: http://127.0.0.1:9\\n"
    "models:\\n  big: {context_window: 100000, native_compaction: true}\\n')\n"
    "mw.trust()\n"
    "s.configure(model='acme/big')"
)


def _open_section(root):
    ring = root.locator("[data-testid='mw-ring']")
    ring.click()
    panel = root.locator("[data-testid='mw-panel'][data-panel='context']")
    section = panel.locator("[data-testid='mw-compaction']")
    expect(section).to_be_visible()
    return ring, section


def test_the_rings_section_switches_auto_compaction_chooses_the_mode_and_sets_thresholds(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, SETUP)
    ring, section = _open_section(root)
    expect(ring).to_have_attribute("data-compact-at", "80")
    expect(ring).to_have_attribute("aria-label", re.compile(r"auto-compaction at 80 %"))

    # The switch, from the keyboard: Space turns it off, and preferences.yaml says so.
    auto = section.locator("[data-testid='mw-compaction-auto_compaction']")
    expect(auto).to_be_checked()
    auto.focus()
    page.keyboard.press("Space")
    expect(section.locator("[data-testid='mw-compaction-said-auto_compaction']")).to_have_text(
        "Preferences saved: auto_compaction false."
    )
    expect(auto).not_to_be_checked()
    expect(ring).to_have_attribute("data-compact-at", "")  # off: nothing compacts by itself
    assert nb.print_value("open('.mewrk/preferences.yaml').read().strip()") == "auto_compaction: false"
    auto.focus()
    page.keyboard.press("Space")
    expect(ring).to_have_attribute("data-compact-at", "80")

    # Native cannot be chosen on the offline tiny model: the button says so, in the engine's words.
    handoff = section.locator("[data-testid='mw-compaction-mode-handoff']")
    native = section.locator("[data-testid='mw-compaction-mode-native']")
    expect(handoff).to_have_attribute("aria-pressed", "true")
    expect(native).to_be_disabled()
    expect(section.locator("[data-testid='mw-compaction-reason']")).to_have_text(
        f"Native is not available: {NATIVE_REFUSED}"
    )
    native.click(force=True)  # a click all the same changes nothing
    assert nb.print_value("s.settings.compaction") == "handoff"
    expect(section.locator("[data-testid='mw-compaction-page-handoff']")).to_be_visible()
    expect(section.locator("[data-testid='mw-compaction-page-native']")).to_be_hidden()

    # A threshold out of range is refused in its sentence; one in range is saved and marked on the ring.
    threshold = section.locator("[data-testid='mw-compaction-handoff_threshold']")
    expect(threshold).to_have_value("80")
    threshold.fill("120")
    threshold.press("Enter")
    expect(section.locator("[data-testid='mw-compaction-said-handoff_threshold']")).to_have_text(
        "Preference refused: handoff_threshold must be a whole number from 20 to 97 (percent of the window), not 120; "
        "nothing was changed."
    )
    expect(threshold).to_have_value("80")
    threshold.fill("75")
    threshold.press("Enter")
    expect(section.locator("[data-testid='mw-compaction-said-handoff_threshold']")).to_have_text(
        "Preferences saved: handoff_threshold 75."
    )
    expect(ring).to_have_attribute("data-compact-at", "75")
    assert nb.print_value("mw.preferences().handoff_threshold") == "75"
    # One unit everywhere: the file says what the ring and the box say.
    assert "handoff_threshold: 75" in nb.print_value("open('.mewrk/preferences.yaml').read()")

    # A model with a compaction of its own: native opens, with its page (threshold and kept messages).
    nb.run(VENDOR)  # changed from Python: the open section follows
    expect(native).not_to_be_disabled()
    expect(section.locator("[data-testid='mw-compaction-reason']")).to_have_text("")
    native.focus()
    page.keyboard.press("Enter")
    expect(native).to_have_attribute("aria-pressed", "true")
    expect(section.locator("[data-testid='mw-compaction-said-compaction']")).to_have_text(
        "Changed compaction 'handoff' → 'native'."
    )
    assert nb.print_value("s.settings.compaction") == "native"
    page_native = section.locator("[data-testid='mw-compaction-page-native']")
    expect(page_native).to_be_visible()
    expect(section.locator("[data-testid='mw-compaction-page-handoff']")).to_be_hidden()
    keep = page_native.locator("[data-testid='mw-compaction-keep_user_tokens']")
    expect(keep).to_have_value("64000")
    keep.fill("32000")
    keep.press("Enter")
    expect(section.locator("[data-testid='mw-compaction-said-keep_user_tokens']")).to_have_text(
        "Preferences saved: keep_user_tokens 32000."
    )
    expect(ring).to_have_attribute("data-compact-at", "90")  # the ring follows the mode
    keep.blur()
    path = lab.root / "compaction-light.png"
    section.scroll_into_view_if_needed()
    section.screenshot(path=str(path))
    keep_screenshot(path)

    try:
        switch_theme(page, "JupyterLab Dark")
        low = low_contrast(page, root)
        assert not low, "dark theme, under 4.5:1:\n" + "\n".join(low)
    finally:
        switch_theme(page, "JupyterLab Light")  # the theme is a user setting: later tests expect light
    assert not low_contrast(page, root)


CARDS = ATTACH + (
    "from mewrk_jupyter.cards.models import Handoff, NativeCompaction\n"
    "s = mw.Session.new(model='offline/tiny')  # an offline model without a compaction of its own\n"
    "s.send('hello', wait=True)\n"
    "s.stored_timeline.append(Handoff(text='# Goal\\n\\nFinish the **report**.'))\n"
    "s.stored_timeline.append(NativeCompaction(text='acme/big compacted the conversation · 91k → 12k tokens',"
    " encrypted='gAAAAB-opaque', kept=['newest question', 'an older question']))\n"
    "s.widget()"
)


def test_handoff_and_native_compaction_cards(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, CARDS)
    handoff = root.locator(".mw-card[data-kind='handoff']")
    expect(handoff.locator("[data-testid='mw-handoff'] h1")).to_have_text("Goal")
    expect(handoff.locator("[data-testid='mw-handoff'] strong")).to_have_text("report")
    expect(handoff.locator(".mw-label")).to_have_text("Handoff")

    native = root.locator(".mw-card[data-kind='native_compaction']")
    expect(native.locator("[data-testid='mw-native-line']")).to_have_text(
        "acme/big compacted the conversation · 91k → 12k tokens"
    )
    kept = native.locator("[data-testid='mw-native-kept'] li")
    expect(kept.first).to_be_hidden()  # folded until asked for
    native.locator("summary").click()
    expect(kept).to_have_text(["newest question", "an older question"])
    expect(native).not_to_contain_text("gAAAAB")
    expect(native.locator("[data-act='edit']")).to_have_count(0)

    native.focus()
    page.keyboard.press("Enter")  # an edit attempt from the keyboard: the reason, not an editor
    expect(native.locator(".mw-card-error")).to_have_text(
        "A native-compaction card carries the provider's encrypted item and cannot be edited."
    )
    expect(native.locator("textarea")).to_have_count(0)
    assert not low_contrast(page, root)  # the cards' lines, kept messages and the reason read well


def test_compact_now_from_the_rings_section_offers_the_new_session_and_opens_it(lab, page):
    nb = Notebook.open(page, lab)
    _, root = widget_cell(nb, SETUP)
    _, section = _open_section(root)
    now = section.locator("[data-testid='mw-compact-now']")
    said = section.locator("[data-testid='mw-compact-now-said']")
    now.focus()
    page.keyboard.press("Enter")  # from the keyboard
    expect(said).to_have_attribute("data-level", "info")
    expect(said).to_have_text(
        re.compile(r"^Compacted into a new session, untitled-handover-1\. Open it here$")
    )
    section.locator("[data-testid='mw-compact-now-open']").click()
    expect(root.locator(".mw-title")).to_contain_text("untitled-handover-1")
    expect(section).to_be_visible()
    expect(said).to_have_text("")  # what was said about the original goes with it
    # The new session's model has not replied since the compaction: closed, and a click says why.
    expect(now).to_have_attribute("aria-disabled", "true")
    now.click(force=True)
    expect(said).to_have_attribute("data-level", "error")
    expect(said).to_have_text(
        "The model has not replied since the last compaction, so there is nothing new to compact: send a "
        "message first."
    )
    assert nb.print_value("len(mw.list_sessions())") == "2"


def test_compact_now_in_native_mode_closes_with_the_reason_until_the_model_replies(lab, page):
    nb = Notebook.open(page, lab)
    code = ATTACH + (
        "import os, tempfile\n"
        "os.chdir(tempfile.mkdtemp(dir='.'))\n"
        "s = mw.Session.new(compaction='native')  # offline/echo compacts by itself\n"
        "s.send('hello', wait=True)\n"
        "s.widget()"
    )
    _, root = widget_cell(nb, code)
    _, section = _open_section(root)
    now = section.locator("[data-testid='mw-compact-now']")
    said = section.locator("[data-testid='mw-compact-now-said']")
    reason = section.locator("[data-testid='mw-compact-now-reason']")
    expect(reason).to_have_text("")
    now.click()
    expect(said).to_have_text(
        re.compile(r"^Compacted into a new session, untitled-handover-1\. Open it here$")
    )
    # The original stays as it was, and its model has not replied since: closed, with the reason.
    refused = (
        "The model has not replied since the last compaction, so there is nothing new to compact: send a "
        "message first."
    )
    expect(now).to_have_attribute("aria-disabled", "true")
    expect(reason).to_have_text(f"Compact now is not available: {refused}")
    now.focus()
    page.keyboard.press("Enter")  # still reached by the keyboard, which hears why
    expect(said).to_have_attribute("data-level", "error")
    expect(said).to_have_text(refused)
    assert nb.print_value("(len(s.handovers), len(mw.list_sessions()))") == "(1, 2)"
    # A reply since: Compact now opens again.
    box = root.locator("[data-testid='mw-input']")
    box.fill("and then?")
    box.press("Control+Enter")
    expect(root.locator(".mw-card[data-kind='model_reply']")).to_have_count(2)
    expect(section).to_be_visible()  # the panel stayed open, and follows the turn's end
    expect(reason).to_have_text("")
    expect(now).not_to_have_attribute("aria-disabled", "true")


def test_a_summary_is_read_and_edited_from_its_divider(lab, page):
    # C7: hidden by default, opened from the divider, corrected with the card's Edit.
    nb = Notebook.open(page, lab)
    code = ATTACH + (
        "s = mw.Session.new('offline/echo')\n"
        "for i in range(5):\n"
        "    s.send(f'question {i}\\nlong: 900', wait=True)\n"
        "d = s.compact(instructions='keep the question numbers')\n"
        "s.widget()"
    )
    _, root = widget_cell(nb, code)
    divider = root.locator(".mw-card[data-kind='summary_divider']")
    expect(divider.locator("[data-testid='mw-divider']")).to_contain_text("with instructions")
    summary = divider.locator("[data-testid='mw-summary']")
    expect(summary).to_be_hidden()
    divider.locator("summary").click()
    expect(summary).to_contain_text("question 0")
    expect(divider.locator("[data-testid='mw-summary-instructions']")).to_have_text(
        "Written with the instructions: keep the question numbers"
    )
    divider.hover()
    divider.locator("[data-act='edit']").click()
    area = divider.locator("textarea")
    expect(area).to_be_focused()
    area.fill("## Goal\n- the person counts questions")
    area.press("Control+Enter")
    expect(divider.locator("textarea")).to_have_count(0)
    assert nb.print_value("s.card(d.id).summary") == "## Goal\n- the person counts questions"
