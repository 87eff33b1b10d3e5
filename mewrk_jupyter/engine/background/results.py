"""Results of background work reaching the model: collected by `task_wait`, delivered before the next
request when nobody collected them (a host message carrying a `<task-notification>`, T13–T14), or — with
async tool calls — written as the output of the call that started the work (T15).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...cards.models import Approval, Card, HostMessage, ModelReply, Subagent, ToolCall, Workflow
from ...store import cards as card_rows
from ...store import runs as run_rows
from ...store import tasks as task_rows
from ..assembly.assemble import NOTIFICATION_TOPIC
from ..timeline.state import state_of
from ..timeline.stored import StoredTimeline
from .tasks import TASKS, BackgroundTask, TaskState

DEFAULT_WAIT = 60.0  # seconds task_wait waits when the model gives no timeout
MAX_WAIT = 600.0
STATUS_WORDS = {"completed": "completed", "failed": "failed", "stopped": "was stopped"}
ORPHANED = (
    "(The process that ran this subagent ended before the subagent did; its own session keeps what it did.)"
)


def notification(task: BackgroundTask) -> str:
    """The `<task-notification>` of an ended task: its id, status, a one-line summary and its result."""
    summary = f"The {task.label} {STATUS_WORDS.get(task.state, task.state)}."
    return (
        "<task-notification>\n"
        f"<task-id>{task.id}</task-id>\n"
        f"<status>{task.state}</status>\n"
        f"<summary>{summary}</summary>\n"
        f"<result>\n{task.result}\n</result>\n"
        "</task-notification>"
    )


def started_text(task: BackgroundTask) -> str:
    """The output of the call that started the task, until (with async tool calls) its result replaces it."""
    if task.as_output:
        return (
            f"Started the {task.label} in the background as task `{task.id}`. Go on with other work: its "
            "result will replace this output when it ends."
        )
    return (
        f"Started the {task.label} in the background as task `{task.id}`. Collect its result with "
        "`task_wait`; if you do not, it reaches you as a `<task-notification>` when it ends."
    )


def recover_orphans(timeline: StoredTimeline, cards: list[Card]) -> None:
    """Subagent cards still running whose supervisor no process has any more (a kernel restarted, a
    script ended): each ends as its own session stands — completed with its last reply when its last
    turn ended, else stopped — and its result waits to be delivered like any other."""
    for card in cards:
        if not isinstance(card, Subagent) or card.state not in ("running", "awaiting_approval"):
            continue
        conn = timeline.db.conn()
        if known_here(timeline, card) or state_of(conn, card.session_id) == "running":
            continue  # followed here, or its turn runs in another process that follows it
        runs = run_rows.list_runs(conn, card.session_id)
        replies = [
            c.text for _, c in card_rows.load_cards(conn, card.session_id) if isinstance(c, ModelReply)
        ]
        reply = next((text for text in reversed(replies) if text.strip()), "")
        done = bool(runs) and runs[-1]["state"] == "done"
        state: TaskState = "completed" if done else "stopped"
        result = reply if done else f"{reply}\n\n{ORPHANED}".strip()
        settle(timeline, card, f"subagent `{card.agent}`", state, result)


def known_here(timeline: StoredTimeline, card: Subagent | Workflow) -> bool:
    """Whether this process follows, or followed, the card's task; a card put back (undo) after its task
    ended here is told how it ended."""
    task = TASKS.get(card.task_id)
    if task is not None and task.ended:
        timeline.save(card.model_copy(update={"state": task.state, "result": task.result}))
    return task is not None


def settle(
    timeline: StoredTimeline,
    card: Subagent | Workflow,
    label: str,
    state: TaskState,
    result: str,
    **update: object,
) -> None:
    """End the work of a card nobody follows any more: its task, ended here, delivers `result` like any
    other, and the card says how it ended."""
    task = BackgroundTask(
        session_id=timeline.session_id,
        kind=card.kind,
        label=label,
        call_card="",
        id=card.task_id,
        child_session=card.session_id if isinstance(card, Subagent) else None,
        card_id=card.id,
    )
    TASKS.add(task)
    TASKS.set_state(task, state, result)
    timeline.save(card.model_copy(update={"state": state, "result": result, **update}))


WORKFLOW_ORPHANED = (
    "(The process that ran this workflow ended before the workflow did; each step's own session keeps "
    "what it did.)"
)


def recover_orphan_workflows(timeline: StoredTimeline, cards: list[Card]) -> None:
    """Workflow cards still running whose runner no live process has any more end as stopped, each step
    at work marked so, and their result (what the last finished step said) waits to be delivered."""
    conn = timeline.db.conn()
    running = [c for c in cards if isinstance(c, Workflow) and c.state in ("running", "awaiting_approval")]
    if not running:
        return
    live = {row["id"] for row in task_rows.live_tasks(conn, timeline.session_id)}
    for card in running:
        if known_here(timeline, card) or card.task_id in live:
            continue  # followed here, or by another process that still beats for it
        done = [step for step in card.steps if step.state == "completed"]
        result = f"{done[-1].result or ''}\n\n{WORKFLOW_ORPHANED}".strip() if done else WORKFLOW_ORPHANED
        steps = [
            s.model_copy(update={"state": "stopped"}) if s.state in ("running", "awaiting_approval") else s
            for s in card.steps
        ]
        settle(timeline, card, f"workflow `{card.name}`", "stopped", result, steps=steps)


def expire_orphan_approvals(timeline: StoredTimeline, cards: list[Card]) -> None:
    """A subagent's approval shown here whose subagent no live process follows any more can never be
    answered: it is closed, so that no card waits for a decision nobody can take."""
    conn = timeline.db.conn()
    for card in cards:
        if not isinstance(card, Approval) or card.session_id is None or card.decision != "pending":
            continue
        task = TASKS.by_child(card.session_id)
        if (task is None or task.ended) and task_rows.live_task_of_child(conn, card.session_id) is None:
            timeline.save(card.model_copy(update={"decision": "expired"}))


def deliver_results(timeline: StoredTimeline) -> list[str]:
    """Before a request: every ended task of the session that the model has not got yet reaches it — as
    the output of its starting call (async tool calls), or as a host message; returns the task ids."""
    cards = timeline.current().cards  # one reading for both: each changes only cards of its own kind
    recover_orphans(timeline, cards)
    recover_orphan_workflows(timeline, cards)
    expire_orphan_approvals(timeline, cards)
    delivered = []
    for task in TASKS.of(timeline.session_id):
        if not task.ended or task.collected:
            continue
        task.collected = True
        delivered.append(task.id)
        call = timeline.find(task.call_card) if task.as_output else None
        if isinstance(call, ToolCall):
            updated = call.model_copy(update={"result": task.result, "is_error": task.state != "completed"})
            timeline.save(updated)
        else:
            timeline.append(HostMessage(topic=NOTIFICATION_TOPIC, text=notification(task)))
    return delivered


def wait_for_tasks(
    session_id: str, params: dict[str, Any], cancelled: Callable[[], bool]
) -> tuple[str, bool]:
    """`task_wait`: wait for the tasks asked for (all not collected yet, without ids) and collect those
    that ended; returns the call's output and whether it is an error."""
    ids = params.get("ids")
    timeout = params.get("timeout", DEFAULT_WAIT)
    if ids is not None and (not isinstance(ids, list) or not all(isinstance(i, str) for i in ids)):
        return "`ids` is a list of task ids (strings); nothing was waited for.", True
    if isinstance(timeout, bool) or not isinstance(timeout, int | float) or timeout < 0:
        return "`timeout` is a number of seconds (0 or more); nothing was waited for.", True
    mine = TASKS.of(session_id)
    if ids is None:
        tasks = [task for task in mine if not task.collected]
    else:
        known = {task.id: task for task in mine}
        unknown = [i for i in ids if i not in known]
        if unknown:
            listed = ", ".join(f"`{t.id}`" for t in mine) or "none"
            return f"No background task {', '.join(unknown)} in this conversation; its tasks: {listed}.", True
        tasks = [known[i] for i in ids]
    if not tasks:
        return "No background task is waiting to be collected.", False
    TASKS.wait(tasks, min(float(timeout), MAX_WAIT), cancelled)
    parts = []
    for task in tasks:
        if task.ended:
            task.collected = True
            parts.append(notification(task))
        else:
            parts.append(f"Task `{task.id}` ({task.label}) is still {task.state.replace('_', ' ')}.")
    return "\n\n".join(parts), False
