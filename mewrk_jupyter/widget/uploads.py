"""Files a view attaches to a message (T18), carried in binary chunks and assembled here.

A comm message is a websocket frame, and Jupyter's server takes frames of up to 10 MB, so the
view sends each file as chunks of at most CHUNK bytes (`upload` messages with binary buffers), then
the `send` action that names them. The 32 MB per-message rule itself is the engine's: the files are
handed to `Session.send(attachments=…)`, which refuses the whole message above it.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any

from ..cards.models import Attachment
from ..engine.assembly.attachments import attachment_from_bytes
from ..errors import InvalidInput
from .protocol import UploadMsg

CHUNK = 2 * 1024 * 1024
# Bytes one widget holds for uploads not yet sent; beyond the engine's own limit with room to refuse.
MAX_PENDING = 40 * 1024 * 1024


@dataclass
class Upload:
    """One file as its chunks arrive."""

    name: str
    media_type: str
    size: int
    data: bytearray = field(default_factory=bytearray)


class Uploads:
    """The files the views are sending, by upload id, until a `send` takes them."""

    def __init__(self) -> None:
        self._files: dict[str, Upload] = {}
        self._lock = threading.Lock()
        self._too_big: set[str] = set()

    def held(self) -> list[str]:
        """The ids of the files held, not yet taken by a send nor discarded."""
        with self._lock:
            return sorted(self._files)

    def receive(self, message: UploadMsg, buffers: list[Any]) -> None:
        """Add one chunk: the message says which file and where; the first buffer holds the bytes."""
        upload_id = message.upload_id
        chunk = bytes(buffers[0]) if buffers else b""
        with self._lock:
            if upload_id in self._too_big:
                return
            upload = self._files.get(upload_id)
            if upload is None:
                upload = self._files[upload_id] = Upload(
                    name=message.name or "file",
                    media_type=message.media_type or "application/octet-stream",
                    size=message.size,
                )
            held = sum(len(u.data) for u in self._files.values())
            if held + len(chunk) > MAX_PENDING:
                self._files.pop(upload_id, None)
                self._too_big.add(upload_id)
                return
            if message.offset == len(upload.data):
                upload.data.extend(chunk)

    def take(self, upload_ids: list[Any]) -> list[Attachment]:
        """The named files as attachments, read the way the engine reads a file path (text, PDF)."""
        out = []
        with self._lock:
            for upload_id in upload_ids:
                if str(upload_id) in self._too_big:
                    raise InvalidInput(
                        "The attachments come to more than 32 MB; a message takes at most 32 MB. "
                        "Nothing was sent — attach fewer or smaller files."
                    )
                upload = self._files.get(str(upload_id))
                if upload is None or len(upload.data) != upload.size:
                    raise InvalidInput("An attachment did not arrive whole; attach it again.")
                out.append(_attachment(upload))
        return out

    def discard(self, upload_ids: list[Any]) -> None:
        """Forget files once sent (or removed from the composer)."""
        with self._lock:
            for upload_id in upload_ids:
                self._files.pop(str(upload_id), None)
                self._too_big.discard(str(upload_id))


def _attachment(upload: Upload) -> Attachment:
    """The engine's own reading of the file, as if it had been attached by path."""
    return attachment_from_bytes(upload.name, bytes(upload.data), upload.media_type or None)
