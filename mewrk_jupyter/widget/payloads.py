"""What the kernel sends the views about a session: cards, the dashboard, the history (T16, T17, D1–D6)."""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Any, cast

from ..cards.models import Card, ToolCall
from ..engine.assembly.context import format_tokens
from ..engine.history_summary import summarise_history
from ..engine.settings.preferences import preferences_at
from ..engine.subagents import agent_figures
from ..errors import InvalidInput, MewrkError
from ..tools import REEXECUTABLE  # the tools whose call a person may run again with edited parameters (T6)
from .economy import last_cache_info, stale_info
from .protocol import (
    AgentFigureMsg,
    CardPayload,
    ContextMsg,
    HistoryEntryData,
    HistoryRow,
    ToolInfo,
    ToolLockInfo,
)

if TYPE_CHECKING:
    from ..engine.session import Session


def card_payload(card: Card, not_sent: str | None = None) -> CardPayload:
    """A card as the front end needs it: its fields, minus opaque blobs (attachment bytes, signatures).

    `not_sent` is why the next request leaves the card out (`Session.not_sent()`), if it does.
    """
    data = card.model_dump(mode="json")
    if not_sent:
        data["not_sent"] = not_sent
    for files in ("attachments", "images"):
        if files in data:
            data[files] = [
                {key: value for key, value in a.items() if key not in ("data", "text")} for a in data[files]
            ]
    if card.kind == "thinking":
        data["signed"] = bool(data.pop("signature", None)) or bool(data.get("encrypted"))
        data["encrypted"] = bool(data.get("encrypted"))
        data.pop("signed_text", None)
    if card.kind == "native_compaction":
        data["encrypted"] = bool(data.get("encrypted"))
    # Built from the card's own dump, whose fields the protocol tests hold to CardPayload (no copy here:
    # a snapshot carries thousands of them).
    return cast(CardPayload, data)


# The image types a card shows, each by the bytes its files begin with: a tool's image is shown only when
# its bytes are what its type says, so that no SVG or HTML (which could carry a script) reaches the page.
_SHOWN_IMAGES = {
    "image/png": (b"\x89PNG\r\n\x1a\n",),
    "image/jpeg": (b"\xff\xd8\xff",),
    "image/gif": (b"GIF87a", b"GIF89a"),
    "image/webp": (b"RIFF",),
}


def tool_image_url(card: Card, index: int) -> str:
    """Image `index` of a tool call's card as a `data:` URL for its <img>; InvalidInput when it cannot be shown."""
    images = card.images if isinstance(card, ToolCall) else []
    if index >= len(images):
        raise InvalidInput("That image is no longer on the card.")
    image = images[index]
    try:
        head = base64.b64decode(image.data[:24], validate=True)
    except (binascii.Error, ValueError):
        head = b""
    starts = _SHOWN_IMAGES.get(image.media_type, ())
    webp = image.media_type != "image/webp" or head[8:12] == b"WEBP"
    if not (head.startswith(starts) and webp):
        raise InvalidInput(f"{image.name} is not a PNG, JPEG, GIF or WebP image, so it is not shown.")
    return f"data:{image.media_type};base64,{image.data}"


def _cost(info: Any) -> tuple[float | None, str]:
    """The session's spend (D6), kept apart from the context figure; empty until the engine knows prices."""
    cost = getattr(info, "cost", None)
    line = getattr(info, "cost_line", None)
    text = line() if callable(line) else ""
    if not text and isinstance(cost, int | float):
        text = f"Cost: ${cost:.4f} this session"
    return (float(cost) if isinstance(cost, int | float) else None), text or ""


def compact_at(session: Session, window: int | None) -> int | None:
    """Where auto-compaction acts, in percent of the window: the threshold of the conversation's mode;
    None when it is off or the window is not known (then nothing compacts by itself)."""
    found, _ = preferences_at(session.workspace.home)
    if not found.auto_compaction or not window:
        return None
    native = session.settings.compaction == "native"
    return found.native_threshold if native else found.handoff_threshold


def context_payload(session: Session) -> ContextMsg:
    """The dashboard line (D1–D4), the two sizes, the ring's breakdown by card kind (T16) and the cost (D6)."""
    info = session.context
    cost, cost_line = _cost(info)
    last = getattr(info, "last_request", None)
    return ContextMsg(
        line=info.line(),
        level=info.level,
        percent=info.percent,
        used=info.used,
        window=info.window,
        estimated=info.estimated,
        by_kind=info.by_kind,
        used_text=info.used_text,
        window_text=format_tokens(info.window) if info.window else None,
        last_request=last,
        last_text="≈" + format_tokens(last) if last is not None else None,
        last_words=info.last_words,
        next_request=info.next_request,
        next_text=info.next_text,
        sizes=info.sizes(),
        cost=cost,
        cost_line=cost_line,
        compact_at=compact_at(session, info.window),
        tool_lock=tool_lock_info(session),
        agents=[AgentFigureMsg(**figure.model_dump()) for figure in agent_figures(session)],
        stale=stale_info(session),  # once per dashboard, not per card: ≈18 ms on 2,000 cards
        last_cache=last_cache_info(session),
    )


def tool_lock_info(session: Session) -> ToolLockInfo | None:
    """The tool lock's line while it holds the tools of the last request; None when nothing is held (or
    the model is misconfigured: sending says so)."""
    try:
        lock = getattr(session, "tool_lock", None)
    except MewrkError:
        return None
    return ToolLockInfo(text=lock.text, until=lock.until) if lock is not None else None


def _usage_of(response: dict[str, Any] | None) -> dict[str, Any] | None:
    usage = (response or {}).get("usage")
    return usage if isinstance(usage, dict) else None


def history_rows(session: Session) -> list[HistoryRow]:
    """Each request of the session's history in a few readable lines (T17); its JSON comes on demand."""
    rows = []
    history = session.history
    for entry, summary in zip(history, summarise_history(history), strict=True):
        messages = entry.request.get("messages")
        rows.append(
            HistoryRow(
                id=entry.id,
                number=entry.number,
                summary=summary,
                run_id=entry.run_id,
                model=entry.model,
                protocol=entry.protocol,
                started_at=entry.started_at,
                ended_at=entry.ended_at,
                messages=len(messages) if isinstance(messages, list) else None,
                usage=_usage_of(entry.response),
                error=entry.error,
                answered=entry.response is not None,
            )
        )
    return rows


def history_entry(session: Session, entry_id: int) -> HistoryEntryData | None:
    """One request exactly as sent, with what came back; None when the session has no such entry."""
    entry = session.history_entry(entry_id)
    if entry is None:
        return None
    return HistoryEntryData(
        id=entry.id, number=entry.number, request=entry.request, response=entry.response, error=entry.error
    )


def tool_forms(session: Session) -> list[ToolInfo]:
    """The enabled tools for the tool-call form (T5): name, description, schema, re-executable."""
    try:
        found = session.tool_specs()
    except MewrkError:
        return []
    return [
        ToolInfo(
            name=spec.name,
            description=spec.description,
            input_schema=spec.input_schema,
            reexecute=spec.name in REEXECUTABLE,
        )
        for spec in found
    ]


def model_has_vision(session: Session) -> bool:
    """Whether the session's model takes images (T19); the composer warns before a send is refused."""
    try:
        return session.model_info.vision
    except MewrkError:
        return False
