"""What a new session may take from its configuration folder: a folder not trusted yet, and files left out
because they are invalid, are said in notices (or a refusal) rather than acted on.
"""

from __future__ import annotations

from dataclasses import replace

from ..config import Config, trust_state
from ..errors import WorkspaceNotTrusted
from ..providers.discovery import forget
from ..providers.registry import DEFAULT_MODEL, listing_problems
from .agent import AgentStart
from .settings.preferences import preferences_at


def admit(config: Config, start: AgentStart, *, model_asked: bool) -> tuple[AgentStart, list[str]]:
    """The start a session may make here, and the notices to show.

    In a folder not trusted yet, a model of its own vendors is refused when the person asked for it by
    name (WorkspaceNotTrusted, naming what the folder would use) and replaced by the offline model when it
    came from an agent file; either way nothing reaches the configured server. In a trusted folder the
    servers that list their models are asked again; one that gives no list is said, and an agent file's
    model of it is replaced by the offline model in the same way (asked for by name, it is refused).
    """
    notices = problem_notices(config) + [f"{note.file}: {note.message}." for note in config.notes]
    if config.home is not None:  # an invalid preferences.yaml is said too; its defaults act
        notices += preferences_at(config.home)[1]
    state = trust_state(config)
    model = start.settings.get("model")
    vendor = model.split("/", 1)[0] if isinstance(model, str) else ""
    if state.trusted:
        forget(config.home)  # a new session is where a model pulled meanwhile shows up
        unlisted = listing_problems(config)
        notices += unlisted.values()
        if vendor in unlisted and not model_asked:
            start = replace(start, settings={**start.settings, "model": DEFAULT_MODEL})
            notices.append(f"Until it answers, this session runs on {DEFAULT_MODEL} instead of {model}.")
        return start, notices
    if vendor in config.vendors:
        if model_asked:
            raise WorkspaceNotTrusted(state.sentence)
        start = replace(start, settings={**start.settings, "model": DEFAULT_MODEL})
    notices.append(state.sentence)
    return start, notices


def problem_notices(config: Config) -> list[str]:
    """One sentence per invalid file: what is wrong (on which line, where known), and that only what it
    defines is left out."""
    by_file: dict[str, list[str]] = {}
    for problem in config.problems:
        by_file.setdefault(problem.file, []).append(problem.said())
    return [
        f"{file}: {'; '.join(messages)} — this file is left out until it is fixed; the rest of the "
        "folder is used."
        for file, messages in by_file.items()
    ]
