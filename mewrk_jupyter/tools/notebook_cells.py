"""A notebook's cells as the model reads them: each cell's index, id, type, source and outputs as text,
an output cut at OUTPUT_LIMIT, images kept aside as attachments; and the cells a call names."""

from __future__ import annotations

import base64
import binascii
import re
from typing import Any

from ..cards.models import Attachment
from .base import ToolFailure

# Characters of one output the model reads; the rest is cut with a note (the notebook keeps all of it).
OUTPUT_LIMIT = 2000
_ANSI = re.compile(r"\x1b\[[0-9;]*[A-Za-z]")
_IMAGES = ("image/png", "image/jpeg")


def source_text(value: Any) -> str:
    """A notebook's multiline string (a string or a list of lines) as one string."""
    if isinstance(value, list):
        return "".join(str(part) for part in value)
    return "" if value is None else str(value)


def _cut(text: str) -> str:
    if len(text) <= OUTPUT_LIMIT:
        return text
    return (
        text[:OUTPUT_LIMIT]
        + f"\n[… {len(text) - OUTPUT_LIMIT} more characters of this output are in the notebook]"
    )


def _image(media_type: str, data: Any, name: str) -> Attachment | None:
    encoded = source_text(data).replace("\n", "")
    try:
        size = len(base64.b64decode(encoded, validate=True))
    except (binascii.Error, ValueError):
        return None
    return Attachment(name=name, media_type=media_type, data=encoded, size=size)


def outputs_text(outputs: list[Any], images: list[Attachment], where: str) -> list[str]:
    """A code cell's outputs as the model reads them: text, each cut at OUTPUT_LIMIT; images kept aside."""
    lines: list[str] = []
    for output in outputs:
        if not isinstance(output, dict):
            continue
        kind = output.get("output_type")
        if kind == "stream":
            lines.append(f"[{output.get('name', 'stdout')}]\n{_cut(source_text(output.get('text')))}")
        elif kind == "error":
            trace = _ANSI.sub("", "\n".join(source_text(line) for line in output.get("traceback") or []))
            lines.append(f"[error] {output.get('ename')}: {output.get('evalue')}\n{_cut(trace)}")
        elif kind in ("execute_result", "display_data"):
            data = output.get("data") or {}
            for media_type in _IMAGES:
                if media_type in data:
                    image = _image(
                        media_type, data[media_type], f"{where}-output-{len(images) + 1}.{media_type[6:]}"
                    )
                    if image is not None:
                        images.append(image)
                        lines.append(f"[image {len(images)}: {media_type}]")
                    break
            if "text/plain" in data:
                label = "result" if kind == "execute_result" else "display"
                lines.append(f"[{label}]\n{_cut(source_text(data['text/plain']))}")
    return lines


def cell_text(cell: dict[str, Any], images: list[Attachment]) -> str:
    """One cell as the model reads it: its index, id, type, execution count, source and outputs."""
    index, kind = cell.get("index"), cell.get("cell_type")
    head = f"## cell {index} · id {cell.get('id')} · {kind}"
    if kind == "code":
        count = cell.get("execution_count")
        head += f" · In [{count if count is not None else ' '}]"
    parts = [head, "```", source_text(cell.get("source")), "```"]
    if kind == "code":
        shown = outputs_text(list(cell.get("outputs") or []), images, f"cell-{index}")
        if shown:
            parts += ["outputs:", *shown]
    return "\n".join(parts)


def selected_cells(cells: list[dict[str, Any]], wanted: list[Any] | None, count: int) -> list[dict[str, Any]]:
    """The cells named, in the order named, from those the window sent of the `count` it has."""
    if not wanted:
        return cells
    by_id = {cell.get("id"): cell for cell in cells}
    by_index = {cell.get("index"): cell for cell in cells}
    chosen = []
    for item in wanted:
        if isinstance(item, int) and not isinstance(item, bool):
            if item not in by_index:
                raise ToolFailure(
                    f"The notebook has {count} cells (indices 0 to {count - 1}); there is no cell {item}."
                )
            chosen.append(by_index[item])
        elif isinstance(item, str) and item in by_id:
            chosen.append(by_id[item])
        else:
            raise ToolFailure(
                f"The notebook has no cell with id {item}: read the notebook again for its ids."
            )
    return chosen
