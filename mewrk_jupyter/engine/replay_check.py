"""`mw.replay_check`: a saved session as a regression test — replayed, and an AssertionError with the
diff when its tool calls (or, asked, its text) differ from the recording's."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from ..errors import InvalidInput
from .replay.run import Replay
from .session import Session


def replay_check(
    session_or_path: Session | str | Path,
    model: str | None = None,
    *,
    agent: str | None = None,
    compare: Literal["tools", "text"] = "tools",
    tools: str = "recorded",
    workspace: str | Path | None = None,
    timeout: float | None = None,
) -> Replay:
    """Replay a session (a Session, its id, or a notebook `s.export` wrote) and raise AssertionError,
    with the report of the turns that differ, when a turn's tool calls differ from the recording's
    (`compare="text"`: its text too). Returns the replay when every turn agrees."""
    if compare not in ("tools", "text"):
        raise InvalidInput(f'compare is "tools" or "text" (the tool calls and the text), not {compare!r}.')
    source = _recording(session_or_path, workspace)
    replay = source.replay(model, agent=agent, tools=tools).wait(timeout)
    if not replay.done:
        replay.stop()
        raise AssertionError(f"The replay did not end within {timeout} s.\n\n{replay.report()}")
    if replay.state == "failed":
        raise AssertionError(f"The replay failed: {replay.error}\n\n{replay.report()}")
    differ = [t for t in replay.turns if not t.same_tools or (compare == "text" and not t.same_text)]
    if differ:
        numbers = ", ".join(str(t.number) for t in differ)
        raise AssertionError(f"Turns {numbers} differ from the recording.\n\n{replay.report()}")
    return replay


def _recording(what: object, workspace: str | Path | None) -> Session:
    if isinstance(what, Session):
        return what
    if isinstance(what, Path) or (isinstance(what, str) and what.endswith(".ipynb")):
        path = Path(what).expanduser()
        if not path.is_file():
            raise InvalidInput(f"There is no notebook at {path} to replay.")
        return Session.import_notebook(path, workspace=workspace)
    if isinstance(what, str):
        return Session.open(what, workspace=workspace)
    raise InvalidInput(
        f"replay_check takes a Session, a session's id or the path of an exported notebook; got {type(what).__name__}."
    )
