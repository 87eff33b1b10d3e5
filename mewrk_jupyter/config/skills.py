"""`skills/<name>/SKILL.md`: instructions a person can give the model by name — a YAML header with the
skill's name and a one-line description, then the instructions in Markdown:

    ---
    name: review
    description: Review a change for bugs, tests and naming
    ---
    Read the diff first. …

Skills are text for the model, never commands, so a folder's skills need no trust. They are read when
they are used (each request, for the skills a session starts with), so an edit acts at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..errors import ConfigError
from .base import TOOL_NAME
from .confined import LeftOut, confined
from .problems import Problem
from .yamlfile import MAX_FILE_BYTES, parse_yaml

SKILLS_FOLDER = "skills"
SKILL_FILE = "SKILL.md"


@dataclass(frozen=True)
class Skill:
    """One skill: its name (its folder's), what it is for in one line, and its instructions."""

    name: str
    description: str
    instructions: str


def skill_names(home: Path) -> list[str]:
    """The folders of `skills/` that hold a SKILL.md, in name order."""
    folder = Path(home) / SKILLS_FOLDER
    if not folder.is_dir():
        return []
    return sorted(
        p.name for p in folder.iterdir() if not p.name.startswith(".") and (p / SKILL_FILE).is_file()
    )


def read_skills(home: Path) -> tuple[list[Skill], list[Problem]]:
    """Every skill of the folder that reads well, and what is wrong with the others."""
    skills, problems = [], []
    for name in skill_names(home):
        try:
            skills.append(read_skill(home, name))
        except SkillProblem as exc:
            problems.append(exc.problem)
    return skills, problems


class SkillProblem(ConfigError):
    """A skill that is missing or cannot be read, with the sentence that says why."""

    def __init__(self, problem: Problem) -> None:
        super().__init__(str(problem))
        self.problem = problem


class SkillLeftOut(SkillProblem):
    """A skill whose SKILL.md leads outside the configuration folder (or is no regular file): not read."""


def read_skill(home: Path, name: str) -> Skill:
    """The skill `name`; SkillProblem names the file and what is wrong, or which skills exist."""
    rel = f"{SKILLS_FOLDER}/{name}/{SKILL_FILE}"
    if not TOOL_NAME.match(name) or name not in skill_names(home):
        found = skill_names(home)
        listed = f"the skills are {', '.join(found)}" if found else "there are no skills yet"
        raise SkillProblem(
            Problem(
                f"{SKILLS_FOLDER}/",
                None,
                f"there is no skill {name!r} (a folder .mewrk/{SKILLS_FOLDER}/{name}/ holding {SKILL_FILE}); {listed}",
            )
        )
    path = Path(home) / SKILLS_FOLDER / name / SKILL_FILE
    try:
        real = confined(str(path), str(home), "the file", "the configuration folder")
    except LeftOut as exc:
        raise SkillLeftOut(Problem(rel, None, str(exc))) from None
    try:
        with open(real or path, "rb") as stream:
            data = stream.read(MAX_FILE_BYTES + 1)
        text = data.decode("utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise SkillProblem(Problem(rel, None, f"the file cannot be read ({type(exc).__name__})")) from None
    if len(data) > MAX_FILE_BYTES:
        raise SkillProblem(Problem(rel, None, f"the file is over {MAX_FILE_BYTES // 1024} KB"))
    return _parse(text, name, rel)


def _parse(text: str, name: str, rel: str) -> Skill:
    lines = text.replace("\r\n", "\n").split("\n")
    if not lines or lines[0].strip() != "---" or "---" not in (line.strip() for line in lines[1:]):
        raise SkillProblem(
            Problem(
                rel, None, "the file must begin with a header between two `---` lines (name, description)", 1
            )
        )
    end = next(i for i in range(1, len(lines)) if lines[i].strip() == "---")
    try:
        header = parse_yaml("\n".join(lines[1:end]), rel).data
    except ConfigError as exc:
        raise SkillProblem(Problem(rel, None, str(exc).removeprefix(f"{rel}: "))) from None
    if not isinstance(header, dict):
        raise SkillProblem(Problem(rel, None, "the header must hold `name:` and `description:`", 2))
    unknown = sorted(str(k) for k in header if k not in ("name", "description"))
    if unknown:
        raise SkillProblem(
            Problem(
                rel, unknown[0], f"unknown header field(s) {', '.join(unknown)} (allowed: name, description)"
            )
        )
    if header.get("name") != name:
        raise SkillProblem(Problem(rel, "name", f"name must be the folder's name, {name!r}"))
    description = header.get("description")
    if not isinstance(description, str) or not description.strip() or "\n" in description.strip():
        raise SkillProblem(
            Problem(rel, "description", "description must be one line saying what the skill is for")
        )
    instructions = "\n".join(lines[end + 1 :]).strip()
    if not instructions:
        raise SkillProblem(Problem(rel, None, "the instructions after the header are empty"))
    return Skill(name=name, description=description.strip(), instructions=instructions)
