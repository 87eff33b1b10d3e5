"""Commands for tools and approvals: decide the pending call, list the tools, run one by hand."""

from __future__ import annotations

import json
import re

from ..cards.inert import inert_inline, inert_markdown
from ..errors import InvalidInput
from .base import Call, Result
from .timeline import card_id

TOOL_AHEAD = re.compile(r"[A-Za-z0-9_-]{1,64}\(")


def rule_ahead(text: str) -> str | None:
    """The rule written out at the start of `text` (`bash(git status*)`): a tool name and its pattern up
    to the `)` that closes the first `(`; None when `text` does not start with one."""
    found = TOOL_AHEAD.match(text)
    if found is None:
        return None
    depth = 0
    for i in range(found.end() - 1, len(text)):
        depth += {"(": 1, ")": -1}.get(text[i], 0)
        if depth == 0:
            return text[: i + 1]
    return None


def approved(always: bool | str, granted: list[str] | None = None, granted_in: str | None = None) -> str:
    """What an approval says, from the composer or the approval card alike (with what it granted)."""
    if always is False:
        return "Approved."
    if not granted:
        return "Approved for this session."
    rules = ", ".join(f"`{entry}`" for entry in granted)
    where = "this session" if granted_in in (None, "session") else granted_in
    return f"Approved; from now on {rules} run without asking ({where})."


def approve(call: Call) -> Result:
    """`approve [always [tool|command|like|RULE] [--policy]] [REASON]`: the pending tool call runs, and
    the turn goes on; `always` approves the whole tool, this very command, commands like it, or the
    rule written out, for this session or (`--policy`) in the safety level's policy file."""
    always, in_policy, reason = approve_words(call.text)
    s = call.current
    run = s.approve(reason, always=always, in_policy=in_policy, wait=False)
    decided = next((c for c in reversed(s.cards) if c.kind == "approval" and c.decision != "pending"), None)
    granted = getattr(decided, "granted", None)
    said = approved(always, granted, getattr(decided, "granted_in", None))
    # Where it granted rules, the notebook says so above the turn it follows (inert: a rule is the model's text).
    return Result(said, markdown=inert_markdown(said) if granted and always is not True else "", run=run)


def approve_words(text: str) -> tuple[bool | str, bool, str | None]:
    """`always [tool|command|like|RULE] [--policy] [REASON]` read: what is granted, whether into the
    policy file, and the reason (None when none is given)."""
    rest = text.strip()
    if not rest.startswith("always") or rest[6:7] not in ("", " ", "\t", "\n"):
        return False, False, rest or None
    rest = rest[6:].strip()
    always: bool | str = True
    rule = rule_ahead(rest)
    first = rest.split(None, 1)[0] if rest else ""
    if first in ("tool", "command", "like"):
        always, rest = first, rest[len(first) :].strip()
    elif rule is not None:
        always, rest = rule, rest[len(rule) :].strip()
    in_policy = rest == "--policy" or rest.startswith(("--policy ", "--policy\n"))
    if in_policy:
        rest = rest[len("--policy") :].strip()
    return always, in_policy, rest or None


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
