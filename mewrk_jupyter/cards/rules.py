"""The edit rules of T4 and T6: what a person may insert, edit and delete. Pure functions, no I/O."""

from __future__ import annotations

import re
from typing import Any

from ..errors import InvalidInput, NotEditable
from .models import Card, ModelReply, Thinking
from .words import noun

# Kinds a person may place on the timeline (T4).
INSERTABLE = ("system_prompt", "user_input", "thinking", "tool_call", "model_reply")

# Fields a person may change, by kind (T6). Kinds absent here cannot be edited at all.
EDITABLE_FIELDS: dict[str, tuple[str, ...]] = {
    "system_prompt": ("text",),
    "user_input": ("text", "attachments"),
    "thinking": ("text",),
    "tool_call": ("params", "result", "is_error"),
    "model_reply": ("text",),
    "host_message": ("text",),
    "handoff": ("text",),
    # The summary a divider carries, read and corrected after the fact (C7); the rest is the engine's.
    "summary_divider": ("summary",),
}

# Kinds no one may edit, with the reason a person is told (the widget shows it on an edit attempt).
READ_ONLY_REASON: dict[str, str] = {
    "preview": "Preview cards are read-only.",
    "subagent": "Subagent cards are read-only; they show what a subagent did.",
    "workflow": "Workflow cards are read-only; they show what a workflow's steps did.",
    "comparison": "A replay's comparison is read-only; it shows how the turn above compares with the recording's.",
    "approval": "An approval is decided with approve() or reject(), not edited.",
    "native_compaction": "A native-compaction card carries the provider's encrypted item and cannot be edited.",
}


# Half of a UTF-16 pair alone (U+D800 to U+DFFF), as a JSON `"\ud800"` escape or a Python string makes it:
# not a character, so it can be neither stored nor sent.
LONE_SURROGATE = re.compile("[\ud800-\udfff]")
SURROGATE_SENTENCE = (
    "holds a lone surrogate (half of a UTF-16 pair, \\ud800 to \\udfff, without its other half), which is "
    "not a character and cannot be stored or sent; write the character whole"
)


def check_text(text: str, what: str) -> None:
    """Refuse `text` (`what` names it: "The message") when it holds a lone surrogate."""
    if LONE_SURROGATE.search(text):
        raise InvalidInput(f"{what} {SURROGATE_SENTENCE}.")


def check_insertable(card: Card) -> None:
    """Refuse a card a person may not insert (T4), or a thinking card that pretends to be signed (T7)."""
    if card.kind not in INSERTABLE:
        allowed = ", ".join(noun(kind) for kind in INSERTABLE)
        raise InvalidInput(f"A {noun(card.kind)} cannot be inserted by hand; what can be: {allowed}.")
    if isinstance(card, Thinking) and card.is_signed:
        raise InvalidInput(
            "A thinking card inserted by hand cannot carry a signature or encrypted content; "
            "only the provider signs thinking."
        )


def check_edit(card: Card, fields: dict[str, Any]) -> None:
    """Refuse an edit that T6 forbids, with the reason in plain words."""
    if not fields:
        raise InvalidInput("Nothing to change: pass the fields to edit, e.g. edit(card_id, text='…').")
    if card.kind in READ_ONLY_REASON:
        raise NotEditable(READ_ONLY_REASON[card.kind])
    if isinstance(card, ModelReply) and not card.complete:
        raise NotEditable("This reply is still being written; it can be edited once it is complete.")
    if isinstance(card, Thinking) and card.encrypted is not None:
        raise NotEditable("This thinking is encrypted by the provider: it can only be deleted, not edited.")
    allowed = EDITABLE_FIELDS.get(card.kind, ())
    unknown = [name for name in fields if name not in allowed]
    if unknown:
        raise InvalidInput(
            f"A {noun(card.kind)} has no editable field {', '.join(map(repr, unknown))}; "
            f"editable: {', '.join(allowed)}."
        )


def apply_edit(card: Card, fields: dict[str, Any]) -> Card:
    """Return the edited copy of a card (validated), flagged as edited; the original is untouched."""
    check_edit(card, fields)
    data = card.model_dump()
    data.update(fields)
    data["edited"] = True
    try:
        return type(card).model_validate(data)
    except ValueError as exc:  # pydantic.ValidationError is a ValueError
        raise InvalidInput(f"Invalid value for a {noun(card.kind)}: {exc}") from None
