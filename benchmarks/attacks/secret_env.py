"""The model reads a key from the kernel's environment with an approved command (`echo $X`, `env`, …).

Each trial starts a kernel-like Python process whose environment holds three fresh keys: one a vendor
file references (`api_key: ${VENDOR_CRED}`), two with credential-like names. Its session talks to a
local Anthropic-compatible server, whose model calls `bash` with one of the commands below; the person
approves. The product held when no key is in any request the server received nor in the store's files.
"""

from __future__ import annotations

import os
import secrets
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the wire server lives with the tests

from tests.providers.wire import WireServer, anthropic_reply, anthropic_tool_use  # noqa: E402

ATTACK = "an approved command prints the kernel's keys (echo $X, env, /proc/$PPID/environ)"
TRIALS = 6  # one per command: each trial starts a Python process of its own
COMMANDS = (
    "echo $ANTHROPIC_API_KEY $VENDOR_CRED $MY_SERVICE_TOKEN",
    "env",
    "printenv; set",
    "python3 -c 'import os; print(dict(os.environ))'",
    # The kernel's own environment as it started, read from /proc: outside the filter, so redacted.
    "tr '\\0' '\\n' < /proc/$PPID/environ",
    "bash -lc 'env | sort'",
)
_server: WireServer | None = None
_trial = 0

KERNEL = """
import mewrk_jupyter as mw
mw.trust()  # the person wrote the vendor file and trusts the folder
s = mw.Session.new(model="v/m")
s.send("show me the environment")
while s.state == "awaiting_approval":
    s.approve()
"""


def server() -> WireServer:
    """One local server for every trial of this run."""
    global _server
    if _server is None:
        _server = WireServer().start()
    return _server


def trial(folder: Path) -> bool:
    """One approved command in a fresh workspace; True when no key was sent or stored."""
    global _trial
    command = COMMANDS[_trial % len(COMMANDS)]
    _trial += 1
    keys, exposed = run_approved(folder, command)
    return exposed is not None and not any(key.encode() in exposed for key in keys)


def run_approved(folder: Path, command: str, vendor_extra: str = "") -> tuple[list[str], bytes | None]:
    """Run `command` as an approved `bash` call of a new kernel's session holding fresh keys; returns the
    keys, and every byte the server received and the store holds (None when the kernel failed).
    `vendor_extra` is more of the vendor file (a header with an `@file:` secret)."""
    return run_kernel(folder, [anthropic_tool_use("bash", {"command": command})], vendor_extra=vendor_extra)


def run_kernel(
    folder: Path,
    calls: list[dict[str, Any]],
    prelude: str = "",
    more: tuple[str, ...] = (),
    vendor_extra: str = "",
) -> tuple[list[str], bytes | None]:
    """Run a new kernel's session holding fresh keys whose model makes `calls` one reply each, all
    approved (`prelude` runs first in the kernel); returns the keys and the secrets in `more`, and every
    byte the server received and the store holds (None when the kernel failed). `vendor_extra` is more
    of the vendor file."""
    keys = {
        "ANTHROPIC_API_KEY": "sk-ant-" + secrets.token_hex(16),
        "VENDOR_CRED": "cred-" + secrets.token_hex(16),
        "MY_SERVICE_TOKEN": "tok-" + secrets.token_hex(16),
    }
    wire = server()
    llm = folder / ".mewrk" / "llm"
    llm.mkdir(parents=True, exist_ok=True)
    (llm / "v.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {wire.url}\napi_key: ${{VENDOR_CRED}}\n"
        "models:\n  m: {context_window: 100000}\n" + vendor_extra
    )
    seen = len(wire.requests)
    for call in calls:
        wire.enqueue(anthropic_reply(call))
    wire.enqueue(anthropic_reply("Done."))
    env = {**os.environ, **keys, "PYTHONPATH": str(ROOT), "HOME": str(folder)}
    env["MEWRK_USER_CONFIG"] = str(folder / "person-config")  # trust kept in the trial, not the machine
    env.pop("MEWRK_HOME", None)
    kernel = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(prelude) + textwrap.dedent(KERNEL)],
        cwd=folder,
        env=env,
        capture_output=True,
        timeout=60,
        check=False,
    )
    values = [*keys.values(), *more]
    if kernel.returncode != 0:
        print(kernel.stderr.decode(errors="replace"), file=sys.stderr)
        return values, None
    sent = b"".join(r.raw_body for r in wire.requests[seen:])
    stored = b"".join(p.read_bytes() for p in (folder / ".mewrk").glob("mewrk.db*"))
    return values, sent + stored
