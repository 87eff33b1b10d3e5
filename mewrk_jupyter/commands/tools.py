"""Commands for tools and approvals: decide the pending call, list the tools, run one by hand."""

from __future__ import annotations

import json

from ..cards.inert import inert_inline
from ..errors import InvalidInput
from .base import Call, Result
from .timeline import card_id


def approved(always: bool) -> str:
    """What an approval says, from the composer or the approval card alike."""
    return "Approved for this session." if always else "Approved."


def approve(call: Call) -> Result:
    """`approve [always] [REASON]`: the pending tool call runs, and the turn goes on."""
    words = call.text.split(None, 1)
    always = bool(words) and words[0] == "always"
    reason = (words[1] if len(words) > 1 else None) if always else (call.text.strip() or None)
    return Result(approved(always), run=call.current.approve(reason, always=always, wait=False))


def reject(call: Call) -> Result:
    """`reject [REASON]`: the model reads the reason instead of a result, and goes on."""
    return Result("Rejected.", run=call.current.reject(call.text.strip() or None, wait=False))


def tools(call: Call) -> Result:
    """`tools`: the tools the model may call, and what the safety level does with each."""
    s = call.current
    s.mcp_servers()  # started now if they were not, so that their tools are listed too
    rows = [
        f"| `{t.name}` | {s.tool_tier(t.name)} | {inert_inline(t.description.splitlines()[0])} |"
        for t in s.tool_specs()
    ]
    header = f"Safety level `{s.settings.safety_level}`"
    return Result(markdown="\n".join([header, "", "| tool | tier | what it does |", "|---|---|---|", *rows]))


def tool(call: Call) -> Result:
    """`tool NAME [TEXT]`: run a tool now and add its card (TEXT: the parameters as a JSON object)."""
    text = call.text.strip() or "{}"
    try:
        params = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f'The parameters are a JSON object, e.g. {{"path": "."}}; {exc}.') from None
    return Result(run=call.current.execute(call.args[0], params, wait=False))


def rerun(call: Call) -> Result:
    """`rerun CARD`: an ls / grep / find / read / lsp call run again with its edited parameters."""
    return Result(run=call.current.reexecute(card_id(call.current, call.args[0]), wait=False))
