"""The engine's tools for background work: `agent_spawn`, `workflow`, `task_wait`, and `bash`'s
`background` flag.

They are offered when the agent's tool list names `agent_spawn`, `workflow` or `task_wait` (appended
after the registry's tools, so those keep their place in the request); `bash` then takes
`background: true`. The engine, not the tool registry, answers their calls (subagents/).
"""

from __future__ import annotations

from ...providers.base import ToolSpec
from ..background.results import DEFAULT_WAIT, MAX_WAIT

AGENT_SPAWN = "agent_spawn"
TASK_WAIT = "task_wait"
WORKFLOW = "workflow"
BACKGROUND_TOOLS = (AGENT_SPAWN, TASK_WAIT, WORKFLOW)

AGENT_SPAWN_SPEC = ToolSpec(
    name=AGENT_SPAWN,
    description=(
        "Start a subagent: a conversation of its own with one of the workspace's agents, given a task. It "
        "runs in the background while you go on; its result is its final reply. Collect it with "
        "`task_wait`; a result you have not collected when it ends reaches you as a "
        "`<task-notification>`."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "agent": {"type": "string", "description": "The agent's name (`.mewrk/agents/<name>.yaml`)."},
            "task": {
                "type": "string",
                "description": "What the subagent should do, with everything it needs: it sees nothing else.",
            },
        },
        "required": ["agent", "task"],
        "additionalProperties": False,
    },
)


def workflow_spec(listing: str) -> ToolSpec:
    """`workflow {name, input}`, its description listing the workspace's workflows (`listing`)."""
    return ToolSpec(
        name=WORKFLOW,
        description=(
            "Start one of the workspace's workflows: its steps run one after the other in the "
            "background, each an agent given the workflow's input and the results before it, while you "
            "go on; its result is its last step's reply. Collect it with `task_wait`; a result you have "
            f"not collected when it ends reaches you as a `<task-notification>`. The workflows: {listing}."
        ),
        input_schema={
            "type": "object",
            "properties": {
                "name": {"type": "string", "description": "The workflow's name."},
                "input": {
                    "type": "string",
                    "description": "What the workflow works on, with everything its steps need: they see "
                    "nothing else.",
                },
            },
            "required": ["name", "input"],
            "additionalProperties": False,
        },
    )


TASK_WAIT_SPEC = ToolSpec(
    name=TASK_WAIT,
    description=(
        "Wait for background tasks (subagents, workflows, background commands) to end and collect their results. "
        "Without ids, waits for every task not collected yet. Returns when all ended or the timeout "
        "passed, with the result of each one that ended and the state of the others."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "ids": {
                "type": "array",
                "items": {"type": "string"},
                "description": "The task ids to wait for (from agent_spawn, workflow or a background bash).",
            },
            "timeout": {
                "type": "number",
                "minimum": 0,
                "description": f"Seconds to wait at most (default {DEFAULT_WAIT:g}, at most {MAX_WAIT:g}).",
            },
        },
        "additionalProperties": False,
    },
)

BACKGROUND_PARAM = {
    "type": "boolean",
    "description": (
        "Run it in the background and go on: the call returns a task id at once; collect the output "
        "with `task_wait` (or it arrives as a `<task-notification>` when the command ends)."
    ),
}


def background_tools(agent_tools: list[str] | None, workflows: str = "none") -> list[ToolSpec]:
    """The engine's background tools the agent's tool list asks for (`task_wait` comes with
    `agent_spawn` and `workflow`: a result must be collectable); `workflows` lists the workflows."""
    names = set(agent_tools or ())
    specs = []
    if AGENT_SPAWN in names:
        specs.append(AGENT_SPAWN_SPEC)
    if WORKFLOW in names:
        specs.append(workflow_spec(workflows))
    if names & set(BACKGROUND_TOOLS):
        specs.append(TASK_WAIT_SPEC)
    return specs


def with_background(spec: ToolSpec) -> ToolSpec:
    """`bash`'s spec with the `background` flag added."""
    schema = dict(spec.input_schema)
    schema["properties"] = {**schema.get("properties", {}), "background": BACKGROUND_PARAM}
    return spec.model_copy(update={"input_schema": schema})
