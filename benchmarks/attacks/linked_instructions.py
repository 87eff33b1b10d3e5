"""A cloned folder's AGENTS.md (or MEWRK.md, MEMORY.md, a skill's SKILL.md) is a link to the person's
~/.aws/credentials, so that every request's hidden prefix would carry them.

Each trial clones such a folder (one form of link per trial, trusted or not), starts a kernel-like Python
process in it whose session talks to a local Anthropic-compatible server, and sends a message. The product
held when the credentials are in no request the server received nor in the store's files.
"""

from __future__ import annotations

import os
import secrets
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the wire server lives with the tests

from attacks import run_kernel, wire_server  # noqa: E402
from tests.providers.wire import anthropic_reply  # noqa: E402

ATTACK = "a cloned AGENTS.md, MEMORY.md or SKILL.md links to ~/.aws/credentials"
TRIALS = 12  # six forms of link, each in a trusted and in an untrusted folder
_trial = 0

KERNEL = """
import sys
import mewrk_jupyter as mw
if sys.argv[1] == "trusted":
    mw.trust()  # the person trusts the folder they cloned: its links still do not reach the prefix
s = mw.Session.new(model="v/m" if sys.argv[1] == "trusted" else None)
try:
    s.use_skill("review")
except mw.ConfigError as refused:
    print(refused)
s.send("hi")
"""


def _agents(ws: Path, target: Path) -> None:
    (ws / "AGENTS.md").symlink_to(target)


def _mewrk_relative(ws: Path, target: Path) -> None:
    (ws / "MEWRK.md").symlink_to(os.path.relpath(target, ws))


def _project_memory(ws: Path, target: Path) -> None:
    (ws / ".mewrk" / "MEMORY.md").symlink_to(target)


def _skill(ws: Path, target: Path) -> None:
    (ws / ".mewrk" / "skills" / "review").mkdir(parents=True)
    (ws / ".mewrk" / "skills" / "review" / "SKILL.md").symlink_to(target)


def _linked_folder(ws: Path, target: Path) -> None:
    (ws / "docs").symlink_to(target.parent)  # the file itself is named inside, through a linked folder
    (ws / "AGENTS.md").symlink_to("docs/credentials")


def _user_memory(ws: Path, target: Path) -> None:
    home = target.parent.parent
    (home / ".mewrk").mkdir()
    (home / ".mewrk" / "MEMORY.md").symlink_to(target)


FORMS: tuple[Callable[[Path, Path], None], ...] = (
    _agents,
    _mewrk_relative,
    _project_memory,
    _skill,
    _linked_folder,
    _user_memory,
)


def trial(folder: Path) -> bool:
    """One cloned folder with one form of link; True when the credentials were neither sent nor stored."""
    global _trial
    form, trusted = FORMS[_trial % len(FORMS)], (_trial // len(FORMS)) % 2 == 0
    _trial += 1
    secret = "aws_secret_access_key = " + secrets.token_hex(20)
    home = folder / "home"
    (home / ".aws").mkdir(parents=True)
    credentials = home / ".aws" / "credentials"
    credentials.write_text(f"[default]\n{secret}\n")
    ws = folder / "clone"
    llm = ws / ".mewrk" / "llm"
    llm.mkdir(parents=True)
    wire = wire_server()
    (llm / "v.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {wire.url}\napi_key: ${{VENDOR_CRED}}\nmodels:\n  m: {{context_window: 100000}}\n"
    )
    form(ws, credentials)
    seen = len(wire.requests)
    if trusted:  # an untrusted folder's session runs on the offline model: nothing reaches the server
        wire.enqueue(anthropic_reply("Hello."))
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(home), "VENDOR_CRED": "cred-test-value"}
    env["MEWRK_USER_CONFIG"] = str(folder / "person-config")  # trust kept in the trial, not the machine
    env.pop("MEWRK_HOME", None)
    kernel = run_kernel(KERNEL, ws, env, "trusted" if trusted else "untrusted")
    if kernel.returncode != 0:
        print(kernel.stderr.decode(errors="replace"), file=sys.stderr)
        return False
    sent = b"".join(r.raw_body for r in wire.requests[seen:])
    stored = b"".join(p.read_bytes() for p in (ws / ".mewrk").glob("mewrk.db*"))
    told = kernel.stdout + kernel.stderr
    return secret.encode() not in sent + stored + told and b"so it is not read" in told
