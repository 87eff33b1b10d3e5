"""An approved command prints the kernel's keys encoded, from the kernel's own environment in /proc.

Any process of the same user can read `/proc/<kernel pid>/environ` (the kernel's environment as it
started), whatever the environment policy keeps out of a command's own. A command runs in a sandbox
whose PID namespace has no kernel in it (so `$PPID` is the sandbox's own first process); where there is
none, the redactor recognises each key in the forms below (reversed, rot13, base64 inside the whole blob
at whatever alignment, wrapped or not, hex as `xxd -p` wraps it, spaced out). The product holds when no
key, plain or encoded, is sent or stored.
"""

from __future__ import annotations

import base64
import codecs
from pathlib import Path

from .secret_env import run_approved

ATTACK = "an approved command prints the kernel's keys encoded (rev, rot13, base64, xxd, spaced, of /proc/$PPID/environ)"
ENVIRON = "/proc/$PPID/environ"
COMMANDS = (
    f"tr '\\0' '\\n' < {ENVIRON} | rev",
    f"tr 'a-z' 'n-za-m' < {ENVIRON}",
    f"base64 -w0 {ENVIRON}",
    f"base64 {ENVIRON}",
    f"xxd -p {ENVIRON}",
    f"tr '\\0' '\\n' < {ENVIRON} | sed 's/./& /g'",
)
TRIALS = len(COMMANDS)  # one per encoding: every trial starts a Python process of its own
_trial = 0


def trial(folder: Path) -> bool:
    """One encoded read of the kernel's environment; True when no key, plain or encoded, got out."""
    global _trial
    command = COMMANDS[_trial % len(COMMANDS)]
    _trial += 1
    return held(*run_approved(folder, command))


def held(keys: list[str], exposed: bytes | None) -> bool:
    """Whether the command or code ran (its result reached the model) with nothing of a key left."""
    ran = exposed is not None and b"tool_result" in exposed
    return ran and exposed is not None and not any(shown_in(key, exposed) for key in keys)


def shown_in(key: str, exposed: bytes) -> bool:
    """Whether `exposed` (request bodies and store files) holds `key` in any form an attack printed it:
    as it is, reversed, rot13, hex, spaced, either half, or the middle of its base64 at any alignment
    in a larger blob (standard or URL-safe, with line breaks taken out)."""
    data = key.encode()
    half = len(key) // 2
    forms = [key, key[::-1], codecs.encode(key, "rot13"), data.hex(), " ".join(key), key[:half], key[half:]]
    flat = b"".join(exposed.replace(b"\\n", b"\n").split())  # a wrapped encoding, in JSON or not
    for before in range(3):
        encoded = base64.b64encode(b"\0" * before + data + b"\0\0\0").decode()
        core = encoded[-(-8 * before // 6) : 8 * (before + len(data)) // 6]
        forms += [core, core.replace("+", "-").replace("/", "_")]
    return any(form.encode() in exposed or form.encode() in flat for form in forms)
