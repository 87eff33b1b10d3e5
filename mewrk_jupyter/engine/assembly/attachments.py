"""Attachments on a user input (T18): reading them, PDFs as documents or text, and the vision gate (T19)."""

from __future__ import annotations

import base64
import binascii
import io
import logging
import mimetypes
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Literal

from ...cards.models import Attachment, Card, ToolCall, UserInput
from ...errors import InvalidInput
from ...providers.base import IMAGE_TYPES, MESSAGES_PROTOCOLS, AttachmentPart, ModelInfo

MAX_MESSAGE_BYTES = 32 * 1024 * 1024
# Pages a protocol takes in one PDF document (Anthropic Messages, on any platform: 100 per request).
PDF_PAGE_LIMITS = dict.fromkeys(MESSAGES_PROTOCOLS, 100)
PDF = "application/pdf"


class UnreadablePdf(Exception):
    """A PDF with no text to extract; the message says why (encrypted, damaged, a scan)."""


def _megabytes(n: int) -> str:
    return f"{n / (1024 * 1024):.1f} MB"


def _decoded(data: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return b""


def _page_texts(data: bytes) -> list[str]:
    """The text of each page of a PDF; UnreadablePdf when it is encrypted or damaged."""
    from pypdf import PdfReader  # imported on first use: most sessions never see a PDF
    from pypdf.errors import DependencyError, FileNotDecryptedError

    # pypdf logs its repairs of a broken file to stderr; the person gets one sentence from us instead.
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        reader = PdfReader(io.BytesIO(data))
        if reader.is_encrypted and not reader.decrypt(""):  # an owner-only password still reads
            raise UnreadablePdf("it is encrypted")
        return [(page.extract_text() or "").strip() for page in reader.pages]
    except UnreadablePdf:
        raise
    except (DependencyError, FileNotDecryptedError) as exc:  # AES needs `cryptography`, absent here
        raise UnreadablePdf("it is encrypted") from exc
    except Exception as exc:  # pypdf raises many kinds on a broken file; all mean the same here
        raise UnreadablePdf("it is damaged or not a PDF") from exc


def pdf_text(data: bytes) -> str:
    """The text layer of a PDF, page after page; UnreadablePdf says why there is none."""
    text = "\n\n".join(page for page in _page_texts(data) if page)
    if not text:
        raise UnreadablePdf("it has no text layer, e.g. a scan")
    return text


def _pdf_facts(data: bytes) -> tuple[str | None, int | None]:
    """A PDF's text (None without a text layer) and its page count (None when it cannot be read)."""
    try:
        pages = _page_texts(data)
    except UnreadablePdf:
        return None, None
    return "\n\n".join(page for page in pages if page) or None, len(pages)


def to_attachment(item: Attachment | str | os.PathLike) -> Attachment:
    """An Attachment as given, or one read from a file path."""
    if isinstance(item, Attachment):
        if item.media_type == PDF and item.text is None and item.data:
            text, pages = _pdf_facts(_decoded(item.data))
            return item.model_copy(update={"text": text, "pages": pages})
        return item
    if not isinstance(item, str | os.PathLike):
        raise InvalidInput(f"An attachment is a file path or mw.Attachment; got {type(item).__name__}.")
    path = Path(item).expanduser()
    if not path.is_file():
        raise InvalidInput(f"Cannot attach {path}: no such file.")
    with path.open("rb") as file:  # never more than a message takes, even if the file grew since
        data = file.read(MAX_MESSAGE_BYTES + 1)
    if len(data) > MAX_MESSAGE_BYTES:
        raise _too_large(len(data))
    return attachment_from_bytes(path.name, data)


def attachment_from_bytes(name: str, data: bytes, media_type: str | None = None) -> Attachment:
    """An Attachment of a file's bytes (a widget upload, a paste), read as a file of that name would be."""
    name = Path(name.replace("\\", "/")).name or "file"
    guessed = mimetypes.guess_type(name)[0]
    media_type = guessed or media_type or "application/octet-stream"
    text, pages = None, None
    if media_type.startswith("text/") or media_type in ("application/json", "application/x-yaml"):
        text = data.decode("utf-8", errors="replace")
    elif media_type == PDF:
        text, pages = _pdf_facts(data)
    encoded = base64.b64encode(data).decode()
    return Attachment(name=name, media_type=media_type, data=encoded, size=len(data), text=text, pages=pages)


def _too_large(total: int) -> InvalidInput:
    return InvalidInput(
        f"The attachments come to {_megabytes(total)}; a message takes at most 32 MB. "
        f"Nothing was sent — attach fewer or smaller files."
    )


def _size(item: Attachment | str | os.PathLike) -> int:
    """The bytes an item brings, known before any file is read (a file by its size on disk)."""
    if isinstance(item, Attachment):
        return item.size or len(item.data) * 3 // 4
    if isinstance(item, str | os.PathLike):
        path = Path(item).expanduser()
        return path.stat().st_size if path.is_file() else 0
    return 0


def attachments_for_message(items: Iterable[Attachment | str | os.PathLike]) -> list[Attachment]:
    """The attachments of one message, refused as a whole above 32 MB (T18) before a file is read."""
    items = list(items)
    total = sum(_size(item) for item in items)
    if total > MAX_MESSAGE_BYTES:
        raise _too_large(total)
    attachments = [to_attachment(item) for item in items]
    total = sum(a.size or len(a.data) * 3 // 4 for a in attachments)
    if total > MAX_MESSAGE_BYTES:
        raise _too_large(total)
    return attachments


def check_vision(cards: Iterable[Card], model: str, vision: bool) -> None:
    """Refuse to send images to a model without vision input (T19): attached ones, and a tool's (a
    `python` call's figures, an MCP tool's images) alike."""
    if vision:
        return
    images: list[str] = []
    from_tools = False
    for c in cards:
        if isinstance(c, UserInput):
            images += [a.name for a in c.attachments if a.media_type.startswith("image/")]
        elif isinstance(c, ToolCall) and c.images:
            # Those a vision model would be sent (tool_images): an SVG a tool made stays on its card only.
            made = [f"{a.name} from `{c.name}`" for a in c.images if a.data and a.media_type in IMAGE_TYPES]
            images += made
            from_tools = from_tools or bool(made)
    if images:
        where = " (a tool's go with its call's card)" if from_tools else ""
        raise InvalidInput(
            f"This conversation holds images ({', '.join(images[:3])}{'…' if len(images) > 3 else ''}) and "
            f"`{model}` has no vision input. Switch the model (`/set model vendor/model`) or delete the "
            f"images{where}."
        )


def pdf_sent_as(attachment: Attachment, info: ModelInfo) -> Literal["original", "extracted_text"]:
    """How a PDF reaches this model: the original document, or the text extracted from it (T18).

    A PDF longer than the protocol takes as a document goes as its text rather than be refused.
    """
    limit = PDF_PAGE_LIMITS.get(info.protocol)
    too_long = limit is not None and (attachment.pages or 0) > limit
    return "original" if info.pdf_input and attachment.data and not too_long else "extracted_text"


def _check_pdf_readable(attachment: Attachment, info: ModelInfo) -> None:
    if attachment.media_type != PDF or pdf_sent_as(attachment, info) == "original":
        return
    if (attachment.text or "").strip():
        return
    if not attachment.data:
        raise InvalidInput(
            f"`{attachment.name}` holds neither the PDF nor its text. Nothing was sent — attach the file "
            f"again or delete the attachment."
        )
    try:
        pdf_text(_decoded(attachment.data))
        reason = "no text was extracted when it was attached"
    except UnreadablePdf as exc:
        reason = str(exc)
    raise InvalidInput(
        f"`{attachment.name}` cannot be read as text ({reason}), and `{info.name}` takes PDFs only as "
        f"extracted text. Nothing was sent — switch to a model that takes PDFs or delete the attachment."
    )


def attachment_part(attachment: Attachment, info: ModelInfo) -> AttachmentPart:
    """An attachment as the model receives it: a PDF goes as its text where the model takes no PDFs."""
    _check_pdf_readable(attachment, info)
    as_text = attachment.media_type == PDF and pdf_sent_as(attachment, info) == "extracted_text"
    return AttachmentPart(
        name=attachment.name,
        media_type=attachment.media_type,
        data="" if as_text else attachment.data,  # the adapters send the document only when it is there
        text=attachment.text,
    )


def check_attachments(cards: Iterable[Card], info: ModelInfo, new: UserInput | None = None) -> None:
    """Refuse, before anything is sent, what the model cannot take, and note on `new` how its PDFs go.

    Images need vision (T19); a PDF that goes as text needs text to extract (T18).
    """
    cards = list(cards)
    check_vision(cards, info.name, info.vision)
    for card in cards:
        if isinstance(card, UserInput):
            for attachment in card.attachments:
                _check_pdf_readable(attachment, info)
    if new is not None and any(a.media_type == PDF for a in new.attachments):
        new.attachments = [
            a.model_copy(update={"sent_as": pdf_sent_as(a, info)}) if a.media_type == PDF else a
            for a in new.attachments
        ]


def tool_images(card: ToolCall, info: ModelInfo) -> tuple[AttachmentPart, ...]:
    """The images a tool call made, as its result carries them to a model with vision input (T19).

    A model without vision gets none (the gate refuses such a request first, check_vision): the note of
    each in the result's text stays.
    """
    if not info.vision:
        return ()
    return tuple(
        AttachmentPart(name=image.name, media_type=image.media_type, data=image.data)
        for image in card.images
        if image.data and image.media_type in IMAGE_TYPES
    )
