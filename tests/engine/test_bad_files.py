"""One bad file does not break a workspace: an invalid file disables only what it defines, with a notice
naming the file, and a hostile file (nested aliases, a huge size) is refused before it costs time or memory."""

import os
import warnings

import pytest

import mewrk_jupyter as mw
from mewrk_jupyter.config import load_config, validate_file

BOMB = 'a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]\n' + "".join(
    f"{name}: &{name} [{','.join([f'*{prev}'] * 9)}]\n"
    for prev, name in zip("abcdefgh", "bcdefghi", strict=True)
)


def write(workspace, rel, text):
    path = workspace / ".mewrk" / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path


def new_session(**kwargs):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        session = mw.Session.new(**kwargs)
    return session, [str(w.message) for w in caught if issubclass(w.category, mw.ConfigNotice)]


def test_an_invalid_vendor_file_disables_only_that_vendor(workspace):
    write(workspace, "llm/broken.yaml", "protocol: anthropic-messages\nmodels: {m: {}}\nbase_url: ftp://x\n")
    write(workspace, "llm/good.yaml", "protocol: openai-chat\nmodels:\n  m: {}\n")
    s, notices = new_session()
    assert notices == [
        "llm/broken.yaml: base_url must be an http:// or https:// address (line 3) — this file is left out "
        "until it is fixed; the rest of the folder is used."
    ]
    s.send("hello")
    assert s.cards[-1].kind == "model_reply"  # the offline session works
    other, _ = new_session(model="good/m")  # so does the other vendor
    assert other.settings.model == "good/m"
    with pytest.raises(mw.ConfigError, match=r"^llm/broken.yaml: base_url must be an http"):
        mw.Session.new(model="broken/m")


def test_an_invalid_tool_file_disables_only_that_tool(workspace):
    write(
        workspace,
        "tools/bad.yaml",
        "name: bad\ndescription: d\ncommand: echo {nope}\nparameters: {type: object}\n",
    )
    write(workspace, "agents/main.yaml", "model: offline/echo\ntools: [read, bad]\n")
    s, notices = new_session()
    assert any(n.startswith("tools/bad.yaml: command uses {nope}") for n in notices)
    assert [spec.name for spec in s.tool_specs()] == ["read"]
    s.send("hi")
    assert s.cards[-1].kind == "model_reply"


def test_an_invalid_agent_file_disables_only_that_agent(workspace):
    write(workspace, "agents/reviewer.yaml", "model: offline/echo\nsystem_prompt: [not, text]\n")
    s, notices = new_session()
    assert any(n.startswith("agents/reviewer.yaml: system_prompt must be text") for n in notices)
    s.send("hi")
    with pytest.raises(mw.ConfigError, match=r"^agents/reviewer.yaml: system_prompt must be text"):
        mw.Session.new(agent="reviewer")


def test_an_invalid_default_policy_falls_back_to_the_built_in_level(workspace):
    write(workspace, "policy/default.yaml", "safety_level: default\nallow: [ls]\nask: [ls]\n")
    s, notices = new_session()
    assert any(n.startswith("policy/default.yaml: tool 'ls' is in both allow and ask") for n in notices)
    assert s.tool_tier("bash") == "ask" and s.tool_tier("read") == "allow"


def test_nested_aliases_are_refused_quickly_and_the_rest_works(workspace):
    write(workspace, "llm/bomb.yaml", BOMB)
    s, notices = new_session()
    assert notices == [
        "llm/bomb.yaml: its aliases expand to more than 100,000 values, more than a configuration file "
        "holds, so it was not read (line 6) — this file is left out until it is fixed; the rest of the folder "
        "is used."
    ]
    s.send("hi")
    assert s.cards[-1].kind == "model_reply"


def test_a_huge_file_is_refused_by_its_size_without_being_read(workspace):
    path = write(workspace, "llm/huge.yaml", "")
    with open(path, "wb") as out:  # a sparse file of 4 GB: reading it would take the memory with it
        out.truncate(4 * 1024**3)
    s, notices = new_session()
    assert notices == [
        f"llm/huge.yaml: the file is {4 * 1024**3:,} bytes, more than the 256 KB a configuration file may "
        "have, so it was not read — this file is left out until it is fixed; the rest of the folder is used."
    ]
    s.send("hi")
    assert s.cards[-1].kind == "model_reply"
    os.remove(path)


def test_a_folder_of_invalid_files_still_lists_every_problem_when_loaded_strictly(workspace):
    write(workspace, "llm/a.yaml", "protocol: nope\nmodels: {m: {}}\n")
    write(workspace, "agents/b.yaml", "model: x\n")
    with pytest.raises(mw.ConfigError) as raised:
        load_config(workspace / ".mewrk")  # the settings editor's check of the whole folder
    assert "llm/a.yaml" in str(raised.value) and "agents/b.yaml" in str(raised.value)


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("a: " + "[" * 5000 + "]" * 5000 + "\n", "nests values too deeply"),
        ("a: " + "[" * 70 + "]" * 70 + "\n", "nested more than 64 levels deep"),
        ("a: &a [1, *a]\n", "an alias refers to the value that contains it"),
        ("a: " + "x" * (300 * 1024) + "\n", "more than the 256 KB a configuration file may have"),
    ],
)
def test_hostile_text_is_refused_with_a_sentence_naming_the_file(text, said):
    with pytest.raises(mw.ConfigError, match=r"^llm/evil.yaml: .*" + said):
        validate_file("llm", text, name="evil")
