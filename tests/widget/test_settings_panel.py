"""The settings panel, kernel side: /settings opens it, and each change goes through the engine's own
gates (Session.configure, mw.set_preferences, mw.SettingsEditor) with the engine's sentence on a refusal."""

from __future__ import annotations

import mewrk_jupyter as mw
from mewrk_jupyter.commands import COMMANDS
from mewrk_jupyter.magics import show
from tests.providers.vendors import write_vendor


def _panel(result: dict) -> dict:
    return result["data"]["settings"]["panel"]


def test_slash_settings_opens_the_panel_and_the_panel_reads_three_sections(session, widget):
    widget.hello()
    opened = widget.do("command", text="/settings")
    assert opened["ok"] and opened["data"]["open"] == "settings" and opened["message"] == ""
    assert "settings" in {c["name"] for c in widget.of("snapshot")[0]["commands"]}
    panel = _panel(widget.do("settings"))
    settings = panel["settings"]
    assert settings["model"] == session.settings.model == "offline/echo"
    assert "offline/thinker" in settings["choices"]["model"]
    assert settings["choices"]["compaction"] == ["handoff", "native"]
    assert settings["choices"]["host_container"] == ["user_message", "box_tool_result"]
    assert [p["name"] for p in panel["preferences"]] == [
        "confirm_delete",
        "auto_compaction",
        "handoff_threshold",
        "native_threshold",
        "keep_user_tokens",
    ]
    assert panel["folder"] == str(session.workspace.home) and panel["files"] == []


def test_the_model_picker_offers_the_configured_vendors_models(session, widget):
    write_vendor(
        session.workspace.root,
        "acme",
        "openai-chat",
        "http://127.0.0.1:9",
        "  m1: {context_window: 1000}\n",
        "ACME_KEY",
    )
    choices = _panel(widget.do("settings"))["settings"]["choices"]["model"]
    assert choices[0] == "acme/m1" and "offline/echo" in choices


def test_a_model_switch_is_configured_and_the_views_get_the_new_model(session, widget):
    widget.hello()
    widget.sent.clear()
    done = widget.do("configure", changes={"model": "offline/thinker"})
    assert done["ok"] and done["message"] == "Changed model 'offline/echo' → 'offline/thinker'."
    assert session.settings.model == "offline/thinker"
    assert _panel(done)["settings"]["model"] == "offline/thinker"
    snapshot = widget.of("snapshot")[-1]  # every view: the header and the dashboard follow
    assert snapshot["session"]["model"] == "offline/thinker"
    assert "offline/thinker" in snapshot["context"]["line"]


def test_a_refused_setting_is_the_engines_sentence_and_nothing_changes(session, widget):
    before = session.settings
    refused = widget.do("configure", changes={"async_tools": True})
    assert not refused["ok"]
    assert refused["message"].startswith(
        "async_tools needs a model that takes async tool calls (a background result becomes the output of "
        "the call that started it, later), and `offline/echo` does not"
    )
    refused = widget.do("configure", changes={"safety_level": "paranoid"})
    assert (
        refused["message"]
        == "There is no safety level `paranoid`: `.mewrk/policy/paranoid.yaml` does not exist."
    )
    assert session.settings == before


def test_a_setting_changed_while_a_turn_runs_is_refused_like_an_edit(session, widget):
    session.configure(model="offline/slow")
    run = session.send("a long answer please " * 20, wait=False)
    try:
        refused = widget.do("configure", changes={"model": "offline/echo"})
        assert not refused["ok"] and refused["while_state"] == "running"
        assert "running" in refused["message"]
        assert session.settings.model == "offline/slow"
    finally:
        session.stop()
        run.wait()


def test_preferences_are_set_through_set_preferences_and_refusals_change_nothing(session, widget):
    done = widget.do("set_preferences", changes={"confirm_delete": True})
    assert done["ok"] and mw.preferences(workspace=session.workspace.root).confirm_delete is True
    assert "confirm_delete: true" in (session.workspace.home / "preferences.yaml").read_text()
    assert _panel(done)["preferences"][0] == {
        "name": "confirm_delete",
        "value": True,
        "allowed": "true or false",
        "kind": "switch",
        "low": None,
        "high": None,
        "step": None,
    }
    text = (session.workspace.home / "preferences.yaml").read_bytes()
    refused = widget.do("set_preferences", changes={"handoff_threshold": 2})
    assert refused["message"] == (
        "Preference refused: handoff_threshold must be a whole number from 20 to 97 (percent of the window), not 2; nothing was changed."
    )
    assert (session.workspace.home / "preferences.yaml").read_bytes() == text


def test_a_file_is_created_read_and_saved_and_a_refused_save_names_its_line(session, widget):
    created = widget.do("config_create", path="agents/main.yaml", text="model: offline/echo\n")
    assert (
        created["ok"]
        and created["message"] == "Created agents/main.yaml; it is used from the next request on."
    )
    assert [f["path"] for f in _panel(created)["files"]] == ["agents/main.yaml"]
    read = widget.do("config_read", path="agents/main.yaml")["data"]["settings"]["file"]
    assert read["text"] == "model: offline/echo\n" and not read["read_only"]
    on_disk = (session.workspace.home / "agents/main.yaml").read_bytes()
    refused = widget.do(
        "config_save", path="agents/main.yaml", text="model: offline/echo\nx: [1\n", version=read["version"]
    )
    assert not refused["ok"]
    assert refused["message"].startswith("agents/main.yaml: YAML syntax error at line 3, column 1")
    problems = refused["data"]["settings"]["problems"]
    assert [(p["line"], p["column"]) for p in problems] == [(3, 1)]
    assert (session.workspace.home / "agents/main.yaml").read_bytes() == on_disk  # byte-identical
    schema = widget.do(
        "config_save",
        path="agents/main.yaml",
        text="model: offline/echo\nsummarize_at: 3\n",
        version=read["version"],
    )
    assert schema["data"]["settings"]["problems"][0]["line"] == 2
    assert (
        schema["message"]
        == "agents/main.yaml: summarize_at must be 0 (never by itself) or a whole number from 5 to 100 (percent of the window), not 3"
    )
    saved = widget.do(
        "config_save", path="agents/main.yaml", text="model: offline/thinker\n", version=read["version"]
    )
    assert saved["ok"] and saved["data"]["settings"]["file"]["version"] != read["version"]


def test_a_conflict_carries_the_current_version_and_both_ways_out_work(session, widget):
    widget.do("config_create", path="agents/main.yaml", text="model: offline/echo\n")
    version = widget.do("config_read", path="agents/main.yaml")["data"]["settings"]["file"]["version"]
    (session.workspace.home / "agents/main.yaml").write_text("model: offline/big\n")  # another window
    conflict = widget.do(
        "config_save", path="agents/main.yaml", text="model: offline/tiny\n", version=version
    )
    assert not conflict["ok"] and conflict["data"]["settings"]["conflict"] is True
    assert conflict["message"].startswith("agents/main.yaml changed on disk since you read it")
    current = widget.do("config_read", path="agents/main.yaml")["data"]["settings"]["file"]  # abandon
    assert current["text"] == "model: offline/big\n"
    assert conflict["data"]["settings"]["current_version"] == current["version"]
    over = widget.do(
        "config_save", path="agents/main.yaml", text="model: offline/tiny\n", version=version, overwrite=True
    )
    assert over["ok"] and (session.workspace.home / "agents/main.yaml").read_text() == "model: offline/tiny\n"


def test_server_files_are_listed_read_only_and_delete_goes_through_the_version(session, widget):
    server = session.workspace.home / "server"
    server.mkdir(parents=True)
    (server / "main.yaml").write_text("port: 1\n")
    files = {f["path"]: f for f in _panel(widget.do("settings"))["files"]}
    assert files["server/main.yaml"]["read_only"] and "restart" in files["server/main.yaml"]["reason"]
    refused = widget.do("config_save", path="server/main.yaml", text="port: 2\n", version=None)
    assert refused["message"].startswith("server/main.yaml is read-only in the settings editor")
    made = widget.do("config_create", path="prompts/extra.yaml", text="handoff.armed_notice: Soon.\n")
    assert made["ok"], made["message"]
    stale = widget.do("config_delete", path="prompts/extra.yaml", version="0" * 64)
    assert not stale["ok"] and stale["data"]["settings"]["conflict"] is True
    assert (session.workspace.home / "prompts/extra.yaml").exists()
    version = widget.do("config_read", path="prompts/extra.yaml")["data"]["settings"]["file"]["version"]
    gone = widget.do("config_delete", path="prompts/extra.yaml", version=version)
    assert gone["ok"] and not (session.workspace.home / "prompts/extra.yaml").exists()


def test_percent_mewrk_settings_shows_the_three_layers_in_a_terminal(session, capsys):
    result = COMMANDS["settings"].run(mw_call(session))
    assert result.show == "settings"
    show(None, "settings", session)  # no kernel: Markdown
    out = capsys.readouterr().out
    assert "Conversation settings" in out and "Preferences" in out and "Configuration files" in out


def mw_call(session: mw.Session):
    from mewrk_jupyter.commands import Call

    return Call("settings", session)


def test_switching_the_container_in_the_panel_warns_of_the_cache_and_replays_the_host_messages(
    session, widget
):
    session.configure(plan_mode=True)  # a host message on the timeline: the guidance
    session.send("plan it")
    guidance = next(c for c in session.cards if c.kind == "host_message")
    done = widget.do("configure", changes={"host_container": "box_tool_result"})
    assert done["ok"] and done["message"] == (
        "Changed host_container 'user_message' → 'box_tool_result'. Every earlier host message goes in the "
        "new container from the next request on, so the prompt cache starts over."
    )
    session.send("go on")
    request = session.history[-1].request
    assert [t["name"] for t in request["tools"]][-1] == "box"
    box_calls = [
        part for message in request["messages"] for part in message["parts"] if part["type"] == "tool_use"
    ]
    assert box_calls == [{"type": "tool_use", "id": f"toolu_box_{guidance.id}", "name": "box", "input": {}}]
    sent = [m["parts"] for m in request["messages"] if m["role"] == "user"]
    assert "<system-reminder>" not in str(sent)
