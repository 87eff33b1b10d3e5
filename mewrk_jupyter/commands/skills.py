"""`skill [NAME]`: the workspace's skills, or one given to the model now."""

from __future__ import annotations

from ..cards.inert import inert_inline
from ..config.skills import read_skills
from .base import Call, Result

HOW = "a skill is a folder `.mewrk/skills/<name>/` holding SKILL.md (a `name` and `description` header, then the instructions)"


def skill(call: Call) -> Result:
    """`skill [NAME]`: list the skills, or give the model the skill NAME from the next request on."""
    s = call.current
    if call.args:
        card = s.use_skill(call.args[0])
        return Result(
            f"The model reads the skill `{call.args[0]}` from the next request on.", data={"cards": [card.id]}
        )
    skills, problems = read_skills(s.workspace.home)
    if not skills and not problems:
        return Result(f"There are no skills in this workspace yet: {HOW}.")
    started = set(s.settings.skills)
    rows = [
        f"| `{k.name}` | {inert_inline(k.description)} | {'from the start' if k.name in started else ''} |"
        for k in skills
    ]
    lines = ["| skill | what it is for | this session |", "|---|---|---|", *rows]
    lines += [f"\n{inert_inline(str(p))}" for p in problems]
    names = ", ".join(k.name for k in skills) or "none that read well"
    return Result(f"Skills: {names}. `skill NAME` gives one to the model.", markdown="\n".join(lines))
