"""One invalid vendor file (a typo, a literal key, broken YAML, binary bytes, a huge file …) made every
session of the workspace fail, even offline ones; only that vendor may be disabled, with a notice naming it."""

from __future__ import annotations

import random
from pathlib import Path

import mewrk_jupyter as mw

from . import as_a_newcomer, write

ATTACK = "one invalid vendor file breaks every session of the workspace"
TRIALS = 40

BAD_FILES: list[str | bytes] = [
    "protocol: anthropic-messagez\nmodels: {m: {}}\n",  # a typo in the protocol
    "protocol: openai-chat\napi_key: sk-literal-key\nmodels: {m: {}}\n",  # a literal secret
    "protocol: openai-chat\nmodels: {m: {}}\nbase_url: ftp://example.com\n",
    "protocol: openai-chat\nmodels: {m: {}}\nmodel: x\n",  # an unknown field
    "protocol: openai-chat\nmodels: {}\n",
    "protocol: [openai-chat\nmodels:\n",  # broken YAML
    "",  # empty
    "- a list\n- not a mapping\n",
    b"\xff\xfe\x00garbage",  # not UTF-8
    "protocol: openai-chat\nprotocol: anthropic-messages\nmodels: {m: {}}\n",  # a key written twice
    "protocol: openai-chat\nmodels: {m: {context_window: -5}}\n",
    "x: " + "y" * (300 * 1024) + "\n",  # too large
]


def trial(folder: Path) -> bool:
    """True when the offline session works, a valid vendor beside it too, and a notice names the bad file."""
    bad = random.Random(str(folder)).choice(BAD_FILES)
    write(folder, "llm/broken.yaml", bad)
    write(folder, "llm/fine.yaml", "protocol: openai-chat\nmodels:\n  m: {}\n")
    with as_a_newcomer(folder) as notices:
        session = mw.Session.new()
        session.send("hello")
        other = mw.Session.new(model="fine/m")
        try:
            mw.Session.new(model="broken/m")
            named = False
        except mw.ConfigError as exc:
            named = str(exc).startswith("llm/broken.yaml")
    return (
        session.cards[-1].kind == "model_reply"
        and other.settings.model == "fine/m"
        and named
        and any(n.startswith("llm/broken.yaml: ") for n in notices)
    )
