"""A widget whose wire can be read, and a client that applies it as a view does (js/src/state.ts)."""

from __future__ import annotations

import json
from typing import Any

import mewrk_jupyter as mw
from mewrk_jupyter.widget import TimelineWidget
from mewrk_jupyter.widget.protocol import KERNEL


class RecordingWidget(TimelineWidget):
    """A widget whose messages land in a list, as JSON would carry them."""

    def __init__(self, session: Any) -> None:
        self.sent: list[dict[str, Any]] = []
        super().__init__(session)

    def _post(self, message: dict[str, Any]) -> None:
        carried = json.loads(json.dumps(message))
        KERNEL.validate_python(carried)  # every message read back fits the protocol's models
        self.sent.append(carried)

    def of(self, kind: str) -> list[dict[str, Any]]:
        return [m for m in self.sent if m["type"] == kind]

    def hello(self, view: str = "v1") -> dict[str, Any]:
        self.receive(self, {"type": "hello", "view": view})
        return self.sent[-1]

    def do(self, action: str, view: str = "v1", **arguments: Any) -> dict[str, Any]:
        self.receive(
            self, {"type": "action", "view": view, "req": len(self.sent), "action": action, **arguments}
        )
        return [m for m in self.sent if m["type"] == "result"][-1]


class Client:
    """What a view does with the messages (js/src/state.ts), to check that patches rebuild the truth."""

    def __init__(self, view: str = "v1") -> None:
        self.view = view
        self.cards: dict[str, dict[str, Any]] = {}
        self.keys: dict[str, str] = {}
        self.ready = False
        self.state = "idle"

    def apply(self, msg: dict[str, Any]) -> None:
        kind = msg["type"]
        if kind == "snapshot":
            if msg["for"] not in (None, self.view):
                return
            self.cards = {row["card"]["id"]: row["card"] for row in msg["cards"]}
            self.keys = {row["card"]["id"]: row["order_key"] for row in msg["cards"]}
            self.state = msg["state"]
            self.ready = True
        elif not self.ready:
            return
        elif kind in ("card_added", "card_changed"):
            self.cards[msg["card"]["id"]] = msg["card"]
            self.keys[msg["card"]["id"]] = msg["order_key"]
        elif kind == "card_removed":
            self.cards.pop(msg["card_id"], None)
            self.keys.pop(msg["card_id"], None)
        elif kind == "text_delta":
            card = self.cards[msg["card_id"]]
            text = card.get("text") or ""
            if len(text) >= msg["offset"] + len(msg["text"]):
                return
            assert len(text) >= msg["offset"], "a text delta left a gap"
            card["text"] = text[: msg["offset"]] + msg["text"]
        elif kind == "state":
            self.state = msg["state"]

    def apply_all(self, messages: list[dict[str, Any]]) -> Client:
        for msg in messages:
            self.apply(msg)
        return self

    def timeline(self) -> list[tuple[str, str, str]]:
        ids = sorted(self.cards, key=lambda cid: self.keys[cid])
        return [(cid, self.cards[cid]["kind"], self.cards[cid].get("text") or "") for cid in ids]


def truth(session: mw.Session) -> list[tuple[str, str, str]]:
    return [(c.id, c.kind, getattr(c, "text", "") or "") for c in session.cards]
