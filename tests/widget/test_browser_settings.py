"""The settings panel in a real JupyterLab and Chromium: /settings opens it; a model switch reaches the
dashboard; a refusal shows its sentence beside the control; a preference reaches preferences.yaml; a refused
save marks its line; a conflict is resolved both ways; `%mewrk settings` opens it in a cell."""

from __future__ import annotations

from playwright.sync_api import expect

from .notebook import ATTACH, Notebook
from .test_browser_look import keep_screenshot, low_contrast, switch_theme

SETUP = ATTACH + (
    "import os, tempfile\n"
    "os.chdir(tempfile.mkdtemp(dir='.'))  # a workspace of its own: its .mewrk is this test's alone\n"
    "mw.SettingsEditor().create('agents/main.yaml', 'model: offline/echo\\n')\n"
    "%load_ext mewrk_jupyter"
)
FILE = ".mewrk/agents/main.yaml"


def _open_settings(nb: Notebook):
    nb.run(SETUP)
    cell = nb.run("%mewrk new")
    root = cell.locator(".mw-root")
    expect(root).to_be_visible()
    box = root.locator("[data-testid='mw-input']")
    box.click()
    box.press_sequentially("/settings")
    box.press("Enter")
    panel = root.locator("[data-testid='mw-panel'][data-panel='settings']")
    expect(panel).to_be_visible()
    expect(panel.locator("[data-testid='mw-setting-model']")).to_have_value("offline/echo")
    return root, panel


def _open_main_agent_file(panel):
    """Click agents/main.yaml in the panel's file list; its text in the editor, which has the focus."""
    panel.locator("[data-testid='mw-config-file'] button", has_text="agents/main.yaml").click()
    area = panel.locator("[data-testid='mw-config-text']")
    # The file's text arrives from the kernel; a key pressed before then lands in the notebook, as it
    # would for a person who typed before the editor appeared.
    expect(area).to_have_value("model: offline/echo\n")
    expect(area).to_be_focused()
    return area


def test_settings_panel_switches_the_model_refuses_in_words_and_sets_a_preference(lab, page):
    nb = Notebook.open(page, lab)
    root, panel = _open_settings(nb)
    nb.run("s = mw.magics.current_session()")

    model = panel.locator("[data-testid='mw-setting-model']")
    model.focus()
    model.select_option("offline/thinker")
    expect(root.locator("[data-testid='mw-dashboard']")).to_contain_text("offline/thinker")
    expect(panel.locator("[data-testid='mw-settings-status']")).to_have_text(
        "Changed model 'offline/echo' → 'offline/thinker'."
    )
    assert nb.print_value("s.settings.model") == "offline/thinker"

    background = panel.locator("[data-testid='mw-setting-async_tools']")
    background.focus()
    page.keyboard.press("Space")  # keyboard only: a person tabs to the switch and presses Space
    expect(panel.locator("[data-testid='mw-setting-said-async_tools']")).to_contain_text(
        "async_tools needs a model that takes async tool calls"  # offline/thinker does not
    )
    expect(background).not_to_be_checked()  # nothing changed, and the switch says so
    assert nb.print_value("s.settings.async_tools") == "False"

    plan = panel.locator("[data-testid='mw-setting-plan_mode']")
    plan.focus()
    page.keyboard.press("Space")  # plan mode acts: the setting is on and the model is told so
    expect(plan).to_be_checked()
    assert nb.print_value("s.settings.plan_mode") == "True"
    assert nb.print_value("s.cards[-1].text.split(':')[0]") == "Plan mode is on"

    threshold = panel.locator("[data-testid='mw-setting-handoff_threshold']")
    threshold.fill("2")
    threshold.press("Enter")
    threshold.blur()
    expect(panel.locator("[data-testid='mw-setting-said-handoff_threshold']")).to_have_text(
        "Preference refused: handoff_threshold must be a whole number from 20 to 97 (percent of the window), not 2; nothing was changed."
    )
    expect(threshold).to_have_value("80")

    panel.locator("[data-testid='mw-setting-confirm_delete']").check()
    expect(panel.locator("[data-testid='mw-settings-status']")).to_have_text(
        "Preferences saved: confirm_delete true."
    )
    assert nb.print_value("open('.mewrk/preferences.yaml').read().strip()") == "confirm_delete: true"


def test_settings_panel_edits_a_file_marks_the_refused_line_and_resolves_conflicts(lab, page):
    nb = Notebook.open(page, lab)
    root, panel = _open_settings(nb)
    area = _open_main_agent_file(panel)

    area.press("ControlOrMeta+End")
    area.press_sequentially("tools: [ls\nx: 1\n")
    area.press("ControlOrMeta+s")
    problems = panel.locator("[data-testid='mw-config-problems']")
    expect(problems).to_contain_text("agents/main.yaml: YAML syntax error at line 3, column 2")
    expect(panel.locator("[data-testid='mw-gutter'] .mw-gutter-error")).to_have_text("3")
    expect(area).to_have_value("model: offline/echo\ntools: [ls\nx: 1\n")  # the person's text stays
    assert nb.print_value(f"open({FILE!r}).read()") == "model: offline/echo"

    # Another window changes the file; this panel's save meets the conflict and abandons its text.
    area.fill("model: offline/tiny\n")
    nb.run(f"open({FILE!r}, 'w').write('model: offline/big\\n')")
    panel.locator("[data-testid='mw-config-save']").click()
    dialog = panel.locator("[data-testid='mw-config-conflict']")
    expect(dialog).to_be_visible()
    expect(dialog).to_contain_text("agents/main.yaml changed on disk since you read it")
    expect(dialog.locator("[data-testid='mw-config-abandon']")).to_be_focused()
    page.keyboard.press("Enter")  # "Abandon my changes", from the keyboard
    expect(area).to_have_value("model: offline/big\n")
    expect(dialog).to_be_hidden()

    # Again, and this time the panel's text wins.
    area.fill("model: offline/tiny\n")
    nb.run(f"open({FILE!r}, 'w').write('model: offline/slow\\n')")
    panel.locator("[data-testid='mw-config-save']").click()
    expect(dialog).to_be_visible()
    dialog.locator("[data-testid='mw-config-overwrite']").click()
    expect(dialog).to_be_hidden()
    expect(panel.locator("[data-testid='mw-settings-status']")).to_contain_text("Saved agents/main.yaml")
    assert nb.print_value(f"open({FILE!r}).read()") == "model: offline/tiny"

    # A new file is created through the same checks, then deleted with the version it was saved at.
    new_path = panel.locator("[data-testid='mw-config-new-path']")
    new_path.fill("prompts/extra.yaml")
    new_path.press("Enter")
    expect(area).to_be_focused()
    expect(area).to_have_value("")
    area.press_sequentially("handoff.armed_notice: Soon.\n")
    area.press("ControlOrMeta+s")
    status = panel.locator("[data-testid='mw-settings-status']")
    expect(status).to_have_text("Created prompts/extra.yaml; it is used from the next request on.")
    expect(panel.locator("[data-testid='mw-config-file']")).to_have_count(2)
    panel.locator("[data-testid='mw-config-delete']").click()
    expect(status).to_have_text("Deleted prompts/extra.yaml.")
    expect(panel.locator("[data-testid='mw-config-file']")).to_have_count(1)
    assert nb.print_value("os.path.exists('.mewrk/prompts/extra.yaml')") == "False"

    # `%mewrk settings` shows the session's view with its panel open.
    cell = nb.run("%mewrk settings")
    expect(cell.locator(".mw-root [data-testid='mw-panel'][data-panel='settings']")).to_be_visible()
    expect(cell.locator("[data-testid='mw-config-file']")).to_contain_text(["agents/main.yaml"])


def test_ctrl_enter_saves_the_file_in_the_settings_editor(lab, page):
    nb = Notebook.open(page, lab)
    _, panel = _open_settings(nb)
    area = _open_main_agent_file(panel)
    page.keyboard.press("ControlOrMeta+End")
    page.keyboard.type("system_prompt: Be brief.")
    page.keyboard.press("Enter")  # Enter makes a new line, as in every text box of the widget
    page.keyboard.type("tools: [ls]")
    page.keyboard.press("Control+Enter")
    expect(panel.locator("[data-testid='mw-settings-status']")).to_contain_text("Saved agents/main.yaml")
    saved = "model: offline/echo\nsystem_prompt: Be brief.\ntools: [ls]"
    expect(area).to_have_value(saved)
    assert nb.print_value(f"open({FILE!r}).read()") == saved


def test_settings_panel_reads_well_in_the_dark_theme(lab, page):
    nb = Notebook.open(page, lab)
    root, panel = _open_settings(nb)
    area = _open_main_agent_file(panel)
    area.press("ControlOrMeta+End")
    area.press_sequentially("summarize_at: 3\n")
    area.press("ControlOrMeta+s")
    expect(panel.locator("[data-testid='mw-gutter'] .mw-gutter-error")).to_have_text("2")
    expect(panel.locator("[data-testid='mw-config-problems']")).to_have_text(
        "Line 2: agents/main.yaml: summarize_at must be 0 (never by itself) or a whole number from 5 to 100 (percent of the window), not 3"
    )
    panel.locator("[data-testid='mw-setting-async_tools']").click()  # refused: it stays off
    expect(panel.locator("[data-testid='mw-setting-said-async_tools']")).to_contain_text(
        "needs a model that takes async"
    )
    try:
        switch_theme(page, "JupyterLab Dark")
        low = low_contrast(page, root)
        assert not low, "dark theme, under 4.5:1:\n" + "\n".join(low)
        path = lab.root / "settings-dark.png"
        panel.scroll_into_view_if_needed()
        panel.screenshot(path=str(path))
        keep_screenshot(path)
    finally:
        switch_theme(page, "JupyterLab Light")  # the theme is a user setting: later tests expect light
