"""The notebook bridge without a window: with jupyter-collaboration on the server, a command for a notebook
that no JupyterLab window has open is carried out on the server's shared document of it.

jupyter-collaboration's server extension (`jupyter_server_ydoc`) keeps one shared document (a YNotebook)
per notebook that someone works on, saves it to the file a moment after each change, and lets every
window that opens the notebook later join it. A read or an edit here goes into that document, so the file
on disk and any window opened afterwards show it. Running a cell is refused: a cell runs in the kernel of
a window that has the notebook open, and there is none.

The answers are those a window gives (labextension/src/bridge.ts): the same cells, the same refusals with
the same data (the cell's text now when a person changed it), so the kernel's tools cannot tell the two
apart. Nothing of jupyter-collaboration is imported: the extension is found among the server's running
ones, and the document is used through its own methods.
"""

from __future__ import annotations

import inspect
from typing import Any

from jupyter_core.utils import ensure_async

from ..tools.base import digest

EXTENSION = "jupyter_server_ydoc"  # jupyter-collaboration's server side


class Refusal(Exception):
    """A command the shared document cannot carry out: one sentence, and what the kernel shows with it."""

    def __init__(self, sentence: str, data: dict[str, Any] | None = None) -> None:
        super().__init__(sentence)
        self.data = data or {}


def collaboration(serverapp: Any) -> Any | None:
    """The server's running jupyter-collaboration extension, if it has one that makes a document on demand
    (`get_document(create=True)`, jupyter-server-ydoc 2.4 and later); None without it."""
    manager = getattr(serverapp, "extension_manager", None)
    apps = getattr(manager, "extension_apps", {}).get(EXTENSION) or set()
    for app in apps:
        get_document = getattr(app, "get_document", None)
        if callable(get_document) and "create" in inspect.signature(get_document).parameters:
            return app
    return None


class SharedNotebooks:
    """Commands carried out on the shared documents of jupyter-collaboration's extension `app`."""

    def __init__(self, app: Any, contents_manager: Any) -> None:
        self.app = app
        self.contents = contents_manager

    async def ask(self, op: str, path: str, args: dict[str, Any]) -> dict[str, Any]:
        """Carry out one command on the notebook at `path` and answer as a window does: `ok` and `data`,
        or `ok` false with the refusal's `error` sentence and its `data`."""
        try:
            if op == "run":
                raise Refusal(
                    f"{path} is not open in JupyterLab, and a cell runs in the kernel of a window that "
                    "has it open: open it there, then ask again."
                )
            notebook = await self.document(path)
            data = read(notebook, args) if op == "read" else edit(notebook, path, args)
        except Refusal as refusal:
            return {"ok": False, "error": str(refusal), "data": refusal.data}
        return {"ok": True, "data": data}

    async def document(self, path: str) -> Any:
        """The shared document of the notebook at `path`, made from the file when no one works on it yet."""
        if not await ensure_async(self.contents.file_exists(path)):
            raise Refusal(f"There is no notebook {path} in the folder this Jupyter server serves.")
        notebook = await self.app.get_document(
            path=path, content_type="notebook", file_format="json", copy=False, create=True
        )
        if notebook is None:
            raise Refusal(f"jupyter-collaboration has no shared document of {path}.")
        return notebook


def cell_json(notebook: Any, index: int) -> dict[str, Any]:
    """One cell as a window sends it: its index, and the cell as the notebook's JSON has it."""
    return {"index": index, **notebook.get_cell(index)}


def read(notebook: Any, args: dict[str, Any]) -> dict[str, Any]:
    """The notebook's cells — only those `args["cells"]` names (by index or id), when it names some."""
    wanted = args.get("cells") if isinstance(args.get("cells"), list) else None
    cells = []
    for index in range(notebook.cell_number):
        cell = cell_json(notebook, index)
        if wanted is None or index in wanted or cell.get("id") in wanted:
            cells.append(cell)
    return {"cells": cells, "count": notebook.cell_number, "dirty": bool(notebook.dirty), "kernelId": None}


def find(notebook: Any, path: str, args: dict[str, Any]) -> int:
    """The index of the cell a command names: by its id, or by its index."""
    count = notebook.cell_number
    if isinstance(args.get("cell_id"), str):
        for found in range(count):
            if notebook.ycells[found].get("id") == args["cell_id"]:
                return found
        raise Refusal(f"{path} has no cell with id {args['cell_id']}: read the notebook again for its ids.")
    index = args.get("index")
    if isinstance(index, int) and not isinstance(index, bool):
        if 0 <= index < count:
            return index
        raise Refusal(f"{path} has {count} cells (indices 0 to {count - 1}); there is no cell {index}.")
    raise Refusal("Name the cell by `cell_id` or by `index`.")


def unchanged(notebook: Any, index: int, args: dict[str, Any]) -> None:
    """Refuse when the cell's text is no longer what the kernel read (its text, or its SHA-256 for a call
    that waited for approval): a person changed it meanwhile."""
    now = str(notebook.ycells[index]["source"])
    expected_digest, expected = args.get("expected_digest"), args.get("expected")
    if isinstance(expected_digest, str) and digest(now) != expected_digest:
        raise Refusal(
            f"Cell {index} changed while the call waited for approval: nothing was changed.",
            {"changed": True, "digest": True, "current": now, "cell": cell_json(notebook, index)},
        )
    if isinstance(expected, str) and now != expected:
        raise Refusal(
            f"Cell {index} changed since it was read: nothing was changed.",
            {"changed": True, "expected": expected, "current": now, "cell": cell_json(notebook, index)},
        )


def edit(notebook: Any, path: str, args: dict[str, Any]) -> dict[str, Any]:
    """Replace a cell's source, insert a cell or delete one, in one transaction of the shared document."""
    mode = args.get("mode")
    with notebook.ydoc.transaction():
        if mode == "replace":
            index = find(notebook, path, args)
            unchanged(notebook, index, args)
            before = cell_json(notebook, index)
            source = notebook.ycells[index]["source"]
            source.clear()
            source.insert(0, str(args.get("source") or ""))
            return {"before": before, "cell": cell_json(notebook, index)}
        if mode == "insert":
            index = insert_at(notebook, path, args)
            kind = args.get("cell_type") if args.get("cell_type") in ("markdown", "raw") else "code"
            made: dict[str, Any] = {
                "cell_type": kind,
                "source": str(args.get("source") or ""),
                "metadata": {},
            }
            if kind == "code":
                made.update(outputs=[], execution_count=None)
            if isinstance(args.get("id"), str):
                made["id"] = args["id"]  # a deleted cell put back keeps its id
            notebook.ycells.insert(index, notebook.create_ycell(made))
            return {"cell": cell_json(notebook, index)}
        if mode == "delete":
            index = find(notebook, path, args)
            unchanged(notebook, index, args)
            before = cell_json(notebook, index)
            del notebook.ycells[index]
            return {"before": before}
    raise Refusal("`mode` is replace, insert or delete.")


def insert_at(notebook: Any, path: str, args: dict[str, Any]) -> int:
    """Where an insert goes: before the cell named, or at `index` (the number of cells: at the end), or
    else at the end."""
    count = notebook.cell_number
    if isinstance(args.get("cell_id"), str):
        return find(notebook, path, args)
    index = args.get("index")
    if index is None:
        return count
    if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index <= count:
        raise Refusal(f"{path} has {count} cells: a cell goes in at an index from 0 to {count}.")
    return index
