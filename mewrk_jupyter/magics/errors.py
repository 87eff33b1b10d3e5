"""`Err[N]`: the error of the cell whose prompt number is N, kept as text, as Jupyter AI keeps it.

IPython keeps a cell's source (`In`) and result (`Out`) but not its error; `{Err[3]}` in a message
needs it, so every cell that fails leaves its traceback here, in the user namespace.
"""

from __future__ import annotations

import traceback
from typing import Any

ERR = "Err"


def error_text(error: BaseException) -> str:
    """An exception with its traceback, the frames of IPython's own machinery left out."""
    frames = [
        frame
        for frame in traceback.extract_tb(error.__traceback__)
        if "/IPython/" not in frame.filename.replace("\\", "/")
    ]
    lines = ["Traceback (most recent call last):\n", *traceback.format_list(frames)] if frames else []
    return "".join(lines + traceback.format_exception_only(type(error), error)).rstrip()


def _recorder(shell: Any) -> Any:
    def after_cell(result: Any) -> None:
        error = result.error_in_exec or result.error_before_exec
        if error is not None and result.execution_count is not None:
            shell.user_ns.setdefault(ERR, {})[result.execution_count] = error_text(error)

    after_cell.mewrk_errors = True  # type: ignore[attr-defined]  # so that a second load does not add it twice
    return after_cell


def record_errors(shell: Any) -> None:
    """Keep each failing cell's error in `Err[N]` from now on (once per shell, however often it is loaded)."""
    shell.user_ns.setdefault(ERR, {})
    if not any(getattr(f, "mewrk_errors", False) for f in shell.events.callbacks["post_run_cell"]):
        shell.events.register("post_run_cell", _recorder(shell))
