"""What the offline models do about a handoff (C3, C5), so that it works, and can be tested, without a key.

Offered the engine's `handoff` tool (auto-compaction armed it), an offline model writes handoff
documents from the request alone and calls the tool with them — unless the newest message refuses its
own `handoff` call (a refusal it reads and answers in words). Asked for the documents in words
(the engine's handoff request, for compact now: a last user text beginning `# Handoff request`), it
answers with them. The documents are the offline summary's structure under a heading of their own.
"""

from __future__ import annotations

from .base import Message, ModelRequest, TextPart, ToolResultPart, ToolUsePart
from .offline_summary import write_summary

HANDOFF_REQUEST = "# Handoff request"
HANDOFF_HEADING = "# Handoff documents"
HANDOFF_TOOL = "handoff"


def asks_for_handoff(messages: list[Message]) -> bool:
    """Whether the request ends with the engine's handoff request."""
    if not messages or messages[-1].role != "user":
        return False
    texts = [p.text for p in messages[-1].parts if isinstance(p, TextPart)]
    return bool(texts) and texts[-1].lstrip().startswith(HANDOFF_REQUEST)


def is_handoff(text: str) -> bool:
    """Whether a text is handoff documents an offline model wrote (a handover session starts from them)."""
    return text.lstrip().startswith(HANDOFF_HEADING)


def should_hand_off(request: ModelRequest) -> bool:
    """Offered `handoff`, and not just refused a call of it: the model hands off now."""
    if not any(tool.name == HANDOFF_TOOL for tool in request.tools):
        return False
    messages = request.messages
    if not messages or messages[-1].role != "user":
        return False
    ours = {
        part.id
        for message in messages
        if message.role == "assistant"
        for part in message.parts
        if isinstance(part, ToolUsePart) and part.name == HANDOFF_TOOL
    }
    # A refusal of its own call is read and answered in words; after a handoff that went through, the
    # conversation went on here anyway, and the model hands off again.
    return not any(
        isinstance(p, ToolResultPart) and p.tool_use_id in ours and p.is_error for p in messages[-1].parts
    )


def write_handoff(messages: list[Message]) -> str:
    """Handoff documents for the conversation the request carries (the handoff request itself aside)."""
    kept = [
        Message(
            role=message.role,
            parts=[
                part
                for part in message.parts
                if not (isinstance(part, TextPart) and part.text.lstrip().startswith(HANDOFF_REQUEST))
            ],
        )
        for message in messages
    ]
    return f"{HANDOFF_HEADING}\n\n{write_summary(kept)}"
