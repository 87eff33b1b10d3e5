"""A vendor's server echoes the API key it received back in its error message.

Each trial sets a fresh key in the environment, referenced by the vendor files (`api_key: ${ECHO_CRED}`,
a name no credential pattern matches), and the local server answers with one of the errors below,
quoting the key. The product held when the key is in neither the error the person sees (with its
chained causes, as a traceback would print them), nor the history, nor the store's files.
"""

from __future__ import annotations

import json
import os
import secrets
import sys
import traceback
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the wire server lives with the tests

import mewrk_jupyter as mw  # noqa: E402
from mewrk_jupyter.engine import session as session_module  # noqa: E402
from mewrk_jupyter.store.db import forget_databases  # noqa: E402
from tests.providers.wire import Reply, WireServer, anthropic_error, anthropic_reply, openai_error  # noqa: E402

from . import as_a_newcomer  # noqa: E402

ATTACK = "a vendor's server echoes the API key back in its error message"
TRIALS = 12
# (model, the server's answer quoting `key`): HTTP errors of both protocols, and an error event mid-stream.
ANSWERS: tuple[tuple[str, Callable[[str], Reply]], ...] = (
    ("a/m", lambda key: anthropic_error(400, f"invalid x-api-key: {key}")),
    ("a/m", lambda key: anthropic_error(404, f"no model for key {key}")),
    (
        "a/m",
        lambda key: anthropic_reply(
            "partial", error_after=3, error_type="invalid_request_error", error_message=f"key {key} revoked"
        ),
    ),
    ("o/m", lambda key: openai_error(400, f"Incorrect API key provided: {key}")),
    ("o/m", lambda key: openai_error(403, f"key {key} may not use this model")),
    ("o/m", lambda key: openai_error(422, f"{{'api_key': '{key}'}} is not valid")),
)
_server: WireServer | None = None
_trial = 0


def server() -> WireServer:
    """One local server for every trial of this run."""
    global _server
    if _server is None:
        _server = WireServer().start()
    return _server


def trial(folder: Path) -> bool:
    """One failing request in a fresh workspace; True when the echoed key was stored and shown nowhere."""
    global _trial
    model, answer = ANSWERS[_trial % len(ANSWERS)]
    _trial += 1
    key = "cred-" + secrets.token_hex(16)
    wire = server()
    llm = folder / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "a.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {wire.url}\napi_key: ${{ECHO_CRED}}\nmodels:\n  m:\n"
    )
    (llm / "o.yaml").write_text(
        f"protocol: openai-chat\nbase_url: {wire.openai_base_url}\napi_key: ${{ECHO_CRED}}\nmodels:\n  m:\n"
    )
    wire.enqueue(answer(key))
    os.environ["ECHO_CRED"] = key
    shown = ""
    try:
        with as_a_newcomer(folder):
            mw.trust(folder)  # the person wrote these vendor files and trusts them
            s = mw.Session.new(model=model)
            try:
                s.send("hello")
            except mw.MewrkError as exc:
                shown = "".join(traceback.format_exception(exc))
            if s.last_run is None or s.last_run.state != "error":
                return False  # the attack did not even produce an error: the trial says nothing
            shown += str(s.last_run.error) + json.dumps([h.model_dump() for h in s.history])
    finally:
        del os.environ["ECHO_CRED"]
        session_module.forget_open_sessions()
        forget_databases()
    stored = b"".join(p.read_bytes() for p in (folder / ".mewrk").glob("mewrk.db*"))
    return key not in shown and key.encode() not in stored
