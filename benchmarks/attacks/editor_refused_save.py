"""A save the settings editor refused (broken YAML, a literal key, a schema error, an empty file, a huge
text) still changed the file on disk or left a half-written file beside it."""

from __future__ import annotations

import random
from pathlib import Path

import mewrk_jupyter as mw

from . import as_a_newcomer, write

ATTACK = "a refused settings-editor save changes the file or leaves debris beside it"
TRIALS = 60

GOOD = "protocol: openai-chat\napi_key: ${OPENAI_API_KEY}\nmodels: {m: {}}\n"
BAD = [
    "protocol: [openai-chat\nmodels:\n",  # broken YAML
    "protocol: openai-chat\napi_key: sk-live-abcdef123456\nmodels: {m: {}}\n",  # a literal key
    "protocol: openai-chatt\nmodels: {m: {}}\n",  # a schema error
    "",  # empty
    "# only a comment\n",
    "- a\n- list\n",
    "protocol: openai-chat\nprotocol: openai-chat\nmodels: {m: {}}\n",  # a key written twice
    "x: " + "y" * (300 * 1024) + "\n",  # too large
    "protocol: openai-chat\nmodels: {m: {}}\nbase_url: http://user:pw@host/v1\n",  # credentials in a URL
]


def trial(folder: Path) -> bool:
    """True when the save raises a ConfigError and the file's bytes, time and inode are as they were."""
    pick = random.Random(str(folder))
    path = write(folder, "llm/o.yaml", GOOD)
    stat = path.stat()
    with as_a_newcomer(folder):
        editor = mw.SettingsEditor(workspace=folder)
        version = editor.read("llm/o.yaml").version
        try:
            editor.save("llm/o.yaml", pick.choice(BAD), version, overwrite=pick.random() < 0.5)
        except mw.ConfigError:
            pass
        else:
            return False
    now = path.stat()
    same = (now.st_mtime_ns, now.st_ino, path.read_bytes()) == (stat.st_mtime_ns, stat.st_ino, GOOD.encode())
    return same and [p.name for p in path.parent.iterdir()] == ["o.yaml"]
