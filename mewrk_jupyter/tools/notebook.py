"""The notebook tools (N5), offered in a kernel that a Jupyter server with this package started: the model reads
the cells of the live notebook (`notebook_read`), replaces, inserts or deletes one (`notebook_edit`) and
runs one in the notebook's own kernel (`notebook_run`).

Each command goes through the server to the JupyterLab window that has the notebook open
(notebook_bridge.py), which changes the notebook's shared model: every open view shows the change at
once, and it is saved as JupyterLab saves. For a notebook no window has open, a server running
jupyter-collaboration reads and edits its shared document instead (server/shared_notebook.py). A
replace or delete that waited for approval carries a digest of the cell as the approval read it, so that
a person's edit of the same cell meanwhile is never overwritten: the call answers that the cell changed
and shows what it reads now. How a cell reads as text for the model is notebook_cells.py.
"""

from __future__ import annotations

import threading
from typing import Any, Literal, cast

from ..cards.models import Attachment, CellChange, ToolPreview
from .base import (
    Tool,
    ToolFailure,
    ToolResult,
    asked_timeout,
    digest,
    object_schema,
    truncate,
    unified_diff,
)
from .notebook_bridge import Bridge, Refused, find_bridge, kernel_running_a_cell
from .notebook_cells import cell_text, outputs_text, selected_cells, source_text
from .paths import Workspace

EditMode = Literal["replace", "insert", "delete"]  # the schema's modes of notebook_edit
NOTEBOOK_TOOLS = ("notebook_read", "notebook_edit", "notebook_run")
RUN_TIMEOUT = 120.0
RUN_MAX_TIMEOUT = 1800.0

_PATH = {
    "type": "string",
    "description": "The notebook's path in the workspace; leave it out for the notebook this kernel belongs to.",
}
_CELL_ID = {"type": "string", "description": "The cell's id, as notebook_read shows it."}
_INDEX = {"type": "integer", "minimum": 0, "description": "The cell's index (0 is the first cell)."}


class NotebookTools:
    """The three tools over one bridge. A call's `path` is relative to the workspace and stays inside it;
    the server names its notebooks from the folder it serves, which may hold the workspace."""

    def __init__(self, bridge: Bridge, workspace: Workspace | None = None) -> None:
        self.bridge = bridge
        self.workspace = workspace

    def served(self, path: str | None) -> str | None:
        """A notebook's path as the server names it; ToolFailure when it leaves the workspace, is not a
        notebook or lies outside what the server serves. None: the kernel's own notebook."""
        if path is None or self.workspace is None:
            return path
        real = self.workspace.resolve(path)
        if real.suffix != ".ipynb":
            raise ToolFailure(f"{path} is not a notebook (a notebook's name ends in .ipynb).")
        root = self.bridge.root
        if root is None:
            return self.workspace.display(real)
        try:
            return real.relative_to(root.resolve()).as_posix()
        except ValueError:
            raise ToolFailure(f"{path} is outside the folder this Jupyter server serves ({root}).") from None

    def shown(self, served: Any) -> str:
        """A path the server gave, as the model names it: relative to the workspace where it is inside."""
        root, ws = self.bridge.root, self.workspace
        if not isinstance(served, str) or root is None or ws is None:
            return str(served)
        real = (root / served).resolve()
        return ws.display(real) if real.is_relative_to(ws.root) else served

    def read(
        self, path: str | None, cells: list[Any] | None = None
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        """The notebook as the window has it now (its path, how many cells, whether it has unsaved
        changes) and its cells — only those named (by index or id), when `cells` names some."""
        found = self.bridge.command("read", {"cells": cells} if cells else {}, path, 30.0)
        sent = [cell for cell in found.get("cells") or [] if isinstance(cell, dict)]
        count = found.get("count")
        return found, selected_cells(sent, cells, count if isinstance(count, int) else len(sent))

    # ---- notebook_read ---------------------------------------------------------------------------------

    def _read(self, params: dict[str, Any], _cancel: threading.Event | None) -> ToolResult:
        found, chosen = self.read(self.served(params.get("path")), params.get("cells"))
        images: list[Attachment] = []
        head = f"# {self.shown(found.get('path'))} · {found.get('count')} cells" + (
            " · unsaved changes" if found.get("dirty") else ""
        )
        body = [cell_text(cell, images) for cell in chosen]
        result = truncate("\n\n".join([head, *body]))
        return result.model_copy(update={"images": tuple(images)})

    # ---- notebook_edit ---------------------------------------------------------------------------------

    def _target(self, params: dict[str, Any]) -> dict[str, Any]:
        if "cell_id" in params and "index" in params:
            raise ToolFailure("Name the cell by `cell_id` or by `index`, not both.")
        return {key: params[key] for key in ("cell_id", "index") if key in params}

    def _edit_args(self, params: dict[str, Any]) -> dict[str, Any]:
        """The edit command for a call, checked: ToolFailure with one sentence when it is incomplete."""
        mode = params["mode"]
        target = self._target(params)
        args: dict[str, Any] = {"mode": mode, **target}
        if mode in ("replace", "insert"):
            if "source" not in params:
                raise ToolFailure(f"A {mode} needs the cell's `source`.")
            args["source"] = params["source"]
        if mode == "insert":
            args["cell_type"] = params.get("cell_type", "code")
        elif "cell_type" in params:
            raise ToolFailure("`cell_type` is for an insert; a replace keeps the cell's type.")
        if mode in ("replace", "delete") and not target:
            raise ToolFailure(f"A {mode} names its cell by `cell_id` or `index`.")
        return args

    def _preview(self, params: dict[str, Any]) -> ToolPreview | None:
        """The change as a diff of the cell, and a digest of the cell's source as it is now."""
        args = self._edit_args(params)
        mode, path = args["mode"], self.served(params.get("path"))
        if mode == "insert":
            source = str(args["source"])
            diff = unified_diff("", source, "(new cell)", f"new {args['cell_type']} cell")
            return ToolPreview(diff=diff)
        cell = self._current(path, {k: args[k] for k in ("cell_id", "index") if k in args})
        before = source_text(cell.get("source"))
        after = str(args["source"]) if mode == "replace" else ""
        name = f"cell {cell.get('index')} (id {cell.get('id')})"
        return ToolPreview(
            diff=unified_diff(before, after, name, name if mode == "replace" else "(deleted)"),
            expected=digest(before),
        )

    def _edit(self, params: dict[str, Any], _cancel: threading.Event | None) -> ToolResult:
        return self._edit_against(params, None)

    def _edit_prepared(
        self, params: dict[str, Any], preview: ToolPreview, _cancel: threading.Event | None
    ) -> ToolResult:
        return self._edit_against(params, preview)

    def _edit_against(self, params: dict[str, Any], preview: ToolPreview | None) -> ToolResult:
        """Make the edit; a replace or delete expects the cell as the preview read it (or as it is now)."""
        args = self._edit_args(params)
        mode, path = args["mode"], self.served(params.get("path"))
        # A call that waited for approval changes the cell only if it still reads as it did then: the
        # window compares the digest (one round trip); a window that cannot hash (a page served over
        # plain HTTP elsewhere than localhost has no Web Crypto) is sent the text read just before.
        # A call that did not wait (allowed without asking) changes the cell as it is.
        if mode in ("replace", "delete") and preview is not None and preview.expected is not None:
            args["expected_digest"] = preview.expected
        try:
            answer = self._send_edit(args, path)
        except Refused as refused:
            if refused.answer.get("digest") and preview is not None:
                raise ToolFailure(
                    "The cell changed while your call waited for approval: nothing was changed. The cell "
                    f"now:\n```\n{refused.answer.get('current')}\n```\nThe change you asked for:\n{preview.diff}"
                ) from None
            raise ToolFailure(_changed(str(refused), refused.answer)) from None
        cell = answer.get("cell") or answer.get("before") or {}
        where = f"cell {cell.get('index')} (id {cell.get('id')}) of {self.shown(answer.get('path'))}"
        said = {
            "replace": f"Replaced the source of {where}.",
            "insert": f"Inserted {where}.",
            "delete": f"Deleted {where}.",
        }
        return ToolResult(text=said[mode], change=_change_of(cast(EditMode, mode), answer))

    def _send_edit(self, args: dict[str, Any], path: str | None) -> dict[str, Any]:
        """Send an edit; one the window cannot check by digest goes again with the text read just now."""
        try:
            return self.bridge.command("edit", args, path, 30.0)
        except Refused as refused:
            if not refused.answer.get("no_digest"):
                raise
        expected = args.pop("expected_digest")
        now = source_text(
            self._current(path, {k: args[k] for k in ("cell_id", "index") if k in args}).get("source")
        )
        if digest(now) != expected:
            raise Refused("The cell changed.", {"changed": True, "digest": True, "current": now})
        return self.bridge.command("edit", {**args, "expected": now}, path, 30.0)

    def _revert(self, change: CellChange) -> str:
        """Put the cell back as it was before the change; refused when it changed since."""
        args: dict[str, Any]
        if change.mode == "replace":
            args = {
                "mode": "replace",
                "cell_id": change.cell_id,
                "source": change.before,
                "expected": change.after,
            }
        elif change.mode == "insert":
            args = {"mode": "delete", "cell_id": change.cell_id, "expected": change.after}
        else:  # back where it was (at the end if the notebook is shorter now), with its own id
            args = {
                "mode": "insert",
                "index": change.index,
                "cell_type": change.cell_type,
                "source": change.before,
                "id": change.cell_id,
            }
        try:
            self.bridge.command("edit", args, change.path, 30.0)
        except Refused as refused:
            if refused.answer.get("changed"):
                raise ToolFailure(
                    "The cell changed since that call, so it was not reverted. It reads now:\n"
                    f"```\n{refused.answer.get('current')}\n```"
                ) from None
            raise
        done = {
            "replace": "Put the cell's source back",
            "insert": "Removed the inserted cell",
            "delete": "Put the deleted cell back",
        }
        return f"{done[change.mode]} in {self.shown(change.path)}."

    def _current(self, path: str | None, target: dict[str, Any]) -> dict[str, Any]:
        """The cell a command names, as the window has it now."""
        return self.read(path, [target.get("cell_id", target.get("index"))])[1][0]

    # ---- notebook_run ----------------------------------------------------------------------------------

    def _run(self, params: dict[str, Any], _cancel: threading.Event | None) -> ToolResult:
        path = self.served(params.get("path"))
        target = self._target(params)
        if not target:
            raise ToolFailure("Name the cell to run by `cell_id` or `index`.")
        own = path is None
        if own and kernel_running_a_cell():
            raise ToolFailure(
                "This kernel is running a cell now (a %mewrk cell waits for this turn, or a cell of yours "
                "runs), so a cell sent to run would wait behind it: ask from the timeline widget, or when "
                "the kernel is idle."
            )
        timeout = asked_timeout(params, RUN_TIMEOUT, RUN_MAX_TIMEOUT)
        answer = self.bridge.command("run", {**target, "check_busy": not own}, path, timeout)
        cell = answer.get("cell") or {}
        images: list[Attachment] = []
        shown = outputs_text(list(cell.get("outputs") or []), images, f"cell-{cell.get('index')}")
        head = f"Ran cell {cell.get('index')} (id {cell.get('id')}) of {self.shown(answer.get('path'))}: In [{cell.get('execution_count')}], {answer.get('status')}."
        result = truncate("\n".join([head, *(shown or ["(no output)"])]))
        return result.model_copy(
            update={"images": tuple(images), "is_error": answer.get("status") == "error"}
        )

    def tools(self) -> list[Tool]:
        """notebook_read, notebook_edit and notebook_run."""
        return [
            Tool(
                name="notebook_read",
                description=(
                    "Read the cells of a notebook open in JupyterLab — by default the one this kernel belongs "
                    "to: each cell's index, id, type, execution count, source and outputs (long outputs cut, "
                    "images attached). `cells` picks cells by index or id."
                ),
                input_schema=object_schema(
                    {
                        "path": _PATH,
                        "cells": {
                            "type": "array",
                            "items": {"type": ["integer", "string"]},
                            "description": "Only these cells, by index or id.",
                        },
                    },
                    [],
                ),
                handler=self._read,
                read_only=True,
            ),
            Tool(
                name="notebook_edit",
                description=(
                    "Change a notebook open in JupyterLab (by default this kernel's): `replace` a cell's "
                    "source, `insert` a cell before the one named (or at the end when none is), or `delete` "
                    "one. Name cells by `cell_id` (from notebook_read) or `index`. The change shows at once in "
                    "every open view and is saved; if the person changed the cell meanwhile, nothing changes "
                    "and you are shown both texts."
                ),
                input_schema=object_schema(
                    {
                        "path": _PATH,
                        "mode": {"type": "string", "enum": ["replace", "insert", "delete"]},
                        "cell_id": _CELL_ID,
                        "index": _INDEX,
                        "cell_type": {"type": "string", "enum": ["code", "markdown", "raw"]},
                        "source": {"type": "string", "description": "The cell's new source."},
                    },
                    ["mode"],
                ),
                handler=self._edit,
                preview=self._preview,
                prepared=self._edit_prepared,
                revert=self._revert,
            ),
            Tool(
                name="notebook_run",
                description=(
                    "Run a code cell of a notebook open in JupyterLab in that notebook's own kernel: its outputs "
                    "land in the cell, as when the person runs it, and come back to you (text and images). "
                    "Waits up to `timeout` seconds (default 120)."
                ),
                input_schema=object_schema(
                    {
                        "path": _PATH,
                        "cell_id": _CELL_ID,
                        "index": _INDEX,
                        "timeout": {
                            "type": "number",
                            "description": "Seconds to wait for the cell to finish.",
                        },
                    },
                    [],
                ),
                handler=self._run,
                timeout=RUN_MAX_TIMEOUT + 10,  # the call's own `timeout` bounds its wait for the cell
            ),
        ]


def _change_of(mode: EditMode, answer: dict[str, Any]) -> CellChange | None:
    """What an edit changed, from the window's answer, for its card's Revert."""
    before, after = answer.get("before") or {}, answer.get("cell") or {}
    cell = after or before
    if not isinstance(cell.get("id"), str) or not isinstance(cell.get("index"), int):
        return None
    return CellChange(
        path=str(answer.get("path")),
        mode=mode,
        cell_id=cell["id"],
        index=cell["index"],
        cell_type=str(cell.get("cell_type") or "code"),
        before=source_text(before.get("source")) if before else None,
        after=source_text(after.get("source")) if after else None,
    )


def _changed(sentence: str, answer: dict[str, Any]) -> str:
    """A refusal, with both texts when the cell changed since it was read."""
    if not answer.get("changed"):
        return sentence
    return (
        f"{sentence} The person changed it meanwhile.\n--- the cell as you read it\n{answer.get('expected')}\n"
        f"--- the cell now\n{answer.get('current')}"
    )


def offered_bridge() -> Bridge | None:
    """The bridge the notebook tools are offered over, in this process; None: they are not offered."""
    return find_bridge()


def notebook_tools(workspace: Workspace | None = None, bridge: Bridge | None = None) -> list[Tool]:
    """The notebook tools over this kernel's bridge, their paths inside `workspace`; none outside a
    kernel a Jupyter server started."""
    bridge = bridge if bridge is not None else offered_bridge()
    return [] if bridge is None else NotebookTools(bridge, workspace).tools()
