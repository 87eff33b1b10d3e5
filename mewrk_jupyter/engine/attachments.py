"""Attachments on a user input (T18) and the vision gate (T19)."""

from __future__ import annotations

import base64
import mimetypes
import os
from collections.abc import Iterable
from pathlib import Path

from ..cards.models import Attachment, Card, UserInput
from ..errors import InvalidInput

MAX_MESSAGE_BYTES = 32 * 1024 * 1024


def _megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"


def to_attachment(item: Attachment | str | os.PathLike) -> Attachment:
    """An Attachment as given, or one read from a file path."""
    if isinstance(item, Attachment):
        return item
    if not isinstance(item, str | os.PathLike):
        raise InvalidInput(f"An attachment is a file path or mw.Attachment; got {type(item).__name__}.")
    path = Path(item).expanduser()
    if not path.is_file():
        raise InvalidInput(f"Cannot attach {path}: no such file.")
    data = path.read_bytes()
    media_type = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
    text = None
    if media_type.startswith("text/") or media_type in ("application/json", "application/x-yaml"):
        text = data.decode("utf-8", errors="replace")
    return Attachment(
        name=path.name, media_type=media_type, data=base64.b64encode(data).decode(), size=len(data), text=text
    )


def attachments_for_message(items: Iterable[Attachment | str | os.PathLike]) -> list[Attachment]:
    """The attachments of one message, refused as a whole above 32 MB (T18)."""
    attachments = [to_attachment(item) for item in items]
    total = sum(a.size or len(a.data) * 3 // 4 for a in attachments)
    if total > MAX_MESSAGE_BYTES:
        raise InvalidInput(
            f"The attachments come to {_megabytes(total)}; a message takes at most 32 MB. "
            f"Nothing was sent — attach fewer or smaller files."
        )
    return attachments


def check_vision(cards: Iterable[Card], model: str, vision: bool) -> None:
    """Refuse to send images to a model without vision input (T19)."""
    if vision:
        return
    images = [
        a.name
        for c in cards
        if isinstance(c, UserInput)
        for a in c.attachments
        if a.media_type.startswith("image/")
    ]
    if images:
        raise InvalidInput(
            f"This conversation holds images ({', '.join(images[:3])}{'…' if len(images) > 3 else ''}) and "
            f"`{model}` has no vision input. Switch the model or delete the images."
        )
