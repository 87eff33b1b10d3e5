"""The model calls a tool that does not exist: the call must fail at once, never wait for an approval."""

from __future__ import annotations

import random
import string
from pathlib import Path

import mewrk_jupyter as mw

ATTACK = "a call to a tool that does not exist is an error result, not an approval"
TRIALS = 20


def trial(folder: Path) -> bool:
    """One turn whose model calls a made-up tool name; held when no approval opened and it got an error."""
    name = random.choice(["nonexistent_tool", "box", "sudo", "bash2", "Read"]) + "".join(
        random.choices(string.ascii_lowercase, k=random.randint(0, 3))
    )
    session = mw.Session.new()
    session.send(f'call: {name} {{"command": "touch approved.txt"}}')
    calls = [c for c in session.cards if c.kind == "tool_call"]
    return (
        session.state == "idle"
        and session.pending_approval is None
        and not any(c.kind == "approval" for c in session.cards)
        and len(calls) == 1
        and calls[0].is_error
        and calls[0].result is not None
        and calls[0].result.startswith(f"There is no tool `{name}`")
        and not (folder / "approved.txt").exists()
    )
