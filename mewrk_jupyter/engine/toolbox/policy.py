"""Safety levels (A4): whether a tool runs freely, asks the person first, or is refused."""

from __future__ import annotations

from collections.abc import Iterable

from ...cards.models import Card, HostMessage
from ...config.policy import PolicyConfig, Tier
from ...tools import Tool
from ...tools.mcp import server_prefix


def tier_of(policy: PolicyConfig, tool: str, approved_always: list[str]) -> Tier:
    """The tier of `tool`: deny wins; a tool approved for the session runs; an unlisted tool asks.

    An MCP server's tool takes the tier of its own name, else that of `mcp__<server>` (all its tools).
    """
    tier = policy.tier(tool)
    prefix = server_prefix(tool)
    if tier is None and prefix is not None:
        tier = policy.tier(prefix)
    if tier == "deny":
        return "deny"
    if tool in approved_always:
        return "allow"
    return tier or "ask"


def denial(tool: str, level: str) -> str:
    """What the model reads when the safety level refuses a tool (a statement, not an error)."""
    return (
        f"The tool `{tool}` is not allowed at the safety level `{level}`, so this call was not run. "
        f"Find another way, or ask the person to change the safety level."
    )


# Plan mode (a conversation setting): the model plans and reads, and these tools are not offered, nor a
# tool declared outside the engine (an MCP server's, a tool file's command) that does not say it only reads.
PLAN_WITHHELD = ("write", "edit", "bash", "python", "notebook_edit", "notebook_run")
PLAN_ON = (
    "Plan mode is on: the person wants a plan before any change. Read and search as much as you need, "
    "then present a plan for the person to review. `write`, `edit`, `bash`, `python`, `notebook_edit` "
    "and `notebook_run`, the MCP "
    "servers' tools (`mcp__…`) that their servers do not mark read-only, and the workspace's command "
    "tools not declared read-only are not yours to use until the person turns plan mode off (a call of "
    "one, while the tool list still shows it, is not run); do not try to change files another way. Your "
    "subagents plan too, those at work now and those you start."
)
PLAN_OFF = "Plan mode is off: you may change files and run commands again, under the safety level."
PLAN_OFF_START = "Plan mode is off"
PLAN_TOPIC = "plan_mode"


def plan_message(on: bool) -> HostMessage:
    """The host message that tells the model plan mode began or ended."""
    return HostMessage(topic=PLAN_TOPIC, text=PLAN_ON if on else PLAN_OFF)


def announced_plan_mode(cards: Iterable[Card]) -> bool:
    """Whether these cards leave the model told that plan mode is on: their last plan-mode message says so
    (none: off)."""
    on = False
    for card in cards:
        if isinstance(card, HostMessage) and card.topic == PLAN_TOPIC:
            on = not card.text.startswith(PLAN_OFF_START)  # a reworded message still says which it is
    return on


def plan_withholds(tool: Tool) -> bool:
    """Whether plan mode withholds `tool`: a built-in that changes files or runs code, or a tool declared
    outside the engine (an MCP server's, a `.mewrk/tools` command) that does not say it is read-only."""
    return tool.name in PLAN_WITHHELD or (tool.declared and not tool.read_only)


def plan_denial(tool: str) -> str:
    """What the model reads when it calls a tool that plan mode withholds (a statement, not an error)."""
    return (
        f"Plan mode is on, so `{tool}` is not offered and this call was not run. Present your plan; the "
        "person turns plan mode off when it is time to carry it out."
    )


def plan_withdrawal(tool: str) -> str:
    """What the model reads when plan mode turned on while its call of `tool` waited for the person's
    approval: the approval was withdrawn and the call not run (a statement, not an error)."""
    return (
        f"Plan mode was turned on while this call of `{tool}` waited for the person's approval, so the "
        "approval was withdrawn and the call was not run. Present your plan; the person turns plan mode "
        "off when it is time to carry it out."
    )


# A call of the same response after the one whose approval plan mode withdrew, when the turn ends there.
PLAN_TURN_ENDED = (
    "This call was not run: plan mode was turned on while an earlier call of the same reply waited for "
    "the person's approval, and the turn ended there. Call it again if you still need it."
)


def rejection(reason: str | None) -> str:
    """What the model reads when the person rejects a call (A2): a statement carrying the reason."""
    text = "The person reviewed this call and rejected it, so it was not run."
    if reason and reason.strip():
        text += f" Their reason: {reason.strip()}"
    return text
