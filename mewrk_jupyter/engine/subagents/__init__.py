"""Subagents (T15): `agent_spawn` starts a conversation of its own in the background, `task_wait`
collects results, and its approvals are answered on the parent's timeline."""

from .calls import SubagentCalls, chain
from .figures import AgentFigure, agent_figures
from .plan_mode import reach_subagents
from .spawn import spawn, stop_subagents_elsewhere
from .supervisor import WITHDRAWN, decide_for_subagent, subagent_approval, supervisor_of
from .waiting import waiting_below, waiting_status

__all__ = [
    "WITHDRAWN",
    "AgentFigure",
    "SubagentCalls",
    "agent_figures",
    "chain",
    "decide_for_subagent",
    "reach_subagents",
    "spawn",
    "stop_subagents_elsewhere",
    "subagent_approval",
    "supervisor_of",
    "waiting_below",
    "waiting_status",
]
