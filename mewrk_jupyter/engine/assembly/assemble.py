"""Request assembly (T1, T2): project the timeline, top to bottom, into a neutral request.

Above a summary divider the request carries its summary instead of the cards (C6, cut.py). A
native-compaction card carries the person's kept messages, then the provider's item where the model
can take it (C4, compacted.py).

Cards go out as they stand; the `edited` flag and every other person-only field stay behind, so the
model cannot tell an edited card from one it wrote (T6). Cards of one model response (same
`response_id`) form one assistant message; tool results follow in the next user message, first.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Literal

from ...cards.models import (
    Card,
    Handoff,
    HostMessage,
    ModelReply,
    NativeCompaction,
    SummaryDivider,
    SystemPrompt,
    Thinking,
    ToolCall,
    UserInput,
)
from ...providers.base import (
    AttachmentPart,
    Message,
    ModelInfo,
    ModelRequest,
    Part,
    TextPart,
    ThinkingPart,
    ToolResultPart,
    ToolSpec,
    ToolUsePart,
)
from .attachments import attachment_part, tool_images
from .compacted import item_part, kept_parts
from .cut import read_cards, summary_message
from .prefix import PrefixSection

# Kinds the person sees but the model does not read (they carry no context of their own). A summary
# divider is read: its summary stands in for the cards above it (cut.py); so is a native compaction.
NOT_SENT = ("approval", "preview", "subagent", "workflow", "comparison")

NO_RESULT = "(no result was recorded for this call)"

# Why a signed thinking block is left out of the request, in the words its card shows a person (T7).
BROKEN_SIGNATURE = (
    "a change above this signed thinking means the provider would reject it; "
    "undo that change or delete this card"
)


def signed_elsewhere(card: Thinking, model: ModelInfo) -> bool:
    """Whether a signed block came from another protocol than the model's, and cannot be sent to it.

    Chat Completions takes thinking back as plain `reasoning_content` where the model asks for it, so
    only an encrypted block is lost there; the protocols that sign take only their own signatures.
    """
    if not card.is_signed or card.protocol is None or card.protocol == model.protocol:
        return False
    as_text = model.protocol == "openai-chat" and model.reasoning_content_roundtrip != "never"
    return card.encrypted is not None or not as_text


def other_protocol(card: Thinking, model: ModelInfo) -> str:
    """Why a block signed on another protocol is left out, and how to send it again."""
    return (
        f"signed on {card.protocol}, which `{model.name}` ({model.protocol}) cannot take; "
        "switch back to a model of that protocol to send it again"
    )


def thinking_part(card: Thinking) -> ThinkingPart:
    """The neutral form of a thinking card, signature and all; the adapter decides what it may send."""
    return ThinkingPart(
        text=card.text,
        signature=card.signature,
        signed_text=card.signed_text,
        encrypted=card.encrypted,
        protocol=card.protocol,
    )


def _sent_form(part: Part) -> list:
    """What of a part a provider receives: signed thinking by its signed content, never the shown text."""
    if isinstance(part, ThinkingPart):
        if part.encrypted is not None:
            return ["encrypted", part.encrypted]
        if part.signature is not None:
            return ["signed", part.signed_text, part.signature]
        return ["thinking", part.text]
    if isinstance(part, AttachmentPart):
        return [
            "attachment",
            part.name,
            part.media_type,
            hashlib.sha256(part.data.encode()).hexdigest(),
            part.text,
        ]
    if isinstance(part, ToolResultPart) and part.images:  # the images by their digest, as attachments
        text = part.model_copy(update={"images": ()}).model_dump(mode="json")
        return [part.type, text, [_sent_form(image) for image in part.images]]
    return [part.type, part.model_dump(mode="json")]


def prefix_digest(
    system: list[str], tools: list[ToolSpec], messages: list[Message], tail: Iterable[Part] = ()
) -> str:
    """A digest of what a signed thinking block follows: tools, system, then every part in order."""
    digest = hashlib.sha256()
    # A spec without `claude_code` is digested as before that field was added: thinking bound then holds.
    specs = [
        t.model_dump(mode="json", exclude={"claude_code"} if t.claude_code is None else None) for t in tools
    ]
    digest.update(json.dumps([specs, system]).encode())
    for message in messages:
        for part in message.parts:
            digest.update(json.dumps([message.role, _sent_form(part)]).encode())
    for part in tail:
        digest.update(json.dumps(["assistant", _sent_form(part)]).encode())
    return digest.hexdigest()


# A background result (a `<task-notification>`) is a host message of this topic; in the default container its
# reminder begins with NOTIFICATION_MARK, so that it never reads as the person's words (T14).
NOTIFICATION_TOPIC = "task_notification"
NOTIFICATION_MARK = "[SYSTEM NOTIFICATION - NOT USER INPUT]"


def host_text(card: HostMessage) -> str:
    """A host message in the default container (T14): a user message wrapped in a system reminder."""
    text = f"{NOTIFICATION_MARK}\n{card.text}" if card.topic == NOTIFICATION_TOPIC else card.text
    return f"<system-reminder>\n{text}\n</system-reminder>"


BOX_TOOL = "box"
BOX_SPEC = ToolSpec(
    name=BOX_TOOL,
    description=(
        "Carries the host application's messages to you: the engine writes a call of it, and the message "
        "is its result. Calling it yourself does nothing."
    ),
    input_schema={"type": "object", "properties": {}, "additionalProperties": False},
)


def box_call_id(card: HostMessage) -> str:
    """The id of the `box` call the engine writes for a host message (stable: the card's own id)."""
    return f"toolu_box_{card.id}"


class _Builder:
    """Collects messages, merging neighbours of the same role, and keeps tool results paired."""

    def __init__(self) -> None:
        self.messages: list[Message] = []
        self.results: list[Part] = []
        self.response_id: str | None = None
        self.not_sent: dict[str, str] = {}

    def add(self, role: Literal["user", "assistant", "system"], parts: list[Part]) -> None:
        if role != "assistant":
            self.flush_results()
        if self.messages and self.messages[-1].role == role and role != "system":
            self.messages[-1].parts.extend(parts)
        else:
            self.messages.append(Message(role=role, parts=list(parts)))

    def add_assistant(self, card: Card, parts: list[Part]) -> None:
        rid = card.response_id
        new_response = rid is not None and self.response_id is not None and rid != self.response_id
        # Tool calls of one response sit side by side; anything after them waits for their results.
        parallel_call = isinstance(card, ToolCall) and self.results and not new_response
        if (
            (self.results and not parallel_call)
            or new_response
            or not self.messages
            or self.messages[-1].role != "assistant"
        ):
            self.flush_results()
            self.messages.append(Message(role="assistant", parts=[]))
        self.messages[-1].parts.extend(parts)
        self.response_id = rid if rid is not None else self.response_id

    def flush_results(self) -> None:
        if self.results:
            results, self.results = self.results, []
            self.messages.append(Message(role="user", parts=results))
        self.response_id = None


@dataclass
class Assembly:
    """A request as assembled, and the cards on the timeline it had to leave out, each with the reason."""

    request: ModelRequest
    not_sent: dict[str, str] = field(default_factory=dict)


def assemble(
    cards: list[Card],
    model: ModelInfo,
    prefix: list[PrefixSection],
    tools: list[ToolSpec] | None = None,
    reasoning: str = "off",
    container: str = "user_message",
) -> ModelRequest:
    """The neutral request for the timeline as it stands."""
    return assembly(cards, model, prefix, tools, reasoning, container).request


def assembly(
    cards: list[Card],
    model: ModelInfo,
    prefix: list[PrefixSection],
    tools: list[ToolSpec] | None = None,
    reasoning: str = "off",
    container: str = "user_message",
) -> Assembly:
    """The neutral request for the timeline as it stands, with what it leaves out and why; `container`
    is how host messages travel (a system reminder in a user message, or the result of a `box` call)."""
    system = [section.text for section in prefix]
    builder = _Builder()
    for card in read_cards(cards):
        if card.kind in NOT_SENT:
            continue
        if isinstance(card, SummaryDivider):
            builder.add("user", [TextPart(text=summary_message(card))])
        elif isinstance(card, SystemPrompt):
            if builder.messages:
                builder.add("system", [TextPart(text=card.text)])
            else:
                system.append(card.text)
        elif isinstance(card, UserInput):
            parts: list[Part] = [attachment_part(a, model) for a in card.attachments]
            if card.text:
                parts.append(TextPart(text=card.text))
            builder.add("user", parts)
        elif isinstance(card, HostMessage):
            if container == "box_tool_result" and builder.messages:
                # A call the model never made, and the message as its result (before the first message
                # there is no turn of the model's to hold a call: that one goes as a user message).
                call_id = box_call_id(card)
                builder.add_assistant(card, [ToolUsePart(id=call_id, name=BOX_TOOL, input={})])
                builder.results.append(ToolResultPart(tool_use_id=call_id, content=card.text, is_error=False))
            else:
                builder.add("user", [TextPart(text=host_text(card))])
        elif isinstance(card, Handoff):
            builder.add("user", [TextPart(text=card.text)])
        elif isinstance(card, NativeCompaction):
            if kept := kept_parts(card):
                builder.add("user", list(kept))
            if item := item_part(card, model):  # the item stands where the compacted conversation stood
                builder.add_assistant(card, [item])
        elif isinstance(card, Thinking):
            builder.add_assistant(card, [])
            part = thinking_part(card)
            if signed_elsewhere(card, model):
                # After a switch of model: the adapter leaves another protocol's signed block out.
                builder.not_sent[card.id] = other_protocol(card, model)
            elif card.bound_to is not None and card.bound_to != prefix_digest(
                system, tools or [], builder.messages[:-1], builder.messages[-1].parts
            ):
                # Something above changed: the signature no longer holds, and the provider would refuse
                # the block; the adapters leave an unsigned block out on the protocols that sign.
                part = ThinkingPart(text=card.text)
                builder.not_sent[card.id] = BROKEN_SIGNATURE
            builder.messages[-1].parts.append(part)
        elif isinstance(card, ModelReply):
            if card.text:
                builder.add_assistant(card, [TextPart(text=card.text)])
        elif isinstance(card, ToolCall):
            builder.add_assistant(card, [ToolUsePart(id=card.call_id, name=card.name, input=card.params)])
            builder.results.append(
                ToolResultPart(
                    tool_use_id=card.call_id,
                    content=card.result if card.result is not None else NO_RESULT,
                    is_error=card.is_error,
                    images=tool_images(card, model),
                )
            )
    builder.flush_results()
    messages = [m for m in builder.messages if m.parts]
    request = ModelRequest(
        model=model.name,
        system=system,
        messages=messages,
        tools=list(tools or []),
        max_tokens=model.max_tokens,
        reasoning=reasoning,
    )
    return Assembly(request, builder.not_sent)
