"""`bash` and the command tools of `.mewrk/tools/*.yaml`: a subprocess in the workspace, stoppable.

Each command runs in a process group of its own, so a timeout or a stop kills everything it started,
and nothing it left running in the background outlives the call (it would hold the output pipe open).
Its environment is the one the safety level allows (`Environment`), asked for at each start so that a
variable set in the kernel meanwhile is filtered too.
"""

from __future__ import annotations

import json
import os
import re
import selectors
import shlex
import signal
import subprocess
import threading
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, Any

from ..config.tools import ToolConfig
from .base import MAX_CHARS, Redact, Tool, ToolResult, no_redaction, object_schema, truncate

DEFAULT_TIMEOUT = 120.0
MAX_TIMEOUT = 600.0
# Output is kept up to this many bytes and only counted after it, so `yes` cannot fill the memory.
_KEEP_BYTES = 8 * MAX_CHARS
_POLL_SECONDS = 0.05
# How long the output may still flow once the process group was killed, for children that escaped it.
_DRAIN_SECONDS = 2.0

# Gives the environment variables a command may see, now (config.command_environment under a policy).
Environment = Callable[[], Mapping[str, str]]


def kill_group(process: subprocess.Popen[bytes]) -> None:
    """Kill the process and everything it started (it leads a process group of its own)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


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
) -> ToolResult:
    """Run `argv` in `cwd` with stdout and stderr combined; stop it on timeout or when `cancel` is set;
    `redact` hides known secrets in its output before the output is cut to the limit.

    `env` is the whole environment of the process; None inherits the kernel's (only for callers that
    run no command of the model's or the configuration's).
    """
    try:
        process = subprocess.Popen(
            argv,
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
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
                drain_until = now + _DRAIN_SECONDS
    finally:
        selector.close()
        process.stdout.close()
        kill_group(process)
        code = process.wait()
    result = output.result(redact)
    if stopped:
        note = "[stopped: the command was stopped before it finished]"
    elif timed_out:
        note = f"[timed out: the command was stopped after {timeout:g} seconds]"
    elif code != 0:
        note = f"[exit code {code}]"
    else:
        return result if result.text else ToolResult(text="(no output)")
    separator = "" if not result.text or result.text.endswith("\n") else "\n"
    text = f"{result.text}{separator}{note}"
    return ToolResult(text=text, is_error=True, truncated=result.truncated)


def bash_tool(root: Path, environment: Environment, redact: Redact = no_redaction) -> Tool:
    """The `bash` tool: `bash -c command` in the workspace root, in the environment the policy allows."""

    def handler(params: dict[str, Any], cancel: threading.Event | None) -> ToolResult:
        argv = ["bash", "-c", params["command"]]
        return run_process(argv, root, tool.time_limit(params), cancel, environment(), redact)

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
    config: ToolConfig, root: Path, environment: Environment, redact: Redact = no_redaction
) -> Tool:
    """A tool declared in `.mewrk/tools/<name>.yaml`, run in the workspace root, in the allowed environment."""
    timeout = config.timeout or DEFAULT_TIMEOUT

    def handler(params: dict[str, Any], cancel: threading.Event | None) -> ToolResult:
        return run_process(command_argv(config, params), root, timeout, cancel, environment(), redact)

    return Tool(
        config.name,
        config.description,
        config.parameters,
        handler,
        timeout=timeout,
        read_only=config.read_only,
        declared=True,
    )
