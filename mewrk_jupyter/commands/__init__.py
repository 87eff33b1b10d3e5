"""The one table of commands, for `%mewrk` in a notebook and `/` in the widget's composer.

Each command is declared once below: its name, the arguments it takes (its synopsis), what it does
(its summary), whether it needs a session, which surfaces offer it, and one handler that calls the
session's methods and returns a `Result`. One parser (`parse.py`) reads both surfaces' lines; the
help and the composer's completion list come from this table. How a result looks (Markdown and the
live view in a notebook, a notice, an offer or a panel in the widget) is each surface's own affair.
"""

from __future__ import annotations

from ..engine.session import Session
from . import economy, kernel, mcp, preferences, replay, sessions, settings, skills, timeline, tools
from .base import (
    COMPOSER,
    NOTEBOOK,
    Call,
    Command,
    Result,
    Show,
    Surface,
    UsageProblem,
    form,
    sentence,
    summary_for,
    usage,
)
from .parse import parse, split_name
from .timeline import deleted, stopped
from .tools import approved

__all__ = [
    "COMMANDS",
    "COMPOSER",
    "NOTEBOOK",
    "Call",
    "Command",
    "Result",
    "Show",
    "Surface",
    "UsageProblem",
    "approved",
    "deleted",
    "form",
    "listed",
    "notes",
    "parse",
    "sentence",
    "split_name",
    "stopped",
    "summary_for",
    "usage",
]

ONLY_NOTEBOOK: tuple[Surface, ...] = (NOTEBOOK,)
CARD_DEFAULTS_TO_LAST: tuple[tuple[Surface, str], ...] = ((COMPOSER, "[CARD]"),)

COMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        Command(
            "new",
            "[--fresh] [--agent NAME] [--model vendor/model] [TITLE…]",
            "start a session here and make it current (run again in its cell: the same session; --fresh: another)",
            sessions.new,
            needs_session=False,
            surfaces=ONLY_NOTEBOOK,
        ),
        Command(
            "use",
            "ID",
            "make a session current and show it (an id prefix is enough)",
            sessions.use,
            needs_session=False,
            surfaces=ONLY_NOTEBOOK,
        ),
        Command(
            "sessions",
            "",
            "list the sessions of this workspace",
            sessions.sessions,
            needs_session=False,
            surfaces=ONLY_NOTEBOOK,
        ),
        Command(
            "send",
            "[TEXT]",
            "send a message (no text: continue)",
            timeline.send,
            surfaces=ONLY_NOTEBOOK,
            after_turn=True,
        ),
        Command(
            "continue", "", "run the model on the timeline as it stands", timeline.continue_, after_turn=True
        ),
        Command("undo", "", "undo this session's last change", timeline.undo),
        Command("redo", "", "redo what was undone last", timeline.redo),
        Command(
            "stop",
            "",
            "stop the running turn, whichever window owns it, and a replay of this session or on it",
            timeline.stop,
        ),
        Command(
            "branch",
            "CARD",
            "new session with the timeline up to and including CARD",
            timeline.copy,
            synopsis_on=CARD_DEFAULTS_TO_LAST,
        ),
        Command(
            "fork",
            "CARD",
            "new session with everything above CARD",
            timeline.copy,
            synopsis_on=CARD_DEFAULTS_TO_LAST,
        ),
        Command(
            "attach",
            "NAME",
            "add a variable, `Out[N]` or `In[N]` to the timeline: a table, an array's preview, a figure's image",
            kernel.attach,
            needs="attach",
        ),
        Command(
            "export",
            "PATH",
            "write the session as a notebook (`PATH.ipynb`) or as Markdown (`PATH.md`)",
            kernel.export,
            needs="export",
        ),
        Command("delete", "CARD [CARD…]", "delete cards (one undo restores them)", timeline.delete),
        Command("edit", "CARD TEXT", "replace a card's text", timeline.edit, surfaces=ONLY_NOTEBOOK),
        Command("cards", "", "the timeline as a table of cards", timeline.cards, surfaces=ONLY_NOTEBOOK),
        Command(
            "show",
            "",
            "the whole timeline (in a notebook: the session's live view)",
            timeline.show,
            surfaces=ONLY_NOTEBOOK,
        ),
        Command(
            "history",
            "[N]",
            "what was really sent and received, request by request",
            timeline.history,
            synopsis_on=((COMPOSER, ""),),  # the widget's panel lists the requests and opens each one
        ),
        Command("context", "", "how full the context window is, by card kind", timeline.context),
        Command(
            "stale",
            "",
            "the tool results that no longer serve (read again later, changed since, large and quoted by "
            "nothing after), each with why and its tokens",
            economy.stale,
        ),
        Command(
            "prune",
            "[stale | CARD…] [--thinking]",
            "turn the stale tool results (or the cards named) into one-line stubs that say what was there, "
            "as one undo step; `--thinking`: the thinking above the last reply too",
            economy.prune,
        ),
        Command(
            "cache",
            "CARD",
            "what the next request reads from the prompt cache and sends anew if CARD changes, and the cost",
            economy.cache,
        ),
        Command(
            "compact",
            "[TEXT]",
            "summarise the conversation so far: later requests carry the summary instead of the cards above; "
            "text after it is instructions for the summary (`compact keep the schema decisions`) "
            "(`compact now [TEXT]`: continue in a new session, from the provider's own compaction in the mode "
            "native, else from handoff documents the model writes)",
            timeline.compact,
            needs="compact",
        ),
        Command(
            "workflow",
            "NAME [TEXT]",
            "start the workflow `.mewrk/workflows/NAME.yaml` in the background, TEXT its input: its steps run "
            "one after the other and its card shows each one's timeline; stop stops it",
            timeline.workflow,
        ),
        Command(
            "replay",
            "[--model M] [--agent A] [--upto N/CARD] [--live]",
            "ask this session's messages again of another model or agent, on a branch, each turn compared "
            "with the recording's, and show the report; `--upto` stops after N messages or at a card, "
            "`--live` runs the tools again instead of giving the recorded results; stop stops it",
            replay.replay,
            after_turn=True,
        ),
        Command(
            "approve",
            "[REASON]",
            "approve the pending tool call (`approve always`: the tool for the rest of this session; "
            "`always command`, `always like`, `always bash(git *)`: this command, commands like it, or "
            "the rule; `--policy`: kept in the safety level's policy file)",
            tools.approve,
            needs="approve",
        ),
        Command(
            "reject",
            "[REASON]",
            "reject the pending tool call; the model reads the reason and goes on",
            tools.reject,
            needs="reject",
        ),
        Command(
            "tools",
            "",
            "the tools this session's model may call, and what the safety level does with each",
            tools.tools,
            surfaces=ONLY_NOTEBOOK,
        ),
        Command(
            "tool",
            "NAME [TEXT]",
            'run a tool now and add its card — Execute and add, e.g. `tool ls {"path": "."}`',
            tools.tool,
            surfaces=ONLY_NOTEBOOK,
        ),
        Command(
            "rerun",
            "CARD",
            "run an ls / grep / find / read / lsp call again with its edited parameters",
            tools.rerun,
            surfaces=ONLY_NOTEBOOK,
        ),
        Command(
            "mcp",
            "",
            "the workspace's MCP servers: running with their tools, or why one failed",
            mcp.mcp,
            needs="mcp_servers",
        ),
        Command(
            "skill",
            "[NAME]",
            "the workspace's skills, or give the model one now (its instructions arrive as a host message)",
            skills.skill,
            needs="use_skill",
        ),
        Command(
            "set",
            "[KEY] [VALUE]",
            "the conversation settings (model, safety_level, reasoning, …), or change one: `set model offline/thinker`",
            settings.set_,
        ),
        Command(
            "settings",
            "",
            "open the settings: conversation settings, preferences and the configuration files",
            settings.panel,
        ),
        Command(
            "trust",
            "",
            "trust this workspace's configuration folder, so that its servers, secrets and commands are used",
            sessions.trust,
            needs_session=False,
        ),
        Command(
            "preferences",
            "",
            "the preferences of this workspace's configuration folder, shared by all its sessions",
            preferences.show,
            needs_session=False,
        ),
        Command("help", "", "list the commands", timeline.help_, needs_session=False),
    )
}

# What the arguments of the synopses stand for, said once for every command that takes them.
NOTES: dict[str, str] = {
    "CARD": "CARD is a card id, an unambiguous id prefix, or a position from the end (`-1`: the last card).",
    "N": "N is a request's number in the history: that request in full, exactly as sent.",
    "PATH": "PATH is a file path, relative to the workspace.",
    "NAME": "NAME is a variable of the kernel or an expression of them, such as `df.head()` or `Out[3]`.",
}


def listed(surface: Surface, session: object = None) -> list[Command]:
    """The commands a surface offers, in the table's order (for a session: those it can do)."""
    return [c for c in COMMANDS.values() if c.offered(surface, session if session is not None else Session)]


def notes(surface: Surface, commands: list[Command]) -> list[str]:
    """The notes on the arguments these commands take on that surface."""
    taken = {word.strip("[]…") for c in commands for word in c.synopsis_for(surface).split()}
    return [note for word, note in NOTES.items() if word in taken]
