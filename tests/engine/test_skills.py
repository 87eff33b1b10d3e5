"""Skills (`skills/<name>/SKILL.md`): those a session starts with are part of every request's hidden
prefix; one chosen later arrives as a host message, leaving the prefix (and its cache) as it was."""

from __future__ import annotations

from pathlib import Path

import pytest

import mewrk_jupyter as mw

REVIEW = "---\nname: review\ndescription: Review a change for bugs and tests\n---\nRead the diff first.\nThen list bugs.\n"


def skill(workspace: Path, name: str, text: str) -> None:
    folder = workspace / ".mewrk" / "skills" / name
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "SKILL.md").write_text(text)


def test_a_skill_given_at_the_start_is_in_the_prefix_of_every_request(workspace):
    skill(workspace, "review", REVIEW)
    s = mw.Session.new(skills=["review"])
    s.send("hi")
    system = s.history[-1].request["system"]
    assert (
        "# Skill: review — Review a change for bugs and tests\n\nRead the diff first.\nThen list bugs."
        in system
    )
    assert [c.kind for c in s.cards] == ["user_input", "model_reply"]  # not a card: the prefix
    # An edit of the file acts at the next request.
    skill(workspace, "review", REVIEW.replace("list bugs", "list bugs by severity"))
    s.send("again")
    assert any("list bugs by severity" in part for part in s.history[-1].request["system"])


def test_an_agent_names_the_skills_its_sessions_start_with(workspace):
    skill(workspace, "review", REVIEW)
    (workspace / ".mewrk" / "agents").mkdir(parents=True)
    (workspace / ".mewrk" / "agents" / "main.yaml").write_text("model: offline/echo\nskills: [review]\n")
    assert mw.Session.new().settings.skills == ["review"]


def test_a_skill_chosen_later_arrives_as_a_host_message_and_the_prefix_stays(workspace):
    skill(workspace, "review", REVIEW)
    s = mw.Session.new()
    s.send("hi")
    before = s.history[-1].request["system"]
    card = s.use_skill("review")
    assert card.kind == "host_message" and s.cards[-1].id == card.id
    assert card.text.startswith("The person chose a skill for what follows.\n\n# Skill: review — ")
    s.send("review my change")
    assert s.history[-1].request["system"] == before
    assert "Read the diff first." in str(s.history[-1].request["messages"])


def test_an_unknown_or_broken_skill_is_refused_in_words(workspace):
    skill(workspace, "review", REVIEW)
    skill(workspace, "bad", "no header here\n")
    s = mw.Session.new()
    with pytest.raises(
        mw.ConfigError, match=r"^skills/: there is no skill 'nope' .* the skills are bad, review$"
    ):
        s.use_skill("nope")
    with pytest.raises(mw.ConfigError, match=r"^skills/bad/SKILL.md: the file must begin with a header"):
        s.use_skill("bad")
    with pytest.raises(mw.ConfigError, match="there is no skill 'nope'"):
        mw.Session.new(skills=["nope"])
    with pytest.raises(mw.InvalidInput, match=r"^skills cannot be changed here: .* s.use_skill\(name\)"):
        s.configure(skills=["review"])
    assert [c.kind for c in s.cards] == []


def test_a_skill_header_is_checked(workspace):
    s = mw.Session.new()
    skill(workspace, "x", "---\nname: y\ndescription: d\n---\nbody\n")
    with pytest.raises(mw.ConfigError, match="name must be the folder's name, 'x'"):
        s.use_skill("x")
    skill(workspace, "x", "---\nname: x\ndescription: d\nmodel: big\n---\nbody\n")
    with pytest.raises(
        mw.ConfigError, match=r"unknown header field\(s\) model \(allowed: name, description\)"
    ):
        s.use_skill("x")
    skill(workspace, "x", "---\nname: x\ndescription: d\n---\n\n")
    with pytest.raises(mw.ConfigError, match="the instructions after the header are empty"):
        s.use_skill("x")
