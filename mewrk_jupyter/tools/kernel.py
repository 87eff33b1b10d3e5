"""The kernel tools, offered only inside a Jupyter kernel: `python {code}` runs code in the live kernel's
namespace, `inspect {name}` describes a variable without running anything of the person's.

`python` captures what the code prints (stdout and stderr of its own thread only, so a cell the person
runs meanwhile keeps its output), what it shows with IPython's `display()` (its text/plain and its PNG,
in order with stdout), the value of a last expression, an error's traceback, and notes the
figures and images it made (as PNG images on its card, which a model with vision input receives with
the result; every model reads a note of each). At its time limit the code is interrupted (a
KeyboardInterrupt raised in its thread, as Jupyter's interrupt does in the main one) and what it printed
so far is returned.
"""

from __future__ import annotations

import ast
import ctypes
import threading
import traceback
from typing import Any

from .base import Redact, Tool, ToolResult, asked_timeout, no_redaction, object_schema, truncate
from .kernel_capture import (
    Displays,
    Kept,
    captured_displays,
    captured_output,
    new_figures,
    printed_and_shown,
    rich_outputs,
)
from .kernel_inspect import describe

KERNEL_TOOLS = ("python", "inspect")
PYTHON_TIMEOUT = 60.0
PYTHON_MAX_TIMEOUT = 600.0
FILENAME = "<mewrk-python>"


def kernel_namespace() -> dict[str, Any] | None:
    """The user namespace of the Jupyter kernel this process is, or None outside a kernel."""
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    shell = get_ipython()
    if shell is None or getattr(shell, "kernel", None) is None:
        return None
    namespace: dict[str, Any] = shell.user_ns
    return namespace


def _interrupt(thread_id: int, error: type[BaseException] | None = KeyboardInterrupt) -> None:
    """Raise `error` in the thread `thread_id` at its next Python instruction (None: take back one pending)."""
    exc = ctypes.py_object(error) if error is not None else None
    ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), exc)


def _execute(code: str, namespace: dict[str, Any]) -> Any:
    """Run `code` in the namespace; the value of its last line when that is an expression, else None."""
    tree = ast.parse(code, FILENAME, "exec")
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    assert last is None or isinstance(last, ast.Expr)  # for the type: the check above
    exec(compile(tree, FILENAME, "exec"), namespace)  # noqa: S102 — the approved code of the tool call
    if last is None:
        return None
    return eval(compile(ast.Expression(last.value), FILENAME, "eval"), namespace)  # noqa: S307


def _error_text(error: BaseException) -> str:
    frames = [f for f in traceback.extract_tb(error.__traceback__) if f.filename == FILENAME]
    head = ["Traceback (most recent call last):\n", *traceback.format_list(frames)] if frames else []
    return "".join(head + traceback.format_exception_only(type(error), error)).rstrip()


class _Interrupter:
    """Interrupts the code's thread at the time limit or at Stop, again every half second while the code
    goes on (code may catch one KeyboardInterrupt), and never once the code has ended."""

    def __init__(self, limit: float, cancel: threading.Event | None) -> None:
        self.thread_id = threading.get_ident()
        self.limit, self.cancel = limit, cancel
        self.finished = threading.Event()
        self.lock = threading.Lock()
        self.why: str | None = None
        self.watcher = threading.Thread(target=self._watch, name="mewrk-python-watch", daemon=True)

    def _watch(self) -> None:
        waited, sent_at = 0.0, -1.0
        while not self.finished.wait(0.05):
            waited += 0.05
            stopped = self.cancel is not None and self.cancel.is_set()
            if (waited >= self.limit or stopped) and waited - sent_at >= 0.5:
                with self.lock:
                    if self.finished.is_set():
                        return
                    self.why = self.why or ("stop" if stopped and waited < self.limit else "limit")
                    _interrupt(self.thread_id)
                    sent_at = waited

    def finish(self) -> None:
        """The code has ended: no interrupt is sent from now on, and one still pending is taken back."""
        with self.lock:
            self.finished.set()
            _interrupt(self.thread_id, None)


def _output(
    out: str,
    err: str,
    displays: Displays,
    kept: Kept,
    error: BaseException | None,
    why: str | None,
    limit: float,
) -> list[str]:
    parts = printed_and_shown(out, displays, kept)
    if err:
        parts.append(f"[stderr]\n{err.rstrip()}")
    if isinstance(error, KeyboardInterrupt) and why == "limit":
        parts.append(f"[interrupted: the code ran past its time limit of {limit:g} seconds]")
    elif isinstance(error, KeyboardInterrupt) and why == "stop":
        parts.append("[interrupted: the turn was stopped]")
    elif error is not None:
        parts.append(f"[error]\n{_error_text(error)}")
    return parts


def run_python(
    code: str,
    namespace: dict[str, Any],
    limit: float,
    cancel: threading.Event | None,
    redact: Redact = no_redaction,
) -> ToolResult:
    """Run `code` in the kernel's namespace, interrupted at `limit` seconds or when `cancel` is set; known
    secrets in what it printed are hidden before the output is cut to the limit."""
    interrupter = _Interrupter(limit, cancel)
    before = new_figures(None)
    value: Any = None
    error: BaseException | None = None
    with captured_output() as (out, err), captured_displays(out) as displays:
        try:
            interrupter.watcher.start()
            try:
                value = _execute(code, namespace)
            except BaseException as exc:  # the code's own error is its result, SystemExit included
                error = exc
            interrupter.finish()
        except KeyboardInterrupt as exc:  # arrived between the code's end and finish()
            error = error or exc
            interrupter.finish()
    interrupter.watcher.join()
    kept = Kept()
    parts = _output(out.getvalue(), err.getvalue(), displays, kept, error, interrupter.why, limit)
    parts += rich_outputs(value, new_figures(before), kept, displays)
    if error is None and value is not None:
        parts.append(f"[result]\n{value!r}")
    limited = truncate(redact("\n".join(parts)) if parts else "(no output)")
    return limited.model_copy(update={"is_error": error is not None, "images": tuple(kept.images)})


def _python(namespace: dict[str, Any], redact: Redact) -> Tool:
    def handler(params: dict[str, Any], cancel: threading.Event | None) -> ToolResult:
        return run_python(
            str(params["code"]),
            namespace,
            asked_timeout(params, PYTHON_TIMEOUT, PYTHON_MAX_TIMEOUT),
            cancel,
            redact,
        )

    return Tool(
        name="python",
        description=(
            "Run Python code in the person's live Jupyter kernel, in the namespace of their notebook: "
            "variables you define stay. Returns what the code printed and showed with `display()`, the "
            "value of its last line, or its error. A figure it draws is noted, and comes back as an image where you take images. "
            "Interrupted after `timeout` seconds (default 60)."
        ),
        input_schema=object_schema(
            {
                "code": {"type": "string", "description": "The Python code to run."},
                "timeout": {"type": "number", "description": "Seconds before the code is interrupted."},
            },
            ["code"],
        ),
        handler=handler,
        timeout=PYTHON_TIMEOUT,
        max_timeout=PYTHON_MAX_TIMEOUT,
    )


def _inspect(namespace: dict[str, Any], redact: Redact) -> Tool:
    def handler(params: dict[str, Any], _cancel: threading.Event | None) -> ToolResult:
        return describe(str(params["name"]), namespace, redact)

    return Tool(
        name="inspect",
        description=(
            "Describe a variable of the person's live Jupyter kernel without running code: its type, "
            "shape, columns and dtypes, first rows, length, signature and docstring. `name` is a "
            "variable or a dotted path such as `df.columns`."
        ),
        input_schema=object_schema({"name": {"type": "string", "description": "The variable."}}, ["name"]),
        handler=handler,
    )


def kernel_tools(namespace: dict[str, Any] | None = None, redact: Redact = no_redaction) -> list[Tool]:
    """`python` and `inspect` over the kernel's namespace (hiding what `redact` hides before their output
    is cut); none outside a kernel."""
    namespace = namespace if namespace is not None else kernel_namespace()
    return [] if namespace is None else [_python(namespace, redact), _inspect(namespace, redact)]
