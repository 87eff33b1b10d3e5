"""Workflows (X8): `.mewrk/workflows/<name>.yaml` lists steps, each an agent given a prompt that can read
what the workflow was started with and the results of the steps before. Started by the model's
`workflow` call or by a person (`%mewrk workflow NAME …`, `s.workflow(...)`), a workflow runs in the
background as one task, like a subagent: each step is a subagent session of its own (read-only on the
`workflow` card, opened from it), run one after the other on one thread; an approval a step needs shows
on the starting conversation and is answered there; Stop stops the step at work and the steps after it.
Its result — the last step's reply — reaches the model as a subagent's does (a `<task-notification>`, or
the call's output with async tool calls); a handoff waits while it runs, and its steps never
auto-compact (they are subagent sessions).
"""

from __future__ import annotations

import threading
from contextvars import ContextVar
from typing import Any

from ...cards.models import Card, ToolCall, Workflow, WorkflowStep
from ...config.problems import InvalidConfig
from ...config.workflows import WorkflowConfig, describe_workflows, step_name, step_prompt
from ...errors import InvalidInput, MewrkError, NotEditable
from ...providers.registry import config_for, resolve
from ...store import sessions as session_rows
from ...store import tasks as task_rows
from ..agent import DEFAULT_AGENT
from ..background.results import started_text
from ..background.rows import track
from ..background.tasks import TASKS, BackgroundTask, TaskState
from ..settings.model import SessionSettings
from .limits import spawn_refusal
from .spawn import Parent, create_child, subagent_settings
from .supervisor import SUPERVISORS, Supervisor

STEP_ENDINGS = {"failed": "failed", "stopped": "was stopped"}
EMPTY_PROMPT = "its prompt is empty once what it reads is filled in, so it was not started."


class WorkflowRefused(MewrkError):
    """A workflow that cannot start (unknown, broken file, unknown agent or model, too many at work)."""


def workflow_names(parent: Parent) -> str:
    """The workspace's workflows with their descriptions, for a sentence."""
    config = config_for(parent.workspace.home)
    return describe_workflows(config.workflows if config is not None else {})


def step_agent(step: Any) -> str:
    """The agent a step runs with: its own, else the default agent."""
    return str(step.agent or DEFAULT_AGENT)


def start_workflow(
    parent: Parent, name: str, text: str, call: ToolCall | None = None
) -> tuple[BackgroundTask, Workflow]:
    """Start the workflow `name` with `text` as its input, from the model's `call` or (None) the person;
    its card is appended to the parent's timeline. Raises WorkflowRefused, starting nothing."""
    name = name.strip()
    refused = spawn_refusal(parent.stored_timeline.db.conn(), parent.id)
    if refused is not None:
        raise WorkflowRefused(f"No workflow was started: {refused}")
    home = parent.workspace.home
    config = config_for(home)
    try:
        if config is None:
            raise MewrkError(f"There is no workflow `{name}`: this workspace has no `.mewrk` folder.")
        workflow = config.workflow(name)
        # Every step's agent and model is checked now, so that a typo is a sentence before anything runs.
        plans = [subagent_settings(config, step_agent(step), parent.settings) for step in workflow.steps]
        for settings, _ in plans:
            resolve(settings.model, home)
        first = workflow.steps[0]
        if not step_prompt(first, 0, text, {}, "").strip():
            raise MewrkError(
                f"the first step `{step_name(first, 0)}` reads only what the workflow is started with, and "
                "that is empty: give the workflow its input."
            )
    except InvalidConfig as exc:  # the workflow's own file (or an agent's) is broken: where, by line
        said = "; ".join(problem.located() for problem in exc.problems)
        raise WorkflowRefused(f"No workflow was started: {said}") from None
    except MewrkError as exc:
        raise WorkflowRefused(f"No workflow was started: {exc}") from None
    task = BackgroundTask(
        session_id=parent.id,
        kind="workflow",
        label=f"workflow `{name}`",
        call_card=call.id if call is not None else "",
        as_output=call is not None and parent.settings.async_tools,
        workspace=str(parent.workspace.root),
    )
    TASKS.add(track(task, parent.stored_timeline.db))
    steps = [
        WorkflowStep(name=step_name(step, index), agent=step_agent(step))
        for index, step in enumerate(workflow.steps)
    ]
    card = Workflow(
        text=text,
        name=name,
        task_id=task.id,
        steps=steps,
        origin="engine" if call is not None else "person",
    )
    parent.stored_timeline.append(card)
    task.card_id = card.id
    runner = WorkflowRunner(parent, task, name, workflow, text)
    task.stop = runner.stop
    runner.start()
    return task, card


def call_workflow(parent: Parent, call: ToolCall) -> tuple[str, bool]:
    """Answer the model's `workflow {name, input}` call: the call's output and whether it is an error."""
    name, text = call.params.get("name"), call.params.get("input", "")
    if not isinstance(name, str) or not name.strip():
        return f"`name` names one of the workspace's workflows: {workflow_names(parent)}.", True
    if not isinstance(text, str):
        return "`input` is the workflow's input, as text; no workflow was started.", True
    try:
        task, _ = start_workflow(parent, name, text, call)
    except WorkflowRefused as exc:
        return str(exc), True
    return started_text(task), False


def person_workflow(parent: Parent, name: str, text: str) -> Workflow:
    """Start the workflow `name` a person asked for (`s.workflow`) with `text` as its input; its card.
    Refused with InvalidInput, starting nothing, where the model's call would be answered with an error."""
    if not isinstance(name, str) or not isinstance(text, str):
        raise InvalidInput("A workflow is started with its name and its input, both text.")
    try:
        _, card = start_workflow(parent, name, text)
    except WorkflowRefused as exc:
        raise InvalidInput(str(exc)) from None
    return card


# Set while a step's supervisor sends to the step's session: the one sender its read-only timeline takes.
DRIVING_STEP: ContextVar[bool] = ContextVar("mewrk_driving_step", default=False)
STEP_READ_ONLY = (
    "This is a workflow step's own timeline, a record of what the step did, and it is read-only: branch "
    "it to go on from it in a conversation of your own."
)


class StepRecord:
    """Whether a session's timeline is a workflow step's own read-only record (X8), by its stored row."""

    def __init__(self, row: Any) -> None:
        self.step = row["subagent"] == session_rows.WORKFLOW_STEP

    def read_only(self) -> str | None:
        """Why the person cannot change the timeline, or None when they can."""
        return STEP_READ_ONLY if self.step else None

    def check(self) -> None:
        """Refuse the person's change of a step's timeline; the step's own supervisor still sends."""
        if self.step and not DRIVING_STEP.get():
            raise NotEditable(STEP_READ_ONLY)


class StepSupervisor(Supervisor):
    """A step's supervisor: a subagent's, except that its ending is the step's, not the workflow's, and
    that it alone sends to the step's read-only session."""

    def send(self, text: str | None) -> Any:
        """Start (or, with None, continue) the step's turn, past its timeline's read-only guard."""
        token = DRIVING_STEP.set(True)
        try:
            return super().send(text)
        finally:
            DRIVING_STEP.reset(token)

    def __init__(self, runner: WorkflowRunner, index: int, child: Any, prompt: str) -> None:
        super().__init__(runner.parent.stored_timeline, runner.task, child, prompt)
        self.runner = runner
        self.index = index
        self.outcome: tuple[TaskState, str] = ("stopped", "")

    def show(self, state: TaskState, result: str | None = None) -> None:
        """Waiting for an approval, or going on: the workflow's task and card say so."""
        TASKS.set_state(self.task, state)
        self.runner.save_step(self.index, state=state)

    def end(self, state: TaskState, result: str) -> None:
        """The step ended: the runner reads how."""
        SUPERVISORS.pop(self.task.id, None)
        self.outcome = (state, result)


class WorkflowRunner:
    """Runs a workflow's steps one after the other on a daemon thread, then ends its task."""

    def __init__(
        self,
        parent: Parent,
        task: BackgroundTask,
        name: str,
        workflow: WorkflowConfig,
        text: str,
    ) -> None:
        self.parent = parent
        self.task = task
        self.name = name
        self.workflow = workflow
        self.text = text
        self.lock = threading.Lock()
        self.stopping = False
        self.current: StepSupervisor | None = None

    def start(self) -> None:
        """Start the first step in the background."""
        threading.Thread(target=self.main, name=f"mewrk-{self.task.id}", daemon=True).start()

    def main(self) -> None:
        try:
            self.follow()
        except MewrkError as exc:  # a sentence of its own (an agent file removed meanwhile, …)
            self.finish("failed", f"The workflow failed: {exc}")
        except Exception as exc:  # the workflow's failure is its result, never the parent's crash
            self.finish("failed", f"The workflow failed: {type(exc).__name__}: {exc}")

    def plan(self, index: int) -> tuple[SessionSettings, list[Card]]:
        """A step's settings and first cards as the conversation stands when the step starts: a plan mode
        or a safety level changed while the workflow ran reaches the steps after it too."""
        step = self.workflow.steps[index]
        config = config_for(self.parent.workspace.home)
        return subagent_settings(config, step_agent(step), self.parent.settings)

    def follow(self) -> None:
        results: dict[str, str] = {}
        previous = ""
        count = len(self.workflow.steps)
        for index, step in enumerate(self.workflow.steps):
            name = step_name(step, index)
            prompt = step_prompt(step, index, self.text, results, previous)
            if not prompt.strip():
                self.save_step(index, state="failed", result=EMPTY_PROMPT)
                self.finish("failed", f"The step `{name}` ({index + 1} of {count}) failed: {EMPTY_PROMPT}")
                return
            settings, cards = self.plan(index)
            with self.lock:
                if self.stopping:
                    break
                label = f"{self.name} · {name}"
                child_id = create_child(
                    self.parent, label, prompt, settings, cards, session_rows.WORKFLOW_STEP
                )
                self.task.child_session = child_id  # where an approval or a stop finds the step at work
                with self.parent.stored_timeline.db.tx() as conn:  # and another process: plan mode, …
                    task_rows.set_task_child(conn, self.task.id, child_id)
                self.save_step(index, session_id=child_id, state="running")
                child = type(self.parent).open(child_id, workspace=self.parent.workspace.root)
                self.current = StepSupervisor(self, index, child, prompt)
                SUPERVISORS[self.task.id] = self.current
            self.current.main()
            state, result = self.current.outcome
            self.save_step(index, state=state if state != "awaiting_approval" else "stopped", result=result)
            if state != "completed":
                how = STEP_ENDINGS.get(state, state)
                ending: TaskState = "stopped" if state == "stopped" else "failed"
                self.finish(ending, f"The step `{name}` ({index + 1} of {count}) {how}: {result}")
                return
            results[name] = previous = result
        else:
            self.finish("completed", previous)
            return
        self.finish("stopped", f"The workflow was stopped before its step `{name}` ({index + 1} of {count}).")

    def save_step(self, index: int, **update: Any) -> None:
        """Write a step's new facts on the workflow's card (its state follows the task's)."""
        timeline = self.parent.stored_timeline
        card = timeline.find(self.task.card_id or "")
        if not isinstance(card, Workflow):
            return  # deleted meanwhile: the task still ends and its result still reaches the model
        steps = list(card.steps)
        steps[index] = steps[index].model_copy(update=update)
        timeline.save(card.model_copy(update={"steps": steps, "state": self.task.state}))

    def finish(self, state: TaskState, result: str) -> None:
        """The workflow ended: its card says how, then its result waits to be collected (in this order: a
        process that reads an ended task beside a card still running would settle it as orphaned)."""
        timeline = self.parent.stored_timeline
        card = timeline.find(self.task.card_id or "")
        if isinstance(card, Workflow) and not self.task.ended:
            timeline.save(card.model_copy(update={"state": state, "result": result}))
        TASKS.set_state(self.task, state, result)

    def stop(self) -> None:
        """Stop the step at work and every step after it; the result says where it stopped."""
        with self.lock:
            if self.stopping:
                return
            self.stopping = True
            current = self.current
        if current is not None:
            current.stop()
