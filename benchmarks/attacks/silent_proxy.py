"""A server answers a streamed request with something other than a complete stream.

Each trial points a real SDK, through a real session, at the local wire server behaving as one of the
servers met in the wild: LiteLLM's proxy (the whole message as JSON where a stream was asked for), a
gateway's JSON that is no message, a sign-in page, a stream closed before its final event, or events in
another protocol's dialect. The product held when the turn ended with the reply card, or with an error
whose sentence names the server and is recorded in the history — never with nothing at all.
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
from mewrk_jupyter.store.db import forget_databases  # noqa: E402
from tests.providers.vendors import write_vendor  # noqa: E402
from tests.providers.wire import (  # noqa: E402
    Reply,
    WireServer,
    anthropic_reply,
    chat_reply,
    json_reply,
    responses_reply,
)
from tests.providers.wire.clients import close_clients  # noqa: E402

ATTACK = "a server answers a streamed request with a whole JSON message, a page or a stream cut short"
TRIALS = 30
PROTOCOLS = ("anthropic-messages", "openai-chat", "openai-responses")
REPLY = "The whole reply."
_rng = random.Random(11)


def _whole(protocol: str, **faults: object) -> Reply:
    build = {"anthropic-messages": anthropic_reply, "openai-chat": chat_reply}.get(protocol, responses_reply)
    return build(REPLY, **faults)


def _misbehaviour(protocol: str) -> tuple[str, Reply]:
    """One way a server in the wild answers, chosen at random."""
    kind = _rng.choice(["unstreamed", "not a message", "page", "cut before the end", "other dialect"])
    if kind == "unstreamed":
        return kind, _whole(protocol, unstreamed=True)
    if kind == "not a message":
        return kind, json_reply({"detail": "upstream warming up"})
    if kind == "page":
        return kind, json_reply("<html>Sign in</html>", headers={"content-type": "text/html"})
    if kind == "cut before the end":
        return kind, _whole(protocol, drop_last={"openai-chat": 3, "openai-responses": 1}.get(protocol, 2))
    other = chat_reply(REPLY) if protocol != "openai-chat" else anthropic_reply(REPLY)
    other.kind = None  # answer whichever path asks
    return kind, other


def trial(folder: Path) -> bool:
    """One turn against a misbehaving server; True when it ended with the reply or a visible error."""
    protocol = _rng.choice(PROTOCOLS)
    kind, reply = _misbehaviour(protocol)
    os.environ["ATTACK_PROXY_KEY"] = "sk-attack-proxy-key"
    server = WireServer().start()
    try:
        base = server.url if protocol == "anthropic-messages" else server.openai_base_url
        write_vendor(folder, "proxy", protocol, base, "  m: {context_window: 100000}\n", "ATTACK_PROXY_KEY")
        server.enqueue(reply)
        s = mw.Session.new(model="proxy/m")
        try:
            s.send("hi")
        except mw.MewrkError as exc:
            said = str(exc)
            recorded = bool(s.history) and s.history[-1].error == said
            return base in said and recorded and s.state == "idle"
        replies = [c for c in s.cards if c.kind == "model_reply" and c.text]
        return kind == "unstreamed" and bool(replies) and replies[-1].text == REPLY
    finally:
        server.stop()
        close_clients()
        session_module.forget_open_sessions()
        forget_databases()
        os.environ.pop("ATTACK_PROXY_KEY", None)
