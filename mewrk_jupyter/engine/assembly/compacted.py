"""What a request reads of a native-compaction card (C4): the person's kept messages, then the provider's
item where the model can take it.

The card's `encrypted` holds the item in an envelope, as JSON: the protocol and model that made it, the
item exactly as the provider gave it (Anthropic's `compaction` block, the Responses `compaction` item,
an offline model's own) and its size in tokens. The item goes back verbatim to a model of the same
protocol that has a native compaction; to any other model only the kept messages go. The card's `text`
(which model compacted, tokens before and after) is for the person and is never sent.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from ...cards.models import NativeCompaction
from ...providers.base import CompactionPart, ModelInfo, TextPart
from ...providers.offline import estimate_tokens


@dataclass(frozen=True)
class Envelope:
    """A compaction item with where it came from and its size."""

    protocol: str
    model: str
    item: str
    tokens: int = 0

    def dumps(self) -> str:
        """The envelope as the card's `encrypted` holds it."""
        return json.dumps(
            {"protocol": self.protocol, "model": self.model, "item": self.item, "tokens": self.tokens}
        )


def envelope(card: NativeCompaction) -> Envelope | None:
    """The card's item and where it came from; None when the card holds none it can send."""
    try:
        raw = json.loads(card.encrypted) if card.encrypted else None
    except ValueError:
        return None
    if not isinstance(raw, dict) or not isinstance(raw.get("item"), str) or not raw.get("protocol"):
        return None
    return Envelope(
        str(raw["protocol"]), str(raw.get("model") or ""), raw["item"], int(raw.get("tokens") or 0)
    )


def kept_parts(card: NativeCompaction) -> list[TextPart]:
    """The person's kept messages, oldest first, as the user text the request carries."""
    return [TextPart(text=text) for text in card.kept if text]


def item_part(card: NativeCompaction, model: ModelInfo) -> CompactionPart | None:
    """The compaction item, for a model of the protocol that made it and with a compaction of its own."""
    found = envelope(card)
    if found is None or not model.native_compaction or found.protocol != model.protocol:
        return None
    return CompactionPart(encrypted=found.item, protocol=found.protocol)


def card_tokens(card: NativeCompaction) -> int:
    """An estimate of what the card adds to a request: its kept messages and, at most, its item."""
    found = envelope(card)
    words = sum(estimate_tokens(text) for text in card.kept)
    return words + (found.tokens if found is not None else 0)
