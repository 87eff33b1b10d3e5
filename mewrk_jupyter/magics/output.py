"""What `%mewrk` shows in a cell's output: Markdown, the help table, the usage sentence."""

from __future__ import annotations

from IPython.display import display

from ..commands import NOTEBOOK, Command, form, listed, notes, summary_for
from .turn_view import markdown_bundle


def say(markdown: str) -> None:
    """Show Markdown in the cell's output (its plain text in a terminal)."""
    display(markdown_bundle(markdown), raw=True)


def help_markdown() -> str:
    """Every `%mewrk` command in a table, and what its arguments stand for."""
    commands: list[Command] = listed(NOTEBOOK)
    rows = [f"| {form(c, NOTEBOOK)} | {summary_for(c, NOTEBOOK)} |" for c in commands]
    rows.append("| `%%mewrk` + cell body | send the body (an empty body continues) |")
    table = "\n".join(["| command | what it does |", "|---|---|", *rows])
    return "\n\n".join([table, *notes(NOTEBOOK, commands)])
