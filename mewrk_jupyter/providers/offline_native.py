"""The offline models' native compaction (C4): an opaque item of their own, and reading it back.

Asked to compact, an offline model writes the structured summary its summary compaction writes
(offline_summary.py), compressed and sealed with a digest into `offline-cmp-<data>.<digest>`: opaque to
the engine as a vendor's encrypted item is, and refused when altered, as a vendor refuses one. A second
compaction folds the first item's summary into the new one, so nothing said before is lost.
"""

from __future__ import annotations

import base64
import hashlib
import json
import zlib

from ..cards.models import Usage
from ..errors import ProviderError
from .base import Compacted, Compaction, CompactionPart, Message, ModelRequest, Part, TextPart
from .offline_summary import write_summary

PROTOCOL = "offline"
PREFIX = "offline-cmp-"
ALTERED = (
    "The offline model cannot read this compaction item: it was altered or was not made by an offline "
    "model. Delete the native-compaction card, or switch to a model without native compaction, which "
    "reads only its kept messages."
)


def _digest(data: str) -> str:
    return hashlib.sha256(data.encode()).hexdigest()[:24]


def seal(summary: str) -> str:
    """A summary as an opaque item's content: compressed, encoded and sealed with a digest."""
    data = base64.urlsafe_b64encode(zlib.compress(summary.encode(), 9)).decode()
    return f"{PREFIX}{data}.{_digest(data)}"


def unseal(content: str) -> str:
    """The summary an item's content carries; ProviderError when it is not an intact offline item."""
    data, _, digest = content.removeprefix(PREFIX).rpartition(".")
    if not content.startswith(PREFIX) or not data or digest != _digest(data):
        raise ProviderError(ALTERED)
    try:
        return zlib.decompress(base64.urlsafe_b64decode(data)).decode()
    except (ValueError, zlib.error) as exc:
        raise ProviderError(ALTERED) from exc


def _content(part: CompactionPart) -> str:
    try:
        item = json.loads(part.encrypted)
    except ValueError as exc:
        raise ProviderError(ALTERED) from exc
    if not isinstance(item, dict) or item.get("type") != "compaction":
        raise ProviderError(ALTERED)
    return str(item.get("encrypted_content") or "")


def check_items(messages: list[Message]) -> list[str]:
    """The summaries of the offline compaction items a request carries; ProviderError for an altered one."""
    return [
        unseal(_content(part))
        for message in messages
        for part in message.parts
        if isinstance(part, CompactionPart) and part.protocol == PROTOCOL
    ]


def folded(messages: list[Message]) -> list[Message]:
    """The messages with each earlier item read as the summary it carries, so a new summary keeps it."""
    out: list[Message] = []
    for message in messages:
        parts: list[Part] = [p for p in message.parts if not isinstance(p, CompactionPart)]
        for summary in check_items([message]):
            out.append(Message(role="user", parts=[TextPart(text=f"<summary>\n{summary}\n</summary>")]))
        if parts:
            out.append(Message(role=message.role, parts=parts))
    return out


class OfflineCompaction(Compaction):
    """An offline model's compaction: the request as it would have gone, marked as a compaction."""

    def __init__(self, request: ModelRequest, tokens_before: int, instructions: str | None = None):
        self.body = {**request.model_dump(mode="json"), "compact": True}
        if instructions:  # as Anthropic's edit carries them: the summary is written with them
            self.body["instructions"] = instructions
        self._request = request
        self._before = tokens_before
        self._instructions = instructions

    def run(self) -> Compacted:
        summary = write_summary(folded(self._request.messages))
        if self._instructions:
            summary = f"{summary}\n\n## Kept as asked\n{self._instructions}"
        item = json.dumps({"type": "compaction", "encrypted_content": seal(summary)})
        after = (len(item) + 3) // 4  # as the offline models count what they read
        usage = Usage(input_tokens=self._before, output_tokens=(len(summary) + 3) // 4)
        return Compacted(item, usage, self._before, after)
