"""`bash {command, background: true}`: the command runs on a thread of its own, after its approval like
any bash call, and reports like a subagent — collected by `task_wait`, else delivered before the next
request (background_results.py). Stopping the session kills it.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from ...cards.models import ToolCall
from ...store.db import Database
from ...tools import ToolRegistry
from ...tools.base import ToolResult
from .results import started_text
from .rows import track
from .tasks import TASKS, BackgroundTask, TaskState

BASH = "bash"
LABEL_CHARS = 60


def wants_background(call: ToolCall) -> bool:
    """Whether the call is a `bash` call asking to run in the background."""
    return call.name == BASH and "background" in call.params


def command_label(command: object) -> str:
    """How a sentence names a background command: its first line, cut short."""
    text = str(command).strip().splitlines()[0] if str(command).strip() else ""
    return f"command `{text[:LABEL_CHARS]}{'…' if len(text) > LABEL_CHARS else ''}`"


def start_background_command(
    registry: ToolRegistry,
    call: ToolCall,
    session_id: str,
    db: Database,
    as_output: bool,
    redact: Callable[[str], str],
    cancel: threading.Event | None,
) -> ToolResult:
    """Start the call's command in the background (or run it now when `background` is false); returns the
    call's output: the task id, or the command's own result. With `as_output` (async tool calls) the
    result becomes this call's output when it ends."""
    params = {k: v for k, v in call.params.items() if k != "background"}
    if call.params.get("background") is not True or not isinstance(params.get("command"), str):
        return registry.run(BASH, params, cancel)  # run now, or refused as the tool refuses it
    stop = threading.Event()
    task = BackgroundTask(
        session_id=session_id,
        kind="command",
        label=command_label(params["command"]),
        call_card=call.id,
        as_output=as_output,
        stop=stop.set,
    )
    TASKS.add(track(task, db))

    def work() -> None:
        result = registry.run(BASH, params, stop)
        text = redact(result.text)
        state: TaskState = "stopped" if stop.is_set() else "failed" if result.is_error else "completed"
        TASKS.set_state(task, state, text)

    threading.Thread(target=work, name=f"mewrk-{task.id}", daemon=True).start()
    return ToolResult(text=started_text(task))
