"""Read-only values a session hands out — card lists, history entries, session rows — with notebook reprs."""

from __future__ import annotations

import html
from collections.abc import Callable, Iterable
from typing import Any

from pydantic import BaseModel

from ..cards.inert import for_notebook, inert_inline
from ..cards.words import label
from .history_summary import full_markdown, summarise, summarise_history

FULL_HINT = "_`%mewrk history N` shows request N in full, exactly as sent (in Python: `s.history[N-1]`)._"
FULL_HINT_TEXT = "s.history[N-1] shows request N in full, exactly as sent (in a notebook: %mewrk history N)."


def _cell(text: str) -> str:
    return html.escape(text).replace("|", "&#124;")


class CardList(list):
    """The timeline as a list of cards; renders as a small table in a notebook."""

    def __init__(self, cards: Iterable[Any] = (), not_sent: Callable[[], dict[str, str]] | None = None):
        super().__init__(cards)
        # Asked only when the table is drawn: most uses of `s.cards` never show it.
        self._not_sent = not_sent

    def _repr_html_(self) -> str:
        unsent = self._not_sent() if self._not_sent is not None else {}
        rows = "".join(
            f"<tr><td>{i}</td><td><code>{_cell(c.id)}</code></td><td>{_cell(label(c.kind))}</td>"
            f"<td>{'✎' if c.edited else ''}</td><td>{_cell(c.title_line())}"
            + (f"<br><em>Not sent: {_cell(unsent[c.id])}</em>" if c.id in unsent else "")
            + "</td></tr>"
            for i, c in enumerate(self)
        )
        return (
            # MathJax leaves an element of this class alone: no `$…$` of a card's text becomes a formula.
            '<table class="mathjax_ignore"><thead><tr><th>#</th><th>id</th><th>kind</th><th>edited</th>'
            "<th>text</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>"
        )


class HistoryEntry(BaseModel):
    """One request exactly as sent, and what came back (T17); `number` counts from 1 in its session."""

    id: int  # the store's id, unique across sessions
    number: int
    run_id: str | None
    model: str
    protocol: str
    started_at: float
    ended_at: float | None
    request: dict[str, Any]
    response: dict[str, Any] | None
    error: str | None

    def _repr_markdown_(self) -> str:
        summary = summarise(self, None, compare=False)  # alone, it does not know the request before it
        return for_notebook(f"{summary.markdown(messages=None)}\n\n{full_markdown(self)}")


class HistoryList(list):
    """A session's history; renders a short summary of each request, the full JSON one step away."""

    def __str__(self) -> str:
        if not self:
            return "No requests yet."
        blocks = [summary.text() for summary in summarise_history(self)]
        return "\n\n".join([*blocks, FULL_HINT_TEXT])

    def _repr_markdown_(self) -> str:
        if not self:
            return for_notebook("_No requests yet._")
        blocks = [summary.markdown() for summary in summarise_history(self)]
        blocks.append(FULL_HINT)
        return for_notebook("\n\n---\n\n".join(blocks))


class SessionInfo(BaseModel):
    """One row of `list_sessions()`."""

    id: str
    title: str
    state: str
    parent: str | None  # the session this one was branched or forked from (T11)
    created_at: float
    model: str

    @property
    def parent_id(self) -> str | None:
        """The parent's id, under the name `Session.parent_id` has."""
        return self.parent


class SessionInfoList(list):
    """The sessions of a workspace; renders as a table."""

    def _repr_markdown_(self) -> str:
        if not self:
            return for_notebook("_No sessions yet — `%mewrk new` starts one._")
        lines = ["| id | title | model | state | parent |", "|---|---|---|---|---|"]
        for s in self:
            lines.append(
                f"| `{s.id}` | {inert_inline(s.title).replace('|', '&#124;')} | `{s.model}` | {s.state} | {f'`{s.parent}`' if s.parent else ''} |"
            )
        return for_notebook("\n".join(lines))
