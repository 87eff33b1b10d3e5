"""Commands that choose the session to work on: a new one, another one, the list of them (a notebook's own)."""

from __future__ import annotations

from ..engine.catalog import list_sessions
from ..engine.navigation import switched_sentence
from ..engine.notebook_memory import recall
from ..engine.session import Session
from ..engine.trust import trust as trust_workspace
from .base import Call, Result, read_options


def starting_servers(session: Session) -> Session:
    """Start the session's MCP servers now, without waiting: the person writes a first message meanwhile.
    A server's start (its own process, then the SDK's handshake) takes seconds that the first call of
    one of its tools would otherwise wait for."""
    session.mcp_servers(wait=False)
    return session


def new(call: Call) -> Result:
    """`new [--fresh] [--agent NAME] [--model vendor/model] [TITLE…]`: a session here; it becomes current.
    Run again in a notebook cell that made one (after a kernel restart, say), it shows that session again,
    unless `--fresh`."""
    options, flags, words = read_options("new", call.args, NEW_OPTIONS, ("--fresh",))
    fresh = "--fresh" in flags
    made = recall(call.place, cell=True) if call.place is not None and not fresh else None
    if made is not None:
        # The same cell run again: the session it made, as a notebook's cell gives the same result again.
        session = starting_servers(Session.open(made))
        said = (
            f"This cell's session `{session.id}` “{session.title}” · `{session.settings.model}` · stored in "
            f"`{session.workspace.store}`; `%mewrk new --fresh` starts another."
        )
        return Result(said, opened=session, show="view")
    settings = {"agent": options["--agent"]} if "--agent" in options else {}
    session = starting_servers(
        Session.new(model=options.get("--model"), title=" ".join(words) or None, **settings)
    )
    agent = f"agent `{session.settings.agent}` · " if "--agent" in options else ""
    said = f"New session `{session.id}` · {agent}`{session.settings.model}` · stored in `{session.workspace.store}`"
    return Result(said, opened=session, show="view")


# The options of `new`, each with what it needs after it.
NEW_OPTIONS = {"--agent": "the name of an agent file of .mewrk/agents/", "--model": "vendor/model"}


def use(call: Call) -> Result:
    """`use ID`: another session of this workspace becomes current (an id prefix is enough)."""
    session = starting_servers(Session.open(call.args[0]))
    return Result(switched_sentence(session), opened=session, show="timeline")


def sessions(call: Call) -> Result:
    """`sessions`: the sessions of this workspace, and which is current."""
    current = f"\n\nCurrent: `{call.session.id}`" if call.session is not None else ""
    return Result(markdown=list_sessions()._repr_markdown_() + current)


def trust(call: Call) -> Result:
    """`trust`: trust this workspace's configuration folder as its files stand now."""
    root = call.session.workspace.root if call.session is not None else None
    said = trust_workspace(root)
    if call.session is not None:
        starting_servers(call.session)  # the servers the trust allows
    if call.session is not None and call.session.settings.model.startswith("offline/"):
        said += f" This session keeps `{call.session.settings.model}`; start a new session to use the folder's models."
    return Result(said, data={"trusted": True})
