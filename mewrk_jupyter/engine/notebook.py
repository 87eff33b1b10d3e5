"""Sessions as notebooks: a timeline written as a Jupyter notebook (nbformat 4.5) or as Markdown, and
the cards read back from such a notebook.

The notebook is written as the JSON of the format, as nbformat writes it, without importing nbformat:
its validator pulls in jsonschema's format checkers, whose import builds a URI grammar for a second, on
every first export in a kernel. Reading one back still goes through nbformat, which reads (and
upgrades) any notebook a person may bring.

In the notebook, messages and replies are Markdown cells under their card's heading, a `python` tool
call is a code cell with its result and images as outputs, thinking and other tool calls are collapsed
cells. Each cell's metadata (`mewrk`) keeps its card's kind, id and fields, so reading the notebook back gives the
same kinds, order and text — with the visible text as the person may have edited it in the notebook.
"""

from __future__ import annotations

import base64
import json
import os
import uuid
from pathlib import Path
from typing import Any

from ..cards.models import (
    CARD_CLASSES,
    Approval,
    Card,
    Comparison,
    Subagent,
    ToolCall,
    Workflow,
    card_from_dict,
)
from ..cards.words import label
from ..errors import InvalidInput
from .render import comparison_markdown

FORMAT = 1  # of the `mewrk` metadata, for a later change of the layout
COLLAPSED = ("thinking", "tool_call")
# Fields the cell shows (its source or output) rather than its metadata.
SHOWN = ("text",)
# What an imported card that claimed to be still going says instead: nothing runs or waits here.
NOT_HERE = (
    "(Imported from a notebook: it had not ended when the notebook was written, and it does not run here.)"
)


def _heading(kind: str) -> str:
    return f"**{label(kind)}**\n\n"


def _is_python(card: Card) -> bool:
    return isinstance(card, ToolCall) and card.name == "python" and isinstance(card.params.get("code"), str)


def _tool_line(card: ToolCall) -> str:
    return f"`{card.title_line()}`"


def _lines(text: str) -> list[str]:
    """Multi-line text as the format stores it: a list of lines, each with its line end."""
    return text.splitlines(keepends=True)


def _new_cell(cell_type: str, source: str, metadata: dict[str, Any], **more: Any) -> dict[str, Any]:
    # A cell id as nbformat makes one: unique in the notebook, and what a person's edits keep.
    return {
        "id": uuid.uuid4().hex[:8],
        "cell_type": cell_type,
        "metadata": metadata,
        "source": _lines(source),
        **more,
    }


def _cell(card: Card) -> dict[str, Any]:
    """One notebook cell for a card, its fields in the metadata."""
    python = _is_python(card)
    fields = card.model_dump(mode="json", exclude={*SHOWN, "images"} if python else set(SHOWN))
    meta: dict[str, Any] = {"mewrk": {"kind": card.kind, "id": card.id, "card": fields}}
    if python:
        assert isinstance(card, ToolCall)
        outputs: list[dict[str, Any]] = []
        if card.result is not None:
            outputs.append({"output_type": "stream", "name": "stdout", "text": _lines(card.result)})
        outputs += [
            {
                "output_type": "display_data",
                "data": {"image/png": image.data},
                "metadata": {"mewrk_name": image.name},
            }
            for image in card.images
        ]
        return _new_cell("code", card.params["code"], meta, execution_count=None, outputs=outputs)
    if isinstance(card, ToolCall):
        result = f"\n\n```\n{card.result}\n```" if card.result is not None else ""
        source = f"{_heading(card.kind)}{_tool_line(card)}{result}"
    elif _has_text(card.kind):
        source = _heading(card.kind) + (getattr(card, "text", "") or "")
    elif isinstance(card, Comparison):  # a replay's: its line and diffs; the figures are in the metadata
        source = _heading(card.kind) + comparison_markdown(card)
    else:  # an approval, a divider: its line for the reader; the card itself is in the metadata
        source = _heading(card.kind) + card.title_line()
    if card.kind in COLLAPSED:
        meta["jupyter"] = {"source_hidden": True}
    return _new_cell("markdown", source, meta)


def to_notebook(cards: list[Card], title: str, session_id: str, model: str) -> dict[str, Any]:
    """The timeline as a notebook of format 4.5, as the JSON object its file holds."""
    return {
        "nbformat": 4,
        "nbformat_minor": 5,
        "metadata": {
            "mewrk": {"format": FORMAT, "title": title, "session_id": session_id, "model": model},
            "kernelspec": {"name": "python3", "display_name": "Python 3", "language": "python"},
            "language_info": {"name": "python"},
        },
        "cells": [_cell(card) for card in cards],
    }


def to_markdown(cards: list[Card], title: str) -> str:
    """The timeline as one Markdown document: a heading per card, code as code, thinking folded."""
    parts = [f"# {title}"]
    for card in cards:
        if _is_python(card):
            assert isinstance(card, ToolCall)
            result = f"\n\n```\n{card.result}\n```" if card.result is not None else ""
            parts.append(f"### {label(card.kind)}: python\n\n```python\n{card.params['code']}\n```{result}")
        elif isinstance(card, ToolCall):
            result = f"\n\n```\n{card.result}\n```" if card.result is not None else ""
            parts.append(f"### {label(card.kind)}\n\n{_tool_line(card)}{result}")
        elif card.kind == "thinking":
            text = getattr(card, "text", "") or ""
            parts.append(f"<details><summary>{label(card.kind)}</summary>\n\n{text}\n\n</details>")
        elif isinstance(card, Comparison):
            parts.append(f"### {label(card.kind)}\n\n{comparison_markdown(card)}")
        else:
            parts.append(f"### {label(card.kind)}\n\n{getattr(card, 'text', '') or card.title_line()}")
    return "\n\n".join(parts) + "\n"


def _source(cell: Any) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


def _stream_text(cell: Any) -> str | None:
    texts = [_source({"source": out.get("text", "")}) for out in cell.get("outputs", []) if out.get("text")]
    return "".join(texts) if texts else None


def _images(cell: Any) -> list[dict[str, Any]]:
    """The PNG outputs of a code cell, as a tool call's images."""
    found = []
    for i, out in enumerate(cell.get("outputs", []), 1):
        data = _source({"source": out.get("data", {}).get("image/png", "")}).replace("\n", "")
        if data:
            name = out.get("metadata", {}).get("mewrk_name") or f"output-{i}.png"
            size = len(base64.b64decode(data, validate=False))
            found.append({"name": name, "media_type": "image/png", "data": data, "size": size})
    return found


def _has_text(kind: str) -> bool:
    cls = CARD_CLASSES.get(kind)
    return cls is not None and "text" in cls.model_fields


def _card_of(cell: Any, number: int) -> Card | None:
    """The card a cell of an exported notebook stands for; None for a cell the person added (no metadata)."""
    meta = cell.get("metadata", {}).get("mewrk")
    if not isinstance(meta, dict) or "kind" not in meta:
        return None
    fields = dict(meta.get("card") or {})
    fields.update(kind=meta["kind"], id=meta.get("id", fields.get("id")))
    source = _source(cell)
    if cell.get("cell_type") == "code" and fields["kind"] == "tool_call":
        fields["params"] = {**fields.get("params", {}), "code": source}
        fields["result"] = _stream_text(cell)
        fields["images"] = _images(cell)
    elif _has_text(fields["kind"]):
        heading = _heading(fields["kind"])
        fields["text"] = source[len(heading) :] if source.startswith(heading) else source
    try:
        return _ended(card_from_dict(fields))
    except ValueError as exc:
        raise InvalidInput(
            f"Cell {number} of the notebook does not hold a card mewrk can read: {exc}"
        ) from None


def _ended(card: Card) -> Card:
    """An imported card as a record of what happened, never as something going on: a notebook (perhaps a
    stranger's) decides nothing here — an approval it says waits does not wait, a subagent or workflow it
    says runs is not followed (its session ids could name another conversation of this store), a call it
    says runs is not run."""
    if isinstance(card, Approval) and card.decision == "pending":
        return card.model_copy(update={"decision": "expired"})
    if isinstance(card, Subagent | Workflow) and card.state in ("running", "awaiting_approval"):
        result = f"{card.result}\n\n{NOT_HERE}" if card.result else NOT_HERE
        return card.model_copy(update={"state": "stopped", "result": result})
    if isinstance(card, ToolCall) and card.status in ("pending", "running"):
        return card.model_copy(update={"status": "saved"})
    return card


def read_notebook(path: Path) -> tuple[list[Card], dict[str, Any]]:
    """The cards of a notebook written by `export` (in order), and its `mewrk` metadata."""
    import nbformat

    try:
        notebook = nbformat.read(path, as_version=4)
    except FileNotFoundError:
        raise InvalidInput(f"Cannot import {path}: no such file.") from None
    except Exception as exc:  # nbformat raises several kinds for a file that is not a notebook
        raise InvalidInput(f"Cannot import {path}: it is not a Jupyter notebook ({exc}).") from None
    cards = [card for i, cell in enumerate(notebook.cells, 1) if (card := _card_of(cell, i)) is not None]
    meta = notebook.metadata.get("mewrk", {})
    return cards, meta if isinstance(meta, dict) else {}


def write_export(
    root: Path, to: str | Path, cards: list[Card], title: str, session_id: str, model: str
) -> Path:
    """Write the timeline to `to` (relative to the workspace `root`): a notebook for `.ipynb`, Markdown for
    `.md`; returns the full path written."""
    target = Path(to).expanduser()
    # The full path of what was written, as every surface says it: `..` taken out, symlinks kept.
    path = Path(os.path.normpath(target if target.is_absolute() else root / target))
    suffix = path.suffix.lower()
    if suffix not in (".ipynb", ".md"):
        raise InvalidInput(
            f"export writes a notebook (`.ipynb`) or Markdown (`.md`); `{path.name}` is neither."
        )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        if suffix == ".md":
            path.write_text(to_markdown(cards, title), encoding="utf-8")
        else:
            # Laid out as nbformat lays a notebook out, so that a notebook saved by JupyterLab diffs cleanly.
            text = json.dumps(
                to_notebook(cards, title, session_id, model),
                indent=1,
                sort_keys=True,
                separators=(",", ": "),
                ensure_ascii=False,
            )
            path.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:  # a folder in the way, a file where a folder should be, no permission, no space
        if isinstance(exc, FileExistsError):
            why = f"`{exc.filename}` is a file, not a folder"
        elif isinstance(exc, IsADirectoryError):
            why = "it is a folder"
        else:
            why = exc.strerror or str(exc)
        raise InvalidInput(f"Could not write `{path}`: {why}.") from None
    return path
