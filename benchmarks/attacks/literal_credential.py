"""A literal credential written where the `api_key` check did not look: a header such as `X-Auth-Key` or
`X-Access`, a URL's query (`?key=sk-…`, `?token=…`), an MCP server's `--api-key=…` or `--token …`
argument, an `env` value under a plain name, a tool's or hook's command. The product held when the
settings editor refuses each without writing or quoting it, and the file written on disk is left out
with a notice naming its field (never the value) while the rest of the folder works."""

from __future__ import annotations

import sys
from pathlib import Path

import mewrk_jupyter as mw

from . import as_a_newcomer, write

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the attacker's files are the red-team tests' own

from tests.config.test_credentials import ATTACKS, VENDOR  # noqa: E402

ATTACK = "a literal credential in a header, a URL's query, an argument or an env value"
TRIALS = len(ATTACKS)
_trial = 0


def trial(folder: Path) -> bool:
    """One of the attacker's files in a fresh workspace; True when it was refused and left out, unquoted."""
    global _trial
    rel, text, field, secret = ATTACKS[_trial % len(ATTACKS)]
    _trial += 1
    sentence = f"{field} must be a reference, not a literal"
    with as_a_newcomer(folder) as notices:
        try:
            mw.SettingsEditor().create(rel, text)
            refused = False
        except mw.ConfigError as exc:
            refused = sentence in str(exc) and secret not in str(exc)
        unwritten = not (folder / ".mewrk" / rel).exists()
        write(folder, rel, text)
        write(folder, "llm/fine.yaml", VENDOR)
        mw.trust()
        session = mw.Session.new()
        session.send("hello")
        other = mw.Session.new(model="fine/m")
        shown = " ".join(f"{s.where} {s.reason}" for s in session.mcp_servers())
    left_out = any(n.startswith(f"{rel}: ") and sentence in n for n in notices)
    unquoted = not any(secret in n for n in notices) and secret not in shown
    works = session.cards[-1].kind == "model_reply" and other.settings.model == "fine/m"
    return refused and unwritten and left_out and unquoted and works
