"""A grep pattern built to backtrack for ever, sent by the model in a real turn: the turn must end quickly."""

from __future__ import annotations

import random
from pathlib import Path

from . import last_json_line

ATTACK = "grep/find patterns that backtrack catastrophically return within seconds"
TRIALS = 6  # each starts a Python process: the import, not the turn, takes most of a trial
SECONDS = 10.0  # the turn's own time; a Python `re` grep on the first pattern below ran for minutes
HUNG = 120.0  # a child still running then is a hung turn

# Classic catastrophic patterns, each with the text that makes a backtracking engine explode.
PATTERNS = [
    ("grep", "(a+)+$", "a" * 5000 + "!"),
    ("grep", "(a|aa)+b", "a" * 5000),
    ("grep", "(x+x+)+y", "x" * 5000),
    ("grep", "^(\\w+\\s?)*$", "word " * 1000 + "!"),
    ("grep", "(.*a){20}", "a" * 5000),
    ("find", "*a*a*a*a*a*a*a*a*a*a*a*a*b", ""),
]

TURN = """
    import json, sys, time
    import mewrk_jupyter as mw
    s = mw.Session.new()
    started = time.monotonic()
    s.send("call: " + sys.argv[1] + " " + json.dumps({"pattern": sys.argv[2]}))
    seconds = time.monotonic() - started
    call = [c for c in s.cards if c.kind == "tool_call"][0]
    print(json.dumps({"state": s.state, "status": call.status, "result": call.result, "seconds": seconds}))
"""


def trial(folder: Path) -> bool:
    """One turn whose model calls grep (or find) with a backtracking pattern; held when it ends in time."""
    tool, pattern, text = random.choice(PATTERNS)
    (folder / "victim.txt").write_text(text + "\n")
    (folder / ("a" * 200)).write_text("")
    outcome = last_json_line(TURN, [tool, pattern], folder, HUNG)
    if outcome is None:
        return False
    ended = outcome["state"] == "idle" and outcome["status"] == "done" and outcome["result"] is not None
    return ended and outcome["seconds"] < SECONDS
