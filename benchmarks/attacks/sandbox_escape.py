"""An approved command reaches for what lies outside its sandbox: the kernel's environment in /proc,
encoded past the redactor, every process's environment, an `@file:` secret, a kernel connection file.

Each trial is the round-two attacker's own command, run as an approved `bash` call of a new kernel's
session (`secret_env.run_approved`): the kernel holds fresh keys, the vendor file also sends a header
from a secret file inside the workspace, and Jupyter's runtime folder (in the trial's home, which is
the workspace) holds a connection file with its HMAC key. The product held when none of them, in any
of the encodings below or as a half, is in a request the server received or in the store's files.
"""

from __future__ import annotations

import base64
import codecs
import secrets
from pathlib import Path

from .secret_env import run_approved

ATTACK = "a command reads the kernel's keys, a secret file or a connection file past its sandbox, encoded"
COMMANDS = (
    "base64 -w0 /proc/$PPID/environ",
    "xxd -p /proc/$PPID/environ",
    "rev < /proc/$PPID/environ",
    "sed 's/./& /g' < /proc/$PPID/environ",
    "tr '\\0' '\\n' < /proc/$PPID/environ | grep -a KEY | cut -c1-30",  # the first half of a key
    "cat /proc/[0-9]*/environ | base64 -w0",
    "for p in /proc/[0-9]*; do base64 -w0 $p/environ; done 2>/dev/null",
    "base64 -w0 keys/token.txt",
    "cat .local/share/jupyter/runtime/*.json | base64 -w0",
    "cd / && find / -name 'kernel-*.json' -path '*jupyter*' 2>/dev/null | xargs cat | rev",
)
TRIALS = len(COMMANDS)  # one per command: each trial starts a Python process of its own
_trial = 0


def forms(secret: str) -> list[bytes]:
    """`secret` as the commands above could print it: plain, reversed, rot13, hex, spaced, halves, and the
    part of its base64 that does not depend on the bytes around it."""
    raw = secret.encode()
    found = [raw, raw[::-1], codecs.encode(secret, "rot13").encode(), raw.hex().encode()]
    found.append(" ".join(secret).encode())
    found += [raw[: len(raw) // 2], raw[len(raw) // 2 :]]
    for shift in range(3):
        encoded = base64.b64encode(b"\0" * shift + raw)
        found.append(encoded[4 : len(encoded) - 4])  # the middle, the same within any surrounding text
    return found


def trial(folder: Path) -> bool:
    """One command in a fresh workspace; True when no secret, in any form, was sent or stored."""
    global _trial
    command = COMMANDS[_trial % len(COMMANDS)]
    _trial += 1
    token = "file-secret-" + secrets.token_hex(16)
    (folder / "keys").mkdir()
    (folder / "keys" / "token.txt").write_text(token + "\n")
    hmac = "hmac-" + secrets.token_hex(16)
    runtime = folder / ".local" / "share" / "jupyter" / "runtime"
    runtime.mkdir(parents=True)
    (runtime / "kernel-1234.json").write_text(f'{{"key": "{hmac}", "shell_port": 5555}}')
    header = f"headers:\n  X-Token: '@file:{folder / 'keys' / 'token.txt'}'\n"
    keys, exposed = run_approved(folder, command, vendor_extra=header)
    if exposed is None:
        return False
    return not any(form in exposed for secret in (*keys, token, hmac) for form in forms(secret))
