"""Commands that choose the session to work on: a new one, another one, the list of them (a notebook's own)."""

from __future__ import annotations

from ..engine.catalog import list_sessions
from ..engine.navigation import switched_sentence
from ..engine.session import Session
from ..engine.trust import trust as trust_workspace
from .base import Call, Result, refuse


def starting_servers(session: Session) -> Session:
    """Start the session's MCP servers now, without waiting: the person writes a first message meanwhile.
    A server's start (its own process, then the SDK's handshake) takes seconds that the first call of
    one of its tools would otherwise wait for."""
    session.mcp_servers(wait=False)
    return session


def new(call: Call) -> Result:
    """`new [--model vendor/model] [TITLE…]`: a session here; it becomes current."""
    model, words, args = None, [], iter(call.args)
    for arg in args:
        if arg == "--model":
            model = next(args, None) or refuse("--model needs vendor/model")
        elif arg.startswith("--model="):
            model = arg.removeprefix("--model=")
        elif arg.startswith("--"):
            refuse(f"unknown option {arg}")
        else:
            words.append(arg)
    session = starting_servers(Session.new(model=model, title=" ".join(words) or None))
    said = (
        f"New session `{session.id}` · `{session.settings.model}` · stored in `{session.workspace.db_path}`"
    )
    return Result(said, opened=session, show="view")


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
