"""Where a command the engine starts runs: out of sight of the kernel's and the Jupyter server's processes.

A command's parent is the kernel (or the Jupyter server), so without confinement `/proc/$PPID/environ`
hands it every variable the environment filter took out, and the person's files (a secret file, the
kernel's connection file, the trust records) are open to it. On Linux a command therefore runs in a PID
namespace of its own, where only its own processes exist, and, with bubblewrap, in a view of the files
built from an allow-list:

- read-only: the system's folders, the kernel's Python, the folders of PATH, and what the policy adds;
- writable: the workspace (its configuration folder stays read-only), a fresh /tmp and home, and what the
  policy adds;
- nothing else: the person's home is an empty folder, and the files that `@file:` references point to,
  the Jupyter runtime folder (connection files and server tokens) and the person's mewrk folder are
  hidden wherever they would show.

The read-only part of that view is made once for a policy's `read` and a PATH, and made again when
either changes or a folder it left out appears.

Without bubblewrap, `unshare` gives the PID namespace alone (the files are not confined); without either,
the command runs as it is and the session says so when it starts. The namespace also ends every process a
command started, `setsid` or not, when the command ends or is stopped.
"""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ..config.sandbox import SandboxMode
from .base import ToolFailure

Kind = Literal["bubblewrap", "unshare", "none"]
# One mount of bubblewrap's view: the path it makes, its rank among mounts at one depth, its arguments.
Mount = tuple[Path, int, tuple[str, ...]]

# The system's folders a command reads (those that exist here); a symlink among them is kept a symlink.
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt")
# How long probing a sandbox program may take before it counts as not working.
_PROBE_SECONDS = 10.0
INSTALL_HINT = "install bubblewrap (`apt install bubblewrap`)"


class SandboxRefused(ToolFailure):
    """A safety level that requires a sandbox, on a machine that cannot give one: nothing is run."""


@dataclass(frozen=True)
class Available:
    """What this machine can confine a command with, and why not more."""

    kind: Kind
    # Why bubblewrap (and, for "none", unshare too) could not be used; empty for bubblewrap.
    why: str = ""


def _probe(argv: list[str]) -> str:
    """Run a probe; the reason it failed, or an empty string when it worked."""
    try:
        done = subprocess.run(
            argv, stdin=subprocess.DEVNULL, capture_output=True, timeout=_PROBE_SECONDS, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode == 0:
        return ""
    said = done.stderr.decode("utf-8", errors="replace").strip().splitlines()
    return said[-1] if said else f"exit code {done.returncode}"


def _unshare_argv() -> list[str]:
    # Not root: a user namespace maps the person to themselves, so that the namespaces may be made.
    user = [] if os.geteuid() == 0 else ["--map-current-user"]
    return ["unshare", *user, "--pid", "--fork", "--kill-child", "--mount-proc"]


@functools.lru_cache(maxsize=1)
def available() -> Available:
    """The best confinement this machine gives, probed once per process (MEWRK_SANDBOX=unshare or none
    takes a lesser one, as on a machine without bubblewrap)."""
    forced = os.environ.get("MEWRK_SANDBOX", "")
    reasons = []
    if forced not in ("unshare", "none"):
        if shutil.which("bwrap") is None:
            reasons.append("bubblewrap is not installed")
        else:
            why = _probe([*_bwrap_base(), "--ro-bind", "/", "/", "--", "true"])
            if not why:
                return Available("bubblewrap")
            reasons.append(f"bubblewrap cannot make a sandbox here ({why})")
    else:
        reasons.append(f"MEWRK_SANDBOX={forced} leaves bubblewrap out")
    if forced != "none":
        if shutil.which("unshare") is None:
            reasons.append("unshare is not installed")
        else:
            why = _probe([*_unshare_argv(), "--", "true"])
            if not why:
                return Available("unshare", "; ".join(reasons))
            reasons.append(f"unshare cannot make a PID namespace here ({why})")
    else:
        reasons.append("unshare is left out too")
    return Available("none", "; ".join(reasons))


def _bwrap_base() -> list[str]:
    # A user namespace with no capabilities: root inside cannot remount what is read-only. Not
    # --die-with-parent: it ends the command when the *thread* that started it ends, and a language
    # server outlives the call that started it; the process group is killed instead.
    return [
        "bwrap",
        "--unshare-user",
        "--unshare-pid",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--cap-drop",
        "ALL",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
    ]


def findable(program: str, env: Mapping[str, str]) -> bool:
    """Whether `program` names something to run, on the PATH of `env` or as a path: asked before it is
    wrapped, so that a missing program is said as it is without a sandbox, not by the sandbox's own."""
    return shutil.which(program, path=env.get("PATH")) is not None or os.access(program, os.X_OK)


def _inside(path: Path, folder: Path) -> bool:
    # As text: pathlib's `parents` makes a Path per level, and a command's view asks this often.
    inner, outer = str(path), str(folder).rstrip("/")
    return inner == outer or inner.startswith(outer + "/")


def _real(path: Path) -> Path | None:
    try:
        return path.resolve(strict=True)
    except (OSError, RuntimeError):
        return None


@dataclass(frozen=True)
class Shown:
    """What every command of a sandbox reads, bound read-only: the system's folders, the kernel's Python,
    the folders of PATH outside the system's and the policy's `read` — and those left out for want of
    anything there."""

    mounts: tuple[Mount, ...]
    bound: tuple[Path, ...]
    absent: tuple[Path, ...]

    def stale(self) -> bool:
        """Whether something left out is there now (a folder made on PATH, a `read` folder made later)."""
        return any(os.path.exists(path) for path in self.absent)


# The read-only part of the views, by the policy's `read` and PATH: a command's view asks the filesystem
# for every folder of it (the most of its cost), and they change seldom. Bounded, as a kernel sees few
# PATHs; threads that race here each compute the same view.
_SHOWN: dict[tuple[tuple[Path, ...], str], Shown] = {}
_SHOWN_AT_MOST = 32


def shown_folders(read: tuple[Path, ...], path_var: str) -> Shown:
    """The read-only folders of a command's view under the policy's `read` and the PATH `path_var`, made
    once and kept until either changes or something left out appears."""
    key = (read, path_var)
    shown = _SHOWN.get(key)
    if shown is None or shown.stale():
        if len(_SHOWN) >= _SHOWN_AT_MOST:
            _SHOWN.clear()
        shown = _SHOWN[key] = _shown(read, path_var)
    return shown


def _shown(read: tuple[Path, ...], path_var: str) -> Shown:
    mounts: list[Mount] = []
    folders: list[Path] = []
    absent: list[Path] = []
    for name in SYSTEM_FOLDERS:
        path = Path(name)
        if path.is_symlink():
            mounts.append((path, 0, ("--symlink", os.readlink(path), name)))
        elif not path.exists():
            absent.append(path)
        elif path.is_dir():
            folders.append(path)
    readable, missing = _readable(read, path_var)
    absent += missing
    bound = []
    for path in (*folders, *readable):
        real = _real(path)
        if real is None:
            absent.append(path)
            continue
        # `-try`: a folder removed since this was made is left out, as a view made now would leave it.
        mounts.append((path, 1, ("--ro-bind-try", str(real), str(path))))
        bound.append(path)
    return Shown(tuple(mounts), tuple(bound), tuple(absent))


def _readable(read: tuple[Path, ...], path_var: str) -> tuple[list[Path], list[Path]]:
    """The kernel's Python, the folders of PATH outside the system's, and the policy's `read`; and the
    folders of PATH with nothing there."""
    python = [Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix)]
    python.append(Path(os.path.realpath(sys.executable)).parent.parent)
    on_path = [Path(p) for p in path_var.split(os.pathsep) if os.path.isabs(p)]
    system = [Path(name) for name in SYSTEM_FOLDERS]
    seen: dict[Path, None] = {}
    missing = []
    for path in (*python, *on_path):
        if any(_inside(path, folder) for folder in system):
            continue
        if path.is_dir():
            seen.setdefault(path)
        elif not path.exists():
            missing.append(path)
    for path in read:  # the person's own choice, wherever it is
        seen.setdefault(path)
    # A folder inside another of them is shown with it already.
    return [path for path in seen if not any(p != path and _inside(path, p) for p in seen)], missing


@dataclass(frozen=True)
class Sandbox:
    """How to start a command for one workspace under one safety level's `sandbox:`."""

    root: Path
    mode: SandboxMode = "auto"
    # Read-only inside the workspace: the configuration folder holds the safety levels and the store.
    protected: tuple[Path, ...] = ()
    read: tuple[Path, ...] = ()
    write: tuple[Path, ...] = ()
    # Files and folders no command may see: secret files, the Jupyter runtime folder, trust records.
    hidden: tuple[Path, ...] = ()

    @property
    def kind(self) -> Kind:
        """What a command started now runs in."""
        return "none" if self.mode == "off" else available().kind

    def notice(self, level: str = "default") -> str | None:
        """The sentence a session says when it starts, where its commands are less confined than they
        could be; None when they run in bubblewrap's sandbox (or the person turned it off)."""
        if self.mode == "off":
            return None
        have = available()
        where = f"policy/{level}.yaml"
        if have.kind == "bubblewrap":
            return None
        if self.mode == "required" and have.kind == "none":
            return (
                f"This machine has no sandbox for commands ({have.why}), and the `{level}` safety level "
                f"requires one (`sandbox: required` in {where}), so bash, command tools, hooks, the "
                f"language server and stdio MCP servers are refused here; {INSTALL_HINT} to run them."
            )
        if have.kind == "unshare":
            return (
                "Commands run in a PID namespace of their own (unshare), out of sight of the kernel's "
                f"processes, but see and may change every file you can ({have.why}); {INSTALL_HINT} to "
                f"confine them to the workspace."
            )
        return (
            f"Commands run without a sandbox here ({have.why}): bash, command tools, hooks, the "
            "language server and MCP servers see every file you can and the kernel's processes, whose "
            f"environment holds your keys; {INSTALL_HINT}, or set `sandbox: required` in {where} to "
            "refuse them instead."
        )

    def command(
        self, argv: list[str], cwd: Path, env: Mapping[str, str], files: Iterable[str | Path] = ()
    ) -> list[str]:
        """The argv that runs `argv` in `cwd` with the environment `env`, confined; `files` are more paths
        the command reads (a server's own script, named in its arguments). Raises SandboxRefused where a
        sandbox is required and none is here."""
        kind = self.kind
        if kind == "none":
            if self.mode == "required":
                raise SandboxRefused(
                    f"`{argv[0]}` was not run: the safety level requires a sandbox for commands and this "
                    f"machine has none ({available().why}); {INSTALL_HINT}, or ask the person to change "
                    "`sandbox:` in the policy."
                )
            return list(argv)
        if kind == "unshare":
            return [*_unshare_argv(), "--", *argv]
        return [*_bwrap_base(), *self._view(cwd, env, files), "--chdir", str(cwd), "--", *argv]

    # ---- bubblewrap's view of the files -----------------------------------------------------------

    def _view(self, cwd: Path, env: Mapping[str, str], files: Iterable[str | Path]) -> list[str]:
        """bubblewrap's mount arguments for the allow-list, parents before what lies inside them."""
        # At one depth an empty folder comes first and a hidden file last (a Mount's rank).
        folders = shown_folders(self.read, env.get("PATH", ""))
        ops = list(folders.mounts)
        bound = list(folders.bound)

        def bind(path: Path, writable: bool, rank: int) -> None:
            real = _real(path)
            if real is None:
                return
            ops.append((path, rank, ("--bind" if writable else "--ro-bind", str(real), str(path))))
            bound.append(path)

        home = Path.home()
        ops.append((home, 0, ("--tmpfs", str(home))))
        ops.append((Path("/tmp"), 0, ("--tmpfs", "/tmp")))
        # A file the command names is bound on its own only where no folder shows it already: bubblewrap
        # cannot make a mount point over a link (a venv's `bin/python`) inside a folder bound read-only.
        shown = [*bound, self.root, cwd]
        for named in files:
            candidate = Path(named)
            if (
                candidate.is_absolute()
                and candidate.exists()
                and not any(_inside(candidate, b) for b in shown)
            ):
                bind(candidate, False, 1)
        bind(self.root, True, 2)
        if not _inside(cwd, self.root):
            bind(cwd, True, 2)
        for path in self.write:
            bind(path, True, 2)
        for path in self.protected:
            if _inside(path, self.root):
                bind(path, False, 3)
        for path in self.hidden:
            real = _real(path)
            if real is None or not any(_inside(path, b) or _inside(real, b) for b in bound):
                continue
            # Where it is named and, reached through a link, where it lands.
            for where in dict.fromkeys((path, real)):
                hide = ("--tmpfs", str(where)) if real.is_dir() else ("--ro-bind", "/dev/null", str(where))
                ops.append((where, 4, hide))
        ops.sort(key=lambda op: (len(op[0].parts), op[1]))
        view = [argument for _path, _rank, arguments in ops for argument in arguments]
        # The kernel's Python first, so that `python` and `pip` are the ones the notebook uses.
        path_var = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
        view += ["--setenv", "PATH", path_var.rstrip(os.pathsep)]
        if not self._visible(Path(env.get("TMPDIR", "/tmp")), bound):
            view += ["--setenv", "TMPDIR", "/tmp"]
        return view

    @staticmethod
    def _visible(path: Path, bound: list[Path]) -> bool:
        return str(path).startswith("/tmp") or any(_inside(path, b) for b in bound)
