"""The engine's `handoff` tool (C3): offered to the model only once auto-compaction armed the handoff.

Arming places a host message of topic `handoff_armed` on the timeline; from then on every request of the
conversation carries the tool, appended after the agent's own tools (the tools above keep their place in
the request). The engine, not the tool registry, answers a call of it (compaction/handoff.py).
"""

from __future__ import annotations

from ...cards.models import Card, HostMessage
from ...providers.base import ToolSpec

HANDOFF = "handoff"
ARMED_TOPIC = "handoff_armed"

HANDOFF_SPEC = ToolSpec(
    name=HANDOFF,
    description=(
        "Hand the work over to a new session when this conversation's context is nearly full. Pass the "
        "handoff documents: everything the agent taking over needs to go on without this conversation "
        "(the goal and the person's own words where they matter, decisions and findings, files and code "
        "touched, errors and fixes, pending work, the next step). The new session starts from them "
        "alone, with the same system prompt and tools; this conversation stops here. Call it on its own, "
        "after the results of any other tool calls are in."
    ),
    input_schema={
        "type": "object",
        "properties": {
            "documents": {
                "type": "string",
                "description": "The handoff documents, in Markdown.",
            }
        },
        "required": ["documents"],
    },
)


def handoff_armed(cards: list[Card]) -> bool:
    """Whether auto-compaction asked this conversation to hand off (the `handoff` tool is then offered)."""
    return any(isinstance(card, HostMessage) and card.topic == ARMED_TOPIC for card in cards)
