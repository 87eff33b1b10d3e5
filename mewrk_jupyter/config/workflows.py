"""`workflows/<name>.yaml`: a workflow — steps run one after the other, each an agent given a prompt.

    description: Review a module, then fix what the review found
    steps:
      - name: review
        agent: reviewer
        prompt: Review {input} for bugs and missing tests.
      - name: fix
        prompt: Fix what the review found in {input}. The review: {review}

A prompt reads `{input}` (what the workflow was started with), `{previous}` (the result of the step
before) and `{NAME}` (the result of an earlier step by its name); any other `{word}` is refused, so that a
typo is a sentence rather than text the agent reads (braces around anything else, as in JSON, are text). A step whose prompt names neither `{previous}` nor
an earlier step gets the previous step's result after its prompt. Workflows are text for agents, as
agents are: they run only with the tools and the safety level the agents and the conversation have.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from pydantic import field_validator, model_validator

from .base import TOOL_NAME, ConfigModel
from .problems import invalid

# `{name}` of letters, digits, `_` and `-` is a placeholder; other braces (a JSON example) are text.
PLACEHOLDER = re.compile(r"\{([A-Za-z0-9_-]+)\}")
INPUT, PREVIOUS = "input", "previous"
MAX_STEPS = 20


class WorkflowStep(ConfigModel):
    """One step: the agent that does it (the default agent when not named) and its prompt."""

    name: str | None = None  # `step1`, `step2`, … when not named
    agent: str | None = None
    prompt: str

    @field_validator("name", "agent")
    @classmethod
    def _word(cls, value: str | None) -> str | None:
        if value is not None and not TOOL_NAME.match(value):
            raise invalid(f"{value!r} is not a name (letters, digits, '_' or '-')")
        return value

    @field_validator("prompt")
    @classmethod
    def _prompt(cls, value: str) -> str:
        if not value.strip():
            raise invalid("prompt is empty: say what the step's agent should do")
        return value


class WorkflowConfig(ConfigModel):
    """One workflow; its name is the file's stem."""

    description: str = ""
    steps: list[WorkflowStep]

    @field_validator("steps")
    @classmethod
    def _steps(cls, value: list[WorkflowStep]) -> list[WorkflowStep]:
        if not value:
            raise invalid("steps must list at least one step", "steps")
        if len(value) > MAX_STEPS:
            raise invalid(f"steps lists {len(value)} steps; a workflow has at most {MAX_STEPS}", "steps")
        return value

    @model_validator(mode="after")
    def _placeholders(self) -> WorkflowConfig:
        seen: list[str] = []
        for index, step in enumerate(self.steps):
            name = step_name(step, index)
            if name in seen or name in (INPUT, PREVIOUS):
                raise invalid(
                    f"steps.{index}.name: {name!r} is taken (by an earlier step, or by {{{INPUT}}} / "
                    f"{{{PREVIOUS}}}); give each step a name of its own",
                    "steps",
                    str(index),
                    "name",
                )
            for found in PLACEHOLDER.findall(step.prompt):
                if found == PREVIOUS and index == 0:
                    raise invalid(
                        "steps.0.prompt: the first step has no {previous}; it reads {input}",
                        "steps",
                        "0",
                        "prompt",
                    )
                readable = [INPUT, *([PREVIOUS] if index else []), *seen]
                if found not in readable:
                    known = ", ".join(f"{{{word}}}" for word in readable)
                    raise invalid(
                        f"steps.{index}.prompt: {{{found}}} is not something this step can read; it can "
                        f"read {known}",
                        "steps",
                        str(index),
                        "prompt",
                    )
            seen.append(name)
        return self


def describe_workflows(workflows: Mapping[str, WorkflowConfig]) -> str:
    """The workflows by name with their descriptions, for a sentence or the `workflow` tool's description."""
    if not workflows:
        return "none (write `.mewrk/workflows/<name>.yaml`)"
    return "; ".join(
        f"`{name}`" + (f" ({workflow.description.strip()})" if workflow.description.strip() else "")
        for name, workflow in sorted(workflows.items())
    )


def step_name(step: WorkflowStep, index: int) -> str:
    """The step's name: its own, or `step1`, `step2`, … by its place."""
    return step.name or f"step{index + 1}"


def step_prompt(step: WorkflowStep, index: int, text: str, results: dict[str, str], previous: str) -> str:
    """The step's prompt with what it reads filled in (only the names validation allowed are known)."""
    values = {INPUT: text, PREVIOUS: previous, **results}
    prompt = PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), step.prompt)
    reads_earlier = any(word == PREVIOUS or word in results for word in PLACEHOLDER.findall(step.prompt))
    if index > 0 and not reads_earlier:
        prompt = f"{prompt.rstrip()}\n\nThe previous step's result:\n\n{previous}"
    return prompt
