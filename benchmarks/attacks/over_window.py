"""A context far larger than the model's window is sent anyway.

Each trial gives a session on a 32k-token model (served by the local wire server through the real SDK)
a card of a random size between just over the window and seven times it, then sends. The product held
when nothing reached the server, nothing was recorded as sent, and the turn ended with the sentence
naming both sizes.
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the wire server lives with the tests

import mewrk_jupyter as mw  # noqa: E402
from mewrk_jupyter.engine import session as session_module  # noqa: E402
from mewrk_jupyter.engine.assembly.context import format_tokens  # noqa: E402
from mewrk_jupyter.store.db import forget_databases  # noqa: E402
from tests.providers.vendors import write_vendor  # noqa: E402
from tests.providers.wire import WireServer, anthropic_reply  # noqa: E402
from tests.providers.wire.clients import close_clients  # noqa: E402

ATTACK = "a context far larger than the model's window is sent anyway"
TRIALS = 20
WINDOW = 32_000
_rng = random.Random(11)


def trial(folder: Path) -> bool:
    """One oversized send; True when nothing was sent and the sentence named both sizes."""
    tokens = _rng.randrange(WINDOW + 500, 7 * WINDOW)
    os.environ["ATTACK_WINDOW_KEY"] = "sk-attack-window-key"
    server = WireServer().start()
    try:
        write_vendor(
            folder,
            "w",
            "anthropic-messages",
            server.url,
            f"  m: {{context_window: {WINDOW}}}\n",
            "ATTACK_WINDOW_KEY",
        )
        server.enqueue(anthropic_reply("This should never be asked for."))
        s = mw.Session.new(model="w/m")
        s.insert(mw.UserInput(text="x" * (4 * tokens)))
        try:
            s.send("summarise the above")
        except mw.ContextTooLarge as exc:
            said = str(exc)
            sizes = (
                f"about {format_tokens(s.context.next_request)} tokens" in said and "window is 32k" in said
            )
            return sizes and server.requests == [] and s.history == [] and s.state == "idle"
        return False
    finally:
        server.stop()
        close_clients()
        session_module.forget_open_sessions()
        forget_databases()
        os.environ.pop("ATTACK_WINDOW_KEY", None)
