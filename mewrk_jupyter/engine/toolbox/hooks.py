"""Hooks: the workspace's commands (`hooks/<name>.yaml`) run at moments of a conversation — when it
starts, before each request, before and after a tool call, before the person's message is stored, before
a summary is written. What a hook prints reaches the model as a host message; a hook that fails or
overruns its time becomes a host message saying so, never a failed turn.

Three events read what they are run for as JSON on stdin and may answer (A5):
- `before_tool` gets `{event, session_id, tool, input, call_id}`. Exit 2 blocks the call: it does not
  run, and the model reads the hook's stderr as its result. Printing `{"decision": "allow" | "ask" |
  "deny", "reason": …, "input": {…}}` runs the call without asking (never past the safety level's
  deny), asks the person, or refuses it — with `input`, the call runs with that input instead (its card
  keeps the original).
- `before_send` gets `{event, session_id, text}`. What it prints is added after the message as context;
  exit 2 (or `{"decision": "deny", "reason": …}`) refuses the message, which is not stored.
- `before_compact` gets `{event, session_id, instructions}`. What it prints (or its
  `{"instructions": …}`) is added to the summary's instructions.
An answer that is not one of these is a host message naming the hook's file, and is not used.

A hook runs in the workspace root with the environment of the session's other commands (no secret in
it), plus what it is run for: `MEWRK_HOOK_EVENT`, `MEWRK_SESSION_ID`, and after a tool call
`MEWRK_TOOL_NAME`, `MEWRK_TOOL_INPUT` (JSON) and `MEWRK_TOOL_IS_ERROR`. A folder not trusted yet runs
none of its hooks.
"""

from __future__ import annotations

import json
import threading
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from ...cards.models import HostMessage, ToolCall
from ...config import trust_state
from ...config.hooks import ANSWERING_EVENTS, HOOK_EVENTS, HookConfig
from ...errors import InvalidInput
from ...providers.registry import config_for
from ...tools.shell import Finished, run_process, run_with_input
from ..timeline.stored import StoredTimeline
from ..workspace import Workspace
from .secrets import SessionSecrets

MAX_INPUT_CHARS = 32_000  # a tool's input handed to a hook in its environment, at most
NO_OUTPUT = "(no output)"  # what a command that printed nothing returns (tools/shell.py)
BLOCKED = 2  # the exit code with which a hook blocks a call or refuses a message

Verdict = Literal["allow", "ask", "deny"]


class _Answer(BaseModel):
    """What a hook may print on stdout as JSON, by event (an unknown field is refused, not ignored)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    decision: Verdict | None = None
    reason: str | None = None


class _ToolAnswer(_Answer):
    input: dict[str, Any] | None = None


class _SendAnswer(_Answer):
    context: str | None = None


class _CompactAnswer(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    instructions: str


@dataclass
class ToolVerdict:
    """What the `before_tool` hooks said of a call: the most careful decision (deny, then ask, then
    allow; None when none decided), the reason it was given with, and whether a hook blocked it."""

    decision: Verdict | None = None
    reason: str | None = None
    blocked: str | None = None  # the result the model reads when a hook blocked or denied the call
    notes: list[str] = field(default_factory=list)


_ORDER: dict[Verdict | None, int] = {None: 0, "allow": 1, "ask": 2, "deny": 3}


class Hooks:
    """Runs the hooks of an event and places what they said on the timeline, in configuration order."""

    def __init__(self, workspace: Workspace, secrets: SessionSecrets, timeline: StoredTimeline) -> None:
        self.workspace = workspace
        self.secrets = secrets
        self.timeline = timeline

    def run(
        self, event: str, call: ToolCall | None = None, cancel: threading.Event | None = None
    ) -> list[HostMessage]:
        """Run the hooks of `event` (after `call`, for `after_tool`); returns the host messages added."""
        config = config_for(self.workspace.home)
        if config is None or not config.hooks or not trust_state(config).trusted:
            return []
        added = []
        for name, hook in sorted(config.hooks.items()):
            if not hook.wants(event, call.name if call is not None else None):
                continue
            if cancel is not None and cancel.is_set():
                break
            env = {**self.secrets.environment(), **self._context(event, call)}
            sandbox = self.secrets.sandbox()
            result = run_process(hook.argv(), self.workspace.root, hook.timeout, cancel, env, sandbox=sandbox)
            if not result.is_error and result.text == NO_OUTPUT:
                continue  # a hook with nothing to say adds nothing
            # A secret the command printed anyway is hidden before the model or the timeline sees it.
            text = self.secrets.redact(result.text)
            message = HostMessage(topic="hook", text=f"Hook `{name}` ({event}):\n{text}")
            self.timeline.append(message)
            added.append(message)
        return added

    def run_by_hand(self, event: str) -> list[HostMessage]:
        """Run the hooks of `event` because the person asked (`s.run_hooks`); an event that answers for a
        call, a message or a summary runs at that moment only, so it is refused with a sentence."""
        if event not in HOOK_EVENTS:
            raise InvalidInput(f"There is no hook event {event!r}; the events are {', '.join(HOOK_EVENTS)}.")
        if event in ANSWERING_EVENTS:
            raise InvalidInput(
                f"{event} hooks answer for a call, a message or a summary, so they run at that moment only: "
                "send a message, or let the model call a tool, or compact."
            )
        return self.run(event)

    def _context(self, event: str, call: ToolCall | None) -> dict[str, str]:
        context = {"MEWRK_HOOK_EVENT": event, "MEWRK_SESSION_ID": self.timeline.session_id}
        if call is not None:
            params = self.secrets.redact(json.dumps(call.params, ensure_ascii=False))
            context.update(
                MEWRK_TOOL_NAME=call.name,
                MEWRK_TOOL_INPUT=params[:MAX_INPUT_CHARS],
                MEWRK_TOOL_IS_ERROR="1" if call.is_error else "0",
            )
        return context

    # ---- the hooks that answer (A5) -----------------------------------------------------------------

    def _answering(self, event: str, tool: str | None = None) -> list[tuple[str, HookConfig]]:
        config = config_for(self.workspace.home)
        if config is None or not config.hooks or not trust_state(config).trusted:
            return []
        return [(name, hook) for name, hook in sorted(config.hooks.items()) if hook.wants(event, tool)]

    def _ask(self, hook: HookConfig, payload: dict[str, Any], cancel: threading.Event | None) -> Finished:
        stdin = self.secrets.redact(json.dumps(payload, ensure_ascii=False))
        env = {**self.secrets.environment(), "MEWRK_HOOK_EVENT": str(payload["event"])}
        env["MEWRK_SESSION_ID"] = self.timeline.session_id
        sandbox = self.secrets.sandbox()
        return run_with_input(
            hook.argv(), self.workspace.root, hook.timeout, stdin, cancel, env, self.secrets.redact, sandbox
        )

    def _say(self, name: str, event: str, text: str) -> HostMessage:
        message = HostMessage(topic="hook", text=f"Hook `{name}` ({event}):\n{text}")
        self.timeline.append(message)
        return message

    def _unused(self, name: str, event: str, why: str) -> None:
        """A hook's answer that is not one it may give: said, in a sentence naming its file, not used."""
        self._say(name, event, f"hooks/{name}.yaml: its answer was not used: {why}.")

    def _failed(self, name: str, event: str, done: Finished) -> None:
        text = "\n".join(
            part for part in (done.stdout.rstrip("\n"), done.stderr.rstrip("\n"), done.note) if part
        )
        self._say(name, event, text)

    def _parsed(
        self, name: str, event: str, done: Finished, model: type[BaseModel]
    ) -> tuple[BaseModel | None, str | None]:
        """The hook's JSON answer read as `model`, or the plain text it printed (None, text); (None, None)
        when it printed nothing or an answer that was refused (said on the timeline)."""
        out = done.stdout.strip()
        if not out or out == NO_OUTPUT:
            return None, None
        if not out.startswith("{"):
            return None, done.stdout
        try:
            return model.model_validate_json(out), None
        except ValidationError as exc:
            self._unused(name, event, _first_error(exc))
            return None, None

    def before_tool(self, call: ToolCall, cancel: threading.Event | None = None) -> ToolVerdict:
        """Run the `before_tool` hooks for `call`, once: a rewritten input replaces its params (the
        original kept on the card); returns what they decided."""
        verdict = ToolVerdict()
        hooks = self._answering("before_tool", call.name)
        if call.hooked or not hooks:
            return _verdict_of(call)
        for name, hook in hooks:
            if cancel is not None and cancel.is_set():
                break
            payload = {
                "event": "before_tool",
                "session_id": self.timeline.session_id,
                "tool": call.name,
                "input": call.params,
                "call_id": call.call_id,
            }
            done = self._ask(hook, payload, cancel)
            if done.code == BLOCKED:
                why = (done.stderr or done.stdout).strip() or "it gave no reason"
                verdict.decision, verdict.blocked = "deny", f"The hook `{name}` blocked this call: {why}"
                break
            if done.code != 0:
                self._failed(name, "before_tool", done)
                continue
            answer, text = self._parsed(name, "before_tool", done, _ToolAnswer)
            if text is not None:
                self._say(name, "before_tool", self.secrets.redact(text))
            if not isinstance(answer, _ToolAnswer):
                continue
            if answer.input is not None:
                if call.original_params is None:
                    call.original_params = dict(call.params)
                call.params = answer.input
            said = f"Hook `{name}`: {answer.reason}" if answer.reason else None
            if _ORDER[answer.decision] > _ORDER[verdict.decision]:
                verdict.decision = answer.decision
                verdict.reason = said
            elif said and verdict.reason is None:
                verdict.reason = said
            if answer.decision == "deny":
                verdict.blocked = f"The hook `{name}` denied this call" + (
                    f": {answer.reason}" if answer.reason else "."
                )
                break
        call.hooked = True
        call.hook_decision = verdict.decision
        call.hook_reason = verdict.reason
        if verdict.blocked is not None:
            call.hook_reason = verdict.blocked
        self.timeline.save(call)
        return verdict

    def before_send(self, text: str, cancel: threading.Event | None = None) -> list[HostMessage]:
        """Run the `before_send` hooks on the person's message: the context they add, as host messages to
        place after it (not yet on the timeline); InvalidInput with the hook's sentence when one refuses."""
        added: list[HostMessage] = []
        for name, hook in self._answering("before_send"):
            payload = {"event": "before_send", "session_id": self.timeline.session_id, "text": text}
            done = self._ask(hook, payload, cancel)
            if done.code == BLOCKED:
                why = (done.stderr or done.stdout).strip() or "it gave no reason"
                raise InvalidInput(f"The hook `{name}` refused this message: {why}")
            if done.code != 0:
                self._failed(name, "before_send", done)
                continue
            answer, plain = self._parsed(name, "before_send", done, _SendAnswer)
            if isinstance(answer, _SendAnswer):
                if answer.decision == "deny":
                    raise InvalidInput(
                        f"The hook `{name}` refused this message: {answer.reason or 'no reason given'}"
                    )
                if answer.decision is not None:
                    self._unused(
                        name,
                        "before_send",
                        f"a before_send hook refuses (deny) or adds context, not {answer.decision}",
                    )
                plain = answer.context
            if plain:
                added.append(
                    HostMessage(
                        topic="hook", text=f"Hook `{name}` (before_send):\n{self.secrets.redact(plain)}"
                    )
                )
        return added

    def before_compact(self, instructions: str | None, cancel: threading.Event | None = None) -> list[str]:
        """Run the `before_compact` hooks: the instructions they add to the summary's, in order."""
        added: list[str] = []
        for name, hook in self._answering("before_compact"):
            payload = {
                "event": "before_compact",
                "session_id": self.timeline.session_id,
                "instructions": instructions or "",
            }
            done = self._ask(hook, payload, cancel)
            if done.code != 0:
                self._failed(name, "before_compact", done)
                continue
            answer, plain = self._parsed(name, "before_compact", done, _CompactAnswer)
            found = answer.instructions if isinstance(answer, _CompactAnswer) else plain
            if found and found.strip():
                added.append(self.secrets.redact(found.strip()))
        return added


def _verdict_of(call: ToolCall) -> ToolVerdict:
    """What the hooks said of a call when they ran before (a turn that paused for its approval)."""
    blocked = call.hook_reason if call.hook_decision == "deny" else None
    return ToolVerdict(call.hook_decision, call.hook_reason, blocked)


def _first_error(exc: ValidationError) -> str:
    """A hook's refused answer in words: the first problem its JSON has."""
    error = exc.errors()[0]
    where = ".".join(str(part) for part in error["loc"])
    if error["type"] == "json_invalid":
        return "what it printed starts with `{` but is not JSON"
    if error["type"] == "extra_forbidden":
        return f"`{where}` is not a field a hook's answer has"
    if where == "decision":
        return f"decision must be allow, ask or deny, not {error.get('input')!r}"
    if where == "input":
        return "input must be an object of the call's parameters"
    return f"{where}: {error['msg'].lower()}"
