"""`bash` and the command tools of `.mewrk/tools/*.yaml`: a subprocess in the workspace, stoppable.

Each command runs in the sandbox of its safety level (`tools/sandbox.py`), whose PID namespace ends
everything it started when it ends or is stopped, so nothing it left running in the background outlives
the call (it would hold the output pipe open); without one, in a process group of its own, and the
processes that left the group (`setsid`) are found by a mark in their environment. Its environment is
the one the safety level allows (`Environment`), asked for at each start so that a variable set in the
kernel meanwhile is filtered too.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import shlex
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from ..config.tools import ToolConfig
from .base import MAX_CHARS, Redact, Tool, ToolResult, no_redaction, object_schema, truncate
from .sandbox import Sandbox, SandboxRefused, findable

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
# Output is kept up to this many bytes and only counted after it, so `yes` cannot fill the memory.
_KEEP_BYTES = 8 * MAX_CHARS
_POLL_SECONDS = 0.05
# How long the output may still flow once the process group was killed, for children that escaped it.
_DRAIN_SECONDS = 2.0

# Gives the environment variables a command may see, now (config.command_environment under a policy).
Environment = Callable[[], Mapping[str, str]]
# Gives the sandbox a command starts in, now (its safety level's `sandbox:`, the folder's trust).
Confinement = Callable[[], Sandbox]
# What a command that wrote outside the workspace is told, so that the model can say it to the person.
READ_ONLY = "Read-only file system"
SANDBOX_NOTE = (
    "[sandbox: only the workspace is writable (its .mewrk/ is not); the person can open more folders "
    "with `sandbox: {write: [...]}` in the safety level's policy file]"
)
# The variable that marks every process of one unconfined command, so that Stop finds them all.
MARK = "MEWRK_COMMAND"


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the process and everything it started (it leads a process group of its own)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def kill_marked(mark: str) -> None:
    """Kill every process whose environment carries `MARK=mark`: what an unconfined command started and
    moved out of its process group (`setsid`, a daemon), found in /proc where there is one."""
    needle = f"{MARK}={mark}".encode()
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return
    for pid in pids:
        try:
            with open(f"/proc/{pid}/environ", "rb") as environ:
                if needle not in environ.read().split(b"\0"):
                    continue
            os.kill(pid, signal.SIGKILL)
        except OSError:  # gone, or not ours to read
            continue


class _Output:
    """The bytes a process printed: the first _KEEP_BYTES kept, the rest only counted."""

    def __init__(self) -> None:
        self.kept = bytearray()
        self.dropped = 0
        self.newlines = 0
        self.ends_open = False

    def add(self, data: bytes) -> None:
        room = _KEEP_BYTES - len(self.kept)
        self.kept += data[:room]
        self.dropped += max(0, len(data) - room)
        self.newlines += data.count(b"\n")
        self.ends_open = not data.endswith(b"\n")

    def result(self, redact: Redact = no_redaction) -> ToolResult:
        # Known secrets are hidden before the cut, which could otherwise show the start of one.
        text = redact(self.kept.decode("utf-8", errors="replace"))
        if not self.dropped:
            return truncate(text)
        # Dropped bytes are counted as characters: exact for ASCII, an upper bound otherwise.
        return truncate(
            text, total_chars=len(text) + self.dropped, total_lines=self.newlines + self.ends_open
        )


def _read_some(selector: selectors.BaseSelector, stream: IO[bytes], output: _Output) -> bool:
    """Read what the process printed within one poll; True once its output has ended."""
    for _key, _events in selector.select(timeout=_POLL_SECONDS):
        data = os.read(stream.fileno(), 65_536)
        if not data:
            selector.unregister(stream)
            return True
        output.add(data)
    return False


def run_process(
    argv: list[str],
    cwd: Path,
    timeout: float,
    cancel: threading.Event | None = None,
    env: Mapping[str, str] | None = None,
    redact: Redact = no_redaction,
    sandbox: Sandbox | None = None,
) -> ToolResult:
    """Run `argv` in `cwd` with stdout and stderr combined; stop it on timeout or when `cancel` is set;
    `redact` hides known secrets in its output before the output is cut to the limit.

    `env` is the whole environment of the process; None inherits the kernel's (only for callers that
    run no command of the model's or the configuration's). `sandbox` confines it (None: not confined,
    for the same callers).
    """
    ran = _run(argv, cwd, timeout, cancel, env, sandbox)
    if isinstance(ran, ToolResult):
        return ran
    result = ran.output.result(redact)
    note = ran.note(timeout)
    if note is None:
        return result if result.text else ToolResult(text="(no output)")
    failed = not (ran.stopped or ran.timed_out)  # it exited non-zero by itself
    if failed and sandbox is not None and sandbox.kind == "bubblewrap" and READ_ONLY in result.text:
        note += f"\n{SANDBOX_NOTE}"
    separator = "" if not result.text or result.text.endswith("\n") else "\n"
    text = f"{result.text}{separator}{note}"
    return ToolResult(text=text, is_error=True, truncated=result.truncated)


@dataclass(frozen=True)
class Finished:
    """A hook's process as it ended: what it printed on stdout and on stderr (secrets hidden), its exit
    code (None when it was stopped or overran), and the note saying why it failed, if it did."""

    stdout: str
    stderr: str
    code: int | None
    note: str | None


def run_with_input(
    argv: list[str],
    cwd: Path,
    timeout: float,
    stdin: str,
    cancel: threading.Event | None,
    env: Mapping[str, str],
    redact: Redact,
    sandbox: Sandbox,
) -> Finished:
    """Run `argv` as run_process does, with `stdin` as its input and its stderr kept apart (a hook that
    answers on stdout and explains on stderr)."""
    with tempfile.TemporaryFile() as given, tempfile.TemporaryFile() as errors:
        given.write(stdin.encode("utf-8", "surrogatepass"))
        given.seek(0)
        ran = _run(argv, cwd, timeout, cancel, env, sandbox, stdin=given, stderr=errors)
        if isinstance(ran, ToolResult):
            return Finished("", "", None, ran.text)
        errors.seek(0)
        apart = redact(errors.read(_KEEP_BYTES).decode("utf-8", errors="replace"))
    stopped = ran.stopped or ran.timed_out
    return Finished(redact(ran.output.result().text), apart, None if stopped else ran.code, ran.note(timeout))


@dataclass
class _Ran:
    output: _Output
    code: int
    stopped: bool
    timed_out: bool

    def note(self, timeout: float) -> str | None:
        """Why the command failed, as its result ends; None when it exited 0."""
        if self.stopped:
            return "[stopped: the command was stopped before it finished]"
        if self.timed_out:
            return f"[timed out: the command was stopped after {timeout:g} seconds]"
        if self.code != 0:
            return f"[exit code {self.code}]"
        return None


def _run(
    argv: list[str],
    cwd: Path,
    timeout: float,
    cancel: threading.Event | None,
    env: Mapping[str, str] | None,
    sandbox: Sandbox | None,
    stdin: IO[bytes] | None = None,
    stderr: IO[bytes] | None = None,
) -> _Ran | ToolResult:
    """Start the process and read its output until it ends, overruns or is stopped; a ToolResult with
    the sentence when it could not start."""
    mark = None
    if sandbox is not None:
        # Said here as an unconfined start says it, rather than by the sandbox's own program.
        environ = os.environ if env is None else env
        if not findable(argv[0], environ):
            return ToolResult(text=f"Could not start `{argv[0]}`: No such file or directory.", is_error=True)
        try:
            argv = sandbox.command(argv, cwd, os.environ if env is None else env)
        except SandboxRefused as exc:
            return ToolResult(text=str(exc), is_error=True)
        if sandbox.kind == "none":
            mark = uuid.uuid4().hex
            env = {**(os.environ if env is None else env), MARK: mark}
    try:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=stdin if stdin is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else subprocess.STDOUT,
            start_new_session=True,
        )
    except OSError as exc:
        return ToolResult(text=f"Could not start `{argv[0]}`: {exc.strerror or exc}.", is_error=True)
    assert process.stdout is not None
    output = _Output()
    selector = selectors.DefaultSelector()
    selector.register(process.stdout, selectors.EVENT_READ)
    deadline = time.monotonic() + timeout
    drain_until: float | None = None
    eof = stopped = timed_out = False
    try:
        while True:
            if not eof:
                eof = _read_some(selector, process.stdout, output)
            else:
                try:
                    process.wait(timeout=_POLL_SECONDS)
                except subprocess.TimeoutExpired:
                    pass
            now = time.monotonic()
            if drain_until is not None:
                if eof or now > drain_until:
                    break
                continue
            if cancel is not None and cancel.is_set():
                stopped = True
            elif now > deadline:
                timed_out = True
            if stopped or timed_out or process.poll() is not None:
                if eof:
                    break
                kill_group(process)
                if mark is not None:
                    kill_marked(mark)
                drain_until = now + _DRAIN_SECONDS
    finally:
        selector.close()
        process.stdout.close()
        kill_group(process)
        if mark is not None:
            kill_marked(mark)
        code = process.wait()
    return _Ran(output, code, stopped, timed_out)


def bash_tool(
    root: Path, environment: Environment, redact: Redact = no_redaction, sandbox: Confinement | None = None
) -> Tool:
    """The `bash` tool: `bash -c command` in the workspace root, in the environment and the sandbox the
    policy gives."""
    confinement = sandbox or (lambda: Sandbox(root))

    def handler(params: dict[str, Any], cancel: threading.Event | None) -> ToolResult:
        argv = ["bash", "-c", params["command"]]
        limit = tool.time_limit(params)
        return run_process(argv, root, limit, cancel, environment(), redact, confinement())

    schema = object_schema(
        {
            "command": {"type": "string", "description": "A bash command, run in the workspace root."},
            "timeout": {
                "type": "number",
                "minimum": 1,
                "description": f"Seconds before it is stopped (default {DEFAULT_TIMEOUT:g}, "
                f"at most {MAX_TIMEOUT:g}).",
            },
        },
        ["command"],
    )
    tool = Tool(
        "bash",
        "Run a bash command in the workspace root; stdout and stderr combined.",
        schema,
        handler,
        timeout=DEFAULT_TIMEOUT,
        max_timeout=MAX_TIMEOUT,
    )
    return tool


def _as_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    # JSON spelling, so a boolean reads `true` and a list stays one argument.
    return json.dumps(value)


def command_argv(config: ToolConfig, params: dict[str, Any]) -> list[str]:
    """The argv that runs a configured tool with `params` filled into its `{name}` placeholders.

    A string command runs through `bash -c` with every value shell-quoted, so a value is always one
    word; a list command runs without a shell and a value fills its place as it is.
    """
    names = config.placeholders()
    if not names:
        return ["bash", "-c", config.command] if isinstance(config.command, str) else list(config.command)
    # `${NAME}` is the shell's own variable, not a placeholder.
    placeholder = re.compile(r"(?<!\$)\{(" + "|".join(map(re.escape, names)) + r")\}")
    values = {name: _as_text(params[name]) if name in params else "" for name in names}
    if isinstance(config.command, str):
        script = placeholder.sub(lambda m: shlex.quote(values[m.group(1)]), config.command)
        return ["bash", "-c", script]
    argv = []
    for part in config.command:
        whole = placeholder.fullmatch(part)
        if whole and whole.group(1) not in params:
            continue  # an optional parameter left out drops its argument
        argv.append(placeholder.sub(lambda m: values[m.group(1)], part))
    return argv


def command_tool(
    config: ToolConfig,
    root: Path,
    environment: Environment,
    redact: Redact = no_redaction,
    sandbox: Confinement | None = None,
) -> Tool:
    """A tool declared in `.mewrk/tools/<name>.yaml`, run in the workspace root, in the allowed environment
    and sandbox."""
    timeout = config.timeout or DEFAULT_TIMEOUT
    confinement = sandbox or (lambda: Sandbox(root))

    def handler(params: dict[str, Any], cancel: threading.Event | None) -> ToolResult:
        argv = command_argv(config, params)
        return run_process(argv, root, timeout, cancel, environment(), redact, confinement())

    return Tool(
        config.name,
        config.description,
        config.parameters,
        handler,
        timeout=timeout,
        read_only=config.read_only,
        declared=True,
    )
