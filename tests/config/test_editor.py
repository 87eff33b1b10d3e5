"""The settings editor (S1–S5): what it lists, and every gate a save, a create or a delete passes before
anything is written — syntax, schema, secrets, path, read-only, and the version check between editors."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.config import InvalidConfig
from tests.conftest import run_python

AGENT = "model: offline/echo\n"
GREP = """\
name: grep2
description: Search files for a pattern.
command: [grep, -rn, "{pattern}", .]
parameters:
  type: object
  properties: {pattern: {type: string}}
  required: [pattern]
"""
VENDOR = (
    "protocol: openai-chat\nbase_url: http://127.0.0.1:9/v1\napi_key: ${EDITOR_TEST_KEY}\nmodels: {m: {}}\n"
)
LITERAL = "api_key must be a reference, not a literal"


def put(workspace: Path, rel: str, text: str) -> Path:
    path = workspace / ".mewrk" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def snapshot(path: Path) -> tuple[bytes, int, int]:
    """The bytes, the modification time and the inode: a refused save changes none of them."""
    stat = path.stat()
    return path.read_bytes(), stat.st_mtime_ns, stat.st_ino


def leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


# ---- S1, S2: what the editor lists and reads ----------------------------------------------------------


def test_s1_files_lists_every_folder_and_preferences_with_server_read_only(workspace):
    for rel in (
        "llm/o.yaml",
        "agents/main.yaml",
        "policy/careful.yaml",
        "tools/grep2.yaml",
        "prompts/default.yaml",
    ):
        put(workspace, rel, "x: 1\n")  # listed whatever it holds: the editor is where a broken file is fixed
    put(workspace, "server/main.yaml", "port: 8888\n")
    put(workspace, "preferences.yaml", "confirm_delete: true\n")
    put(workspace, "agents/.main.yaml.swp", "")  # hidden files and non-YAML files are not listed
    put(workspace, "agents/notes.txt", "")
    files = mw.SettingsEditor().files()
    assert [(f.path, f.kind, f.read_only) for f in files] == [
        ("preferences.yaml", "preferences", False),
        ("llm/o.yaml", "llm", False),
        ("agents/main.yaml", "agents", False),
        ("policy/careful.yaml", "policy", False),
        ("tools/grep2.yaml", "tools", False),
        ("prompts/default.yaml", "prompts", False),
        ("server/main.yaml", "server", True),
    ]
    assert all(f.reason is None for f in files[:-1])
    assert files[-1].reason == (
        "server/ is read once when the Jupyter server starts and is not reloaded, so it is changed by hand "
        "and takes effect after a restart"
    )


def test_files_of_a_workspace_without_configuration_is_empty(workspace):
    assert mw.SettingsEditor().files() == []
    assert mw.SettingsEditor(workspace=workspace).home == workspace / ".mewrk"


def test_read_gives_the_text_and_a_version_that_changes_with_the_bytes(workspace):
    path = put(workspace, "agents/main.yaml", AGENT)
    editor = mw.SettingsEditor()
    text, version = editor.read("agents/main.yaml")
    assert text == AGENT
    assert editor.read("agents/main.yaml").version == version  # the same bytes, the same version
    path.write_text(AGENT + "# a comment\n")
    assert editor.read("agents/main.yaml").version != version
    assert editor.read("agents/main.yaml").text.endswith("# a comment\n")
    with pytest.raises(mw.ConfigError, match=r"^agents/other.yaml does not exist; create it with create"):
        editor.read("agents/other.yaml")


def test_s2_server_files_are_read_but_never_changed(workspace):
    path = put(workspace, "server/main.yaml", "port: 8888\n")
    before = snapshot(path)
    editor = mw.SettingsEditor()
    text, version = editor.read("server/main.yaml")
    assert text == "port: 8888\n"
    sentence = (
        "server/main.yaml is read-only in the settings editor: server/ is read once when the Jupyter server "
        "starts and is not reloaded, so it is changed by hand and takes effect after a restart."
    )
    for change in (
        lambda: editor.save("server/main.yaml", "port: 9999\n", version),
        lambda: editor.save("server/main.yaml", "port: 9999\n", version, overwrite=True),
        lambda: editor.delete("server/main.yaml", version),
        lambda: editor.create("server/other.yaml", "port: 1\n"),
    ):
        with pytest.raises(mw.ConfigError) as err:
            change()
        assert str(err.value) in (sentence, sentence.replace("main.yaml", "other.yaml", 1))
    assert snapshot(path) == before
    assert not (workspace / ".mewrk/server/other.yaml").exists()


# ---- the gates of a save: syntax, schema, secrets ------------------------------------------------------


def test_a_syntax_error_is_refused_with_its_line_and_column_and_the_file_is_untouched(workspace):
    path = put(workspace, "agents/main.yaml", AGENT)
    before = snapshot(path)
    editor = mw.SettingsEditor()
    version = editor.read("agents/main.yaml").version
    with pytest.raises(InvalidConfig) as err:
        editor.save(
            "agents/main.yaml", "model: offline/echo\ntools: [read, grep\nsummarize_at: 0.5\n", version
        )
    (problem,) = err.value.problems
    assert problem.line == 3
    assert str(err.value).startswith("agents/main.yaml: YAML syntax error at line 3, column 13: ")
    assert snapshot(path) == before
    assert leftovers(path.parent) == []  # no temp file left behind either


def test_a_file_without_content_is_refused_naming_the_fields_it_needs(workspace):
    path = put(workspace, "agents/main.yaml", AGENT)
    before = snapshot(path)
    editor = mw.SettingsEditor()
    version = editor.read("agents/main.yaml").version
    for text in ("", "# only a comment\n"):
        with pytest.raises(InvalidConfig) as err:
            editor.save("agents/main.yaml", text, version)
        assert str(err.value) == (
            "agents/main.yaml: the file holds no YAML content (empty or only comments); agent 'main' lacks "
            "'model' (optional: summarize_at, tools, safety_level, system_prompt, skills)"
        )
    assert snapshot(path) == before


def test_under_tools_the_refusal_names_which_tool_lacks_what(workspace):
    editor = mw.SettingsEditor()
    with pytest.raises(InvalidConfig) as err:
        editor.create("tools/grep2.yaml", "name: grep2\ndescription: Search.\n")
    assert [p.message for p in err.value.problems] == [
        "tool 'grep2' lacks 'command'",
        "tool 'grep2' lacks 'parameters'",
    ]
    with pytest.raises(
        InvalidConfig, match=r"tool 'grep2' lacks 'name', 'description', 'command', 'parameters'"
    ):
        editor.create("tools/grep2.yaml", "# to do\n")
    assert not (workspace / ".mewrk/tools/grep2.yaml").exists()


def test_a_schema_error_names_the_field_and_its_line(workspace):
    path = put(workspace, "agents/main.yaml", AGENT)
    before = snapshot(path)
    editor = mw.SettingsEditor()
    version = editor.read("agents/main.yaml").version
    with pytest.raises(InvalidConfig) as err:
        editor.save("agents/main.yaml", "model: offline/echo\nsystem_prompt: [a, b]\n", version)
    (problem,) = err.value.problems
    assert (problem.field, problem.line, problem.message) == (
        "system_prompt",
        2,
        "system_prompt must be text",
    )
    assert snapshot(path) == before


def test_s3_a_literal_key_is_refused_with_exactly_the_sentence_and_never_quoted(workspace):
    path = put(workspace, "llm/o.yaml", VENDOR)
    before = snapshot(path)
    editor = mw.SettingsEditor()
    version = editor.read("llm/o.yaml").version
    literal = VENDOR.replace("${EDITOR_TEST_KEY}", "sk-live-123456")
    for attempt in (
        lambda: editor.save("llm/o.yaml", literal, version),
        lambda: editor.save("llm/o.yaml", literal, version, overwrite=True),
        lambda: editor.create("llm/other.yaml", literal),
    ):
        with pytest.raises(InvalidConfig) as err:
            attempt()
        assert [p.message for p in err.value.problems] == [LITERAL]
        assert "sk-live-123456" not in str(err.value)
    assert snapshot(path) == before
    assert not (workspace / ".mewrk/llm/other.yaml").exists()


def test_preferences_yaml_is_saved_through_its_own_check(workspace):
    path = put(workspace, "preferences.yaml", "confirm_delete: false\n")
    editor = mw.SettingsEditor()
    version = editor.read("preferences.yaml").version
    before = snapshot(path)
    with pytest.raises(InvalidConfig, match=r"^preferences.yaml: YAML syntax error at line 1"):
        editor.save("preferences.yaml", "confirm_delete: true: false\n", version)
    with pytest.raises(InvalidConfig, match=r"^preferences.yaml: the file must be a mapping"):
        editor.save("preferences.yaml", "- confirm_delete\n", version)
    assert snapshot(path) == before
    saved = editor.save("preferences.yaml", "confirm_delete: true\n", version)
    assert path.read_text() == "confirm_delete: true\n" and saved.notice is None


# ---- S5: two editors on one file ----------------------------------------------------------------------


def test_s5_the_second_editor_of_a_file_gets_a_conflict_carrying_the_current_version(workspace):
    path = put(workspace, "agents/main.yaml", AGENT)
    first, second = mw.SettingsEditor(), mw.SettingsEditor()
    _, version = first.read("agents/main.yaml")
    assert second.read("agents/main.yaml").version == version
    saved = first.save("agents/main.yaml", "model: offline/thinker\n", version)
    assert saved.version == first.read("agents/main.yaml").version != version
    with pytest.raises(mw.ConfigConflict) as err:
        second.save("agents/main.yaml", "model: offline/echo\nsystem_prompt: Mine.\n", version)
    assert isinstance(err.value, mw.ConfigError)
    assert err.value.current_version == saved.version
    assert str(err.value) == (
        "agents/main.yaml changed on disk since you read it (in another window, an editor or git), so it "
        "was not saved; read it again to see the change, or pass overwrite=True to replace it."
    )
    assert path.read_text() == "model: offline/thinker\n"  # the first editor's text stands
    # Overwriting is the explicit choice; saving again from the current version is the other one.
    second.save("agents/main.yaml", "model: offline/echo\nsystem_prompt: Mine.\n", version, overwrite=True)
    assert path.read_text() == "model: offline/echo\nsystem_prompt: Mine.\n"


def test_s5_a_change_by_another_program_or_a_deletion_is_a_conflict_too(workspace):
    path = put(workspace, "agents/main.yaml", AGENT)
    editor = mw.SettingsEditor()
    version = editor.read("agents/main.yaml").version
    path.write_text("model: offline/thinker\n")  # an editor or `git checkout`, outside the settings editor
    with pytest.raises(mw.ConfigConflict) as err:
        editor.save("agents/main.yaml", AGENT + "system_prompt: Hi.\n", version)
    assert err.value.current_version == editor.read("agents/main.yaml").version
    assert path.read_text() == "model: offline/thinker\n"
    path.unlink()
    with pytest.raises(mw.ConfigConflict, match=r"^agents/main.yaml was deleted since you read it") as gone:
        editor.save("agents/main.yaml", AGENT, version)
    assert gone.value.current_version is None and not path.exists()
    editor.save("agents/main.yaml", AGENT, version, overwrite=True)
    assert path.read_text() == AGENT


def test_s5_of_many_editors_saving_from_one_version_exactly_one_wins(workspace):
    path = put(workspace, "agents/main.yaml", AGENT)
    version = mw.SettingsEditor().read("agents/main.yaml").version
    outcomes: list[str] = []
    start = threading.Barrier(8)

    def save(index: int) -> None:
        start.wait()
        try:
            mw.SettingsEditor().save(
                "agents/main.yaml", f"model: offline/echo\nsystem_prompt: '{index}'\n", version
            )
            outcomes.append(f"saved {index}")
        except mw.ConfigConflict:
            outcomes.append("conflict")

    threads = [threading.Thread(target=save, args=(i,)) for i in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    (winner,) = [o for o in outcomes if o.startswith("saved")]
    assert outcomes.count("conflict") == 7
    assert path.read_text() == f"model: offline/echo\nsystem_prompt: '{winner.split()[1]}'\n"


def test_s5_an_editor_in_another_process_is_a_conflict(workspace):
    path = put(workspace, "agents/main.yaml", AGENT)
    editor = mw.SettingsEditor()
    version = editor.read("agents/main.yaml").version
    done = run_python(
        f"""
        import mewrk_jupyter as mw
        ed = mw.SettingsEditor()
        print(ed.save("agents/main.yaml", "model: offline/thinker\\n", {version!r}).version)
        """,
        cwd=workspace,
    )
    assert done.returncode == 0, done.stderr
    with pytest.raises(mw.ConfigConflict) as err:
        editor.save("agents/main.yaml", AGENT + "system_prompt: Hi.\n", version)
    assert err.value.current_version == done.stdout.strip()
    assert path.read_text() == "model: offline/thinker\n"


def test_a_save_replaces_the_file_at_once_keeping_its_mode(workspace):
    path = put(workspace, "agents/main.yaml", AGENT)
    path.chmod(0o640)
    inode = path.stat().st_ino
    editor = mw.SettingsEditor()
    editor.save("agents/main.yaml", "model: offline/thinker\n", editor.read("agents/main.yaml").version)
    assert path.stat().st_ino != inode  # a new file renamed over the old one, never half written
    assert path.stat().st_mode & 0o777 == 0o640
    assert leftovers(path.parent) == []


# ---- create and delete ---------------------------------------------------------------------------------


def test_create_makes_the_folder_and_refuses_an_existing_file_or_its_twin(workspace):
    editor = mw.SettingsEditor()
    made = editor.create("agents/reviewer.yaml", AGENT)
    path = workspace / ".mewrk/agents/reviewer.yaml"
    assert path.read_text() == AGENT and made.version == editor.read("agents/reviewer.yaml").version
    before = snapshot(path)
    with pytest.raises(
        mw.ConfigConflict, match=r"^agents/reviewer.yaml exists already, so it was not created"
    ) as err:
        editor.create("agents/reviewer.yaml", "model: offline/thinker\n")
    assert err.value.current_version == made.version
    with pytest.raises(
        mw.ConfigError, match=r"agents/reviewer.yaml exists already and a file is kept as \.yaml"
    ):
        editor.create("agents/reviewer.yml", "model: offline/thinker\n")
    assert snapshot(path) == before and not path.with_suffix(".yml").exists()
    assert [f.path for f in editor.files()] == ["agents/reviewer.yaml"]


def test_saving_from_no_version_makes_a_missing_file_but_not_over_an_existing_one(workspace):
    editor = mw.SettingsEditor()
    made = editor.save("agents/new.yaml", AGENT, None)  # the version of a file that does not exist
    path = workspace / ".mewrk/agents/new.yaml"
    assert path.read_text() == AGENT and made.version == editor.read("agents/new.yaml").version
    with pytest.raises(mw.ConfigConflict) as err:
        editor.save("agents/new.yaml", "model: offline/thinker\n", None)
    assert err.value.current_version == made.version and path.read_text() == AGENT


def test_delete_needs_the_current_version(workspace):
    path = put(workspace, "agents/reviewer.yaml", AGENT)
    editor = mw.SettingsEditor()
    version = editor.read("agents/reviewer.yaml").version
    path.write_text("model: offline/thinker\n")
    with pytest.raises(
        mw.ConfigConflict, match=r"changed on disk since you read it .* so it was not deleted"
    ):
        editor.delete("agents/reviewer.yaml", version)
    assert path.exists()
    current = editor.read("agents/reviewer.yaml").version
    assert editor.delete("agents/reviewer.yaml", current).version is None
    assert not path.exists()
    with pytest.raises(mw.ConfigConflict, match=r"^agents/reviewer.yaml does not exist any more"):
        editor.delete("agents/reviewer.yaml", current)


# ---- paths that leave the configuration folder ---------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "sentence"),
    [
        ("/etc/passwd", "/etc/passwd is an absolute path; give the path inside the configuration folder"),
        ("../notes.yaml", "../notes.yaml uses '..'; give the path inside the configuration folder"),
        ("agents/../../x.yaml", "agents/../../x.yaml uses '..'"),
        (
            "agents/sub/x.yaml",
            "agents/sub/x.yaml is not a configuration file: the editor knows NAME.yaml files",
        ),
        ("mewrk.db", "mewrk.db is not a configuration file"),
        ("agents/main.txt", "agents/main.txt is not a configuration file"),
        ("", "A configuration file is named by its path, like agents/main.yaml; got ''."),
    ],
)
def test_a_path_outside_the_known_folders_is_refused_with_a_sentence(workspace, path, sentence):
    editor = mw.SettingsEditor()
    for attempt in (
        lambda: editor.read(path),
        lambda: editor.save(path, AGENT, None, overwrite=True),
        lambda: editor.create(path, AGENT),
        lambda: editor.delete(path, None, overwrite=True),
    ):
        with pytest.raises(mw.ConfigError) as err:
            attempt()
        assert str(err.value).startswith(sentence)
    assert sorted(p.name for p in workspace.iterdir()) in ([], [".mewrk"])


def test_a_symbolic_link_out_of_the_folder_is_refused_and_its_target_untouched(workspace, tmp_path):
    outside = tmp_path / "outside"
    outside.mkdir()
    secret = outside / "main.yaml"
    secret.write_text(AGENT)
    before = snapshot(secret)
    (workspace / ".mewrk/agents").mkdir(parents=True)
    os.symlink(secret, workspace / ".mewrk/agents/main.yaml")
    os.symlink(outside, workspace / ".mewrk/tools")  # a whole folder linked out
    editor = mw.SettingsEditor()
    escape = (
        "leads outside the configuration folder through a symbolic link, so the editor does not touch it."
    )
    for rel in ("agents/main.yaml", "tools/main.yaml"):
        for attempt in (
            lambda rel=rel: editor.read(rel),
            lambda rel=rel: editor.save(rel, "model: offline/thinker\n", None, overwrite=True),
            lambda rel=rel: editor.delete(rel, None, overwrite=True),
        ):
            with pytest.raises(mw.ConfigError) as err:
                attempt()
            assert str(err.value) == f"{rel} {escape}"
    with pytest.raises(mw.ConfigError, match="leads outside"):
        editor.create("tools/grep2.yaml", GREP)
    assert snapshot(secret) == before and sorted(p.name for p in outside.iterdir()) == ["main.yaml"]
    listed = {f.path: f for f in editor.files()}
    assert listed["agents/main.yaml"].read_only and "leads outside" in (
        listed["agents/main.yaml"].reason or ""
    )


# ---- what a save does: trust, and the next request ------------------------------------------------------


def test_saving_a_file_that_needs_trust_ends_the_trust_and_says_so(workspace):
    put(workspace, "llm/o.yaml", VENDOR)
    put(workspace, "agents/main.yaml", AGENT)
    mw.trust()
    editor = mw.SettingsEditor()
    # An agent file asks for nothing: saving it keeps the trust.
    assert (
        editor.save("agents/main.yaml", AGENT + "# ok\n", editor.read("agents/main.yaml").version).notice
        is None
    )
    saved = editor.save("llm/o.yaml", VENDOR.replace("9/v1", "10/v1"), editor.read("llm/o.yaml").version)
    assert saved.notice == (
        "Saving llm/o.yaml ended the trust given to this folder: until you trust it again with mw.trust() "
        "(or %mewrk trust), sessions here send nothing to its servers and run none of its commands."
    )
    made = editor.create("tools/grep2.yaml", GREP)
    assert made.notice == (
        "This folder is not trusted yet, so what tools/grep2.yaml asks for is not used until you trust it "
        "with mw.trust() (or %mewrk trust)."
    )
    mw.trust()
    assert editor.delete("agents/main.yaml", editor.read("agents/main.yaml").version).notice is None


def tool_names(session: mw.Session) -> list[str]:
    return sorted(tool["name"] for tool in session.history[-1].request["tools"])


def test_a_saved_file_is_used_by_a_running_session_at_its_next_request(workspace):
    put(workspace, "agents/main.yaml", "model: offline/echo\ntools: [read]\n")
    s = mw.Session.new()
    s.send("hi")
    assert tool_names(s) == ["read"]
    editor = mw.SettingsEditor()
    saved = editor.save(
        "agents/main.yaml",
        "model: offline/echo\ntools: [read, ls]\n",
        editor.read("agents/main.yaml").version,
    )
    s.send("again")
    assert tool_names(s) == ["ls", "read"]  # the same session, the same kernel, the new file
    # A new tool file: saved, trusted, and in the very next request.
    editor.save("agents/main.yaml", "model: offline/echo\ntools: [read, ls, grep2]\n", saved.version)
    assert editor.create("tools/grep2.yaml", GREP).notice is not None
    mw.trust()
    s.send("and again")
    assert tool_names(s) == ["grep2", "ls", "read"]
    # A safety level saved while the session runs sets its tiers from then on.
    assert s.tool_tier("ls") == "allow"
    editor.create("policy/default.yaml", "safety_level: default\nask: [ls]\n")
    assert s.tool_tier("ls") == "ask"


def test_a_save_of_the_same_size_within_the_same_clock_tick_is_seen(workspace):
    path = put(workspace, "agents/main.yaml", "model: offline/echo\ntools: [read]\n")
    s = mw.Session.new()
    s.send("hi")
    assert tool_names(s) == ["read"]
    stat = path.stat()
    editor = mw.SettingsEditor()
    editor.save(
        "agents/main.yaml", "model: offline/echo\ntools: [edit]\n", editor.read("agents/main.yaml").version
    )
    # A coarse file-system clock: same size, same modification time; the rename still gives a new file.
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))
    s.send("again")
    assert tool_names(s) == ["edit"]
