"""`%mewrk set` and `%mewrk skill`: the conversation settings and the skills from a cell."""

from pathlib import Path


def test_set_in_a_cell_shows_and_changes_the_settings(mewrk):
    mewrk("new settings")
    assert "| `model` | 'offline/echo' |" in mewrk("set")
    said = mewrk("set model offline/thinker")
    assert "model 'offline/echo' → 'offline/thinker'" in said
    assert "async_tools needs a model that takes async tool calls" in mewrk("set async_tools on")


def test_skill_in_a_cell_lists_the_skills_and_gives_one(mewrk):
    mewrk("new skills")
    assert "There are no skills in this workspace yet" in mewrk("skill")
    folder = Path(".mewrk/skills/tidy")
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(
        "---\nname: tidy\ndescription: Keep notes tidy\n---\nOne topic per file.\n"
    )
    assert "| `tidy` | Keep notes tidy |" in mewrk("skill")
    assert "The model reads the skill `tidy` from the next request on." in mewrk("skill tidy")
