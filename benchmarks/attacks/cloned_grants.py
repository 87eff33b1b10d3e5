"""A session's "approve always" for bash travels with its store: a `.mewrk/mewrk.db` committed to a
repository, copied, moved or shared through MEWRK_HOME would let bash run without asking in another folder,
or after the folder's trust-asking files changed.

Each trial makes a session in folder A in a kernel-like Python process whose model (a local
Anthropic-compatible server) calls bash, approved always; then takes the store elsewhere (one way per
trial), opens the session there in a new process and has the model call bash again. The product held when
that call waits for an approval, the command did not run, and the person was told once.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))  # the wire server lives with the tests

from attacks import run_kernel, wire_server  # noqa: E402
from tests.providers.wire import anthropic_reply, anthropic_tool_use  # noqa: E402

ATTACK = "a copied or cloned store's approve-always runs bash without asking"
TRIALS = 10  # five ways of taking the store elsewhere, twice each
_trial = 0

GRANT = """
import mewrk_jupyter as mw
mw.trust()
s = mw.Session.new(model="v/m")
s.send("make a file")
s.approve(always=True)
print(s.id)
"""

REPLAY = """
import sys
import warnings
import mewrk_jupyter as mw
from mewrk_jupyter.engine.events import Notice
mw.trust()  # the person trusts the folder as it is: its files may be theirs
told = []
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    s = mw.Session.open(sys.argv[1])
    s.subscribe(lambda event: told.append(event.text) if isinstance(event, Notice) else None)
    s.send("go on")
told += [str(w.message) for w in caught if issubclass(w.category, mw.ConfigNotice)]
print(s.state)
print(sum("approve-always" in text for text in told))
"""


def _kernel(code: str, cwd: Path, env: dict[str, str], *args: str) -> list[str] | None:
    done = run_kernel(code, cwd, env, *args)
    if done.returncode != 0:
        print(done.stderr.decode(errors="replace"), file=sys.stderr)
        return None
    return done.stdout.decode().split()


def _copy(a: Path, folder: Path, env: dict[str, str]) -> Path:
    shutil.copytree(a, folder / "copy", symlinks=True)
    return folder / "copy"


def _move(a: Path, folder: Path, env: dict[str, str]) -> Path:
    return a.rename(folder / "moved")


def _git_clone(a: Path, folder: Path, env: dict[str, str]) -> Path:
    git = ["git", "-c", "user.name=a", "-c", "user.email=a@example.com", "-c", "init.defaultBranch=main"]
    for step in (["init", "-q"], ["add", "-A", "-f"], ["commit", "-q", "-m", "the project"]):
        subprocess.run([*git, *step], cwd=a, check=True, capture_output=True)
    subprocess.run(["git", "clone", "-q", str(a), str(folder / "clone")], check=True, capture_output=True)
    return folder / "clone"


def _trust_changed(a: Path, folder: Path, env: dict[str, str]) -> Path:
    vendor = a / ".mewrk" / "llm" / "v.yaml"
    vendor.write_text(vendor.read_text() + "headers:\n  X-Team: blue\n")  # then trusted again, as it is
    return a


def _shared_home(a: Path, folder: Path, env: dict[str, str]) -> Path:
    other = folder / "other-project"
    other.mkdir()
    return other


WAYS: tuple[Callable[[Path, Path, dict[str, str]], Path], ...] = (
    _copy,
    _move,
    _git_clone,
    _trust_changed,
    _shared_home,
)


def trial(folder: Path) -> bool:
    """One grant in folder A replayed elsewhere; True when the replayed bash call waited for approval."""
    global _trial
    way = WAYS[_trial % len(WAYS)]
    _trial += 1
    wire = wire_server()
    a = folder / "a"
    a.mkdir()
    home = folder / "store" if way is _shared_home else a / ".mewrk"
    (home / "llm").mkdir(parents=True)
    (home / "llm" / "v.yaml").write_text(
        f"protocol: anthropic-messages\nbase_url: {wire.url}\napi_key: ${{VENDOR_CRED}}\n"
        "models:\n  m: {context_window: 100000}\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "HOME": str(folder), "VENDOR_CRED": "cred-test-value"}
    env["MEWRK_USER_CONFIG"] = str(folder / "person-config")  # trust kept in the trial, not the machine
    env.pop("MEWRK_HOME", None)
    if way is _shared_home:
        env["MEWRK_HOME"] = str(home)
    wire.enqueue(anthropic_reply(anthropic_tool_use("bash", {"command": "touch granted.txt"})))
    wire.enqueue(anthropic_reply("Made."))
    made = _kernel(GRANT, a, env)
    if made is None or not (a / "granted.txt").exists():
        return False
    b = way(a, folder, env)
    wire.enqueue(anthropic_reply(anthropic_tool_use("bash", {"command": "touch pwned.txt"})))
    replayed = _kernel(REPLAY, b, env, made[0])
    if replayed is None:  # a kernel that ran the call asked for a reply nobody queued
        return False
    return replayed == ["awaiting_approval", "1"] and not (b / "pwned.txt").exists()
