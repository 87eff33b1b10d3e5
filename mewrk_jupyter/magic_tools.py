"""`%mewrk` commands for tools and approvals (A1–A4, T5, T6); registered into the magics' table."""

from __future__ import annotations

import json

from . import magics
from .errors import InvalidInput
from .magics import Call, command, follow_turn, say


@command(
    "approve", "[TEXT]", "approve the pending tool call (`approve always`: for the rest of this session)"
)
def _approve(call: Call) -> None:
    words = call.text.split(None, 1)
    always = bool(words) and words[0] == "always"
    reason = (words[1] if len(words) > 1 else None) if always else (call.text.strip() or None)
    follow_turn(call, call.session.approve(reason, always=always, wait=False))


@command("reject", "[TEXT]", "reject the pending tool call; the model reads the reason and goes on")
def _reject(call: Call) -> None:
    follow_turn(call, call.session.reject(call.text.strip() or None, wait=False))


@command("tools", "", "the tools this session's model may call, and what the safety level does with each")
def _tools(call: Call) -> None:
    s = call.session
    rows = [
        f"| `{t.name}` | {s.tool_tier(t.name)} | {t.description.splitlines()[0]} |" for t in s.tool_specs()
    ]
    header = f"Safety level `{s.settings.safety_level}`"
    say("\n".join([header, "", "| tool | tier | what it does |", "|---|---|---|", *rows]))


@command(
    "tool", "NAME [TEXT]", 'run a tool now and add its card — Execute and add, e.g. `tool ls {"path": "."}`'
)
def _tool(call: Call) -> None:
    text = call.text.strip() or "{}"
    try:
        params = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f'The parameters are a JSON object, e.g. {{"path": "."}}; {exc}.') from None
    follow_turn(call, call.session.execute(call.args[0], params, wait=False))


@command("rerun", "CARD", "run an ls / grep / find / read / lsp call again with its edited parameters")
def _rerun(call: Call) -> None:
    follow_turn(call, call.session.reexecute(magics.card_id(call.session, call.args[0]), wait=False))
