"""Read-only values a session hands out — card lists, history entries, session rows — with notebook reprs."""

from __future__ import annotations

import html
import json
from datetime import datetime
from typing import Any

from pydantic import BaseModel

from ..cards.words import label


def _cell(text: str) -> str:
    return html.escape(text).replace("|", "&#124;")


class CardList(list):
    """The timeline as a list of cards; renders as a small table in a notebook."""

    def _repr_html_(self) -> str:
        rows = "".join(
            f"<tr><td>{i}</td><td><code>{_cell(c.id)}</code></td><td>{_cell(label(c.kind))}</td>"
            f"<td>{'✎' if c.edited else ''}</td><td>{_cell(c.title_line())}</td></tr>"
            for i, c in enumerate(self)
        )
        return (
            "<table><thead><tr><th>#</th><th>id</th><th>kind</th><th>edited</th><th>text</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
        )


class HistoryEntry(BaseModel):
    """One request exactly as sent, and what came back (T17)."""

    id: int
    run_id: str | None
    model: str
    protocol: str
    started_at: float
    ended_at: float | None
    request: dict[str, Any]
    response: dict[str, Any] | None
    error: str | None

    def _repr_markdown_(self) -> str:
        when = datetime.fromtimestamp(self.started_at).strftime("%H:%M:%S")
        body = json.dumps(self.request, indent=2, ensure_ascii=False)
        answer = json.dumps(self.response, indent=2, ensure_ascii=False) if self.response else "—"
        error = f"\n\n**error:** {self.error}" if self.error else ""
        return (
            f"**Request {self.id}** · `{self.model}` · {when}\n\n```json\n{body}\n```\n\n"
            f"**Response**\n\n```json\n{answer}\n```{error}"
        )


class HistoryList(list):
    """A session's history; renders each request and response in a notebook."""

    def _repr_markdown_(self) -> str:
        if not self:
            return "_No requests yet._"
        return "\n\n---\n\n".join(entry._repr_markdown_() for entry in self)


class SessionInfo(BaseModel):
    """One row of `list_sessions()`."""

    id: str
    title: str
    state: str
    parent_id: str | None
    created_at: float
    model: str


class SessionInfoList(list):
    """The sessions of a workspace; renders as a table."""

    def _repr_markdown_(self) -> str:
        if not self:
            return "_No sessions yet — `%mewrk new` starts one._"
        lines = ["| id | title | model | state | parent |", "|---|---|---|---|---|"]
        for s in self:
            lines.append(
                f"| `{s.id}` | {_cell(s.title)} | `{s.model}` | {s.state} | {f'`{s.parent_id}`' if s.parent_id else ''} |"
            )
        return "\n".join(lines)
