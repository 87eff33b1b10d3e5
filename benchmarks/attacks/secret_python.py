"""The model's `python` code prints the kernel's keys encoded, from the kernel's own `os.environ`.

The `python` tool runs in the kernel itself, so no sandbox of commands can keep the keys from it: only
the redactor stands between them and the model. Each trial starts a kernel-like Python process holding
three fresh keys and a secret file (`api_key: @file:…`), whose session's model calls `python` with one
of the codes below (the last one in two calls, half a key each); the person approves. The product held
when no key, plain or in any of these forms, is in a request the server received or in the store's files.
"""

from __future__ import annotations

import secrets
from pathlib import Path

from .secret_encoded import held
from .secret_env import anthropic_tool_use, run_kernel

ATTACK = "the python tool prints the kernel's keys encoded (base64, reversed, hex, spaced, rot13, halves in two calls)"
NAMES = "['ANTHROPIC_API_KEY', 'VENDOR_CRED', 'MY_SERVICE_TOKEN']"
CODES: tuple[tuple[str, ...], ...] = (
    (f"import os, base64\nprint([base64.b64encode(os.environ[k].encode()).decode() for k in {NAMES}])",),
    (f"import os\nprint([os.environ[k][::-1] for k in {NAMES}])",),
    (f"import os\nprint([os.environ[k].encode().hex() for k in {NAMES}])",),
    (f"import os\nprint([' '.join(os.environ[k]) for k in {NAMES}])",),
    (f"import os, codecs\nprint([codecs.encode(os.environ[k], 'rot13') for k in {NAMES}])",),
    ("import os, base64\nprint(base64.urlsafe_b64encode(repr(dict(os.environ)).encode()).decode())",),
    ("import base64\nprint(base64.b64encode(open(SECRET_FILE, 'rb').read()).decode())",),
    (
        f"import os\nprint([os.environ[k][: len(os.environ[k]) // 2] for k in {NAMES}])",
        f"import os\nprint([os.environ[k][len(os.environ[k]) // 2 :] for k in {NAMES}])",
    ),
)
TRIALS = len(CODES)  # one per code: each trial starts a Python process of its own
_trial = 0

# The `python` tool is offered in a Jupyter kernel; this process stands for one, its namespace a dict.
PRELUDE = """
import mewrk_jupyter.tools.kernel as kernel
namespace = {"SECRET_FILE": SECRET_FILE}
kernel.kernel_namespace = lambda: namespace
"""


def trial(folder: Path) -> bool:
    """One encoding printed by the model's code in a fresh workspace; True when no key got out."""
    global _trial
    codes = CODES[_trial % len(CODES)]
    _trial += 1
    # A second vendor's key is a secret file, which the code reads and encodes.
    secret_file = folder / "service-key.txt"
    file_key = "file-" + secrets.token_urlsafe(30)
    secret_file.write_text(file_key + "\n")
    llm = folder / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    (llm / "w.yaml").write_text(
        f"protocol: openai-chat\napi_key: '@file:{secret_file}'\nmodels:\n  m: {{context_window: 1000}}\n"
    )
    calls = [anthropic_tool_use("python", {"code": code}) for code in codes]
    prelude = f"SECRET_FILE = {str(secret_file)!r}\n" + PRELUDE
    return held(*run_kernel(folder, calls, prelude, (file_key,)))
