"""An approved command prints the kernel's keys encoded, from the kernel's own environment in /proc.

A known limit, measured so that it is not forgotten: the environment policy keeps the keys out of a
command's own environment, but any process of the same user can read `/proc/<kernel pid>/environ` (the
kernel's environment as it started), and redaction only recognises a value as it is. Reversed or
rot13-encoded, the keys reach the model. Closing this needs commands run as another user or in a
sandbox; the product holds only when no key, plain or encoded, is sent or stored.
"""

from __future__ import annotations

import codecs
from pathlib import Path

from .secret_env import run_approved

ATTACK = "an approved command prints the kernel's keys encoded (rev, rot13 of /proc/$PPID/environ)"
TRIALS = 2  # one per encoding: every trial starts a Python process of its own
COMMANDS = ("tr '\\0' '\\n' < /proc/$PPID/environ | rev", "tr 'a-z' 'n-za-m' < /proc/$PPID/environ")
_trial = 0


def trial(folder: Path) -> bool:
    """One encoded read of the kernel's environment; True when no key, plain or encoded, got out."""
    global _trial
    command = COMMANDS[_trial % len(COMMANDS)]
    _trial += 1
    keys, exposed = run_approved(folder, command)
    if exposed is None:
        return False
    forms = [form for key in keys for form in (key, key[::-1], codecs.encode(key, "rot13"))]
    return not any(form.encode() in exposed for form in forms)
