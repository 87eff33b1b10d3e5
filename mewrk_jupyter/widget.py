"""The timeline widget (N3): an anywidget view of one session, kept in step by small patches.

The session holds the truth; the widget is a view. On render each front-end view asks for a
snapshot (a `hello` message); after that it receives patches built from `Session.subscribe` —
card added / changed / removed, text deltas coalesced to a few messages per second, the session
state, notices and the dashboard line. Actions from the front end (edit, insert, delete, undo,
redo, send, stop, branch, fork) call the session's public methods, so a change made in the
widget follows the same rules as one made from Python or a magic (DESIGN §2); a refusal comes
back as a plain sentence for the card or the composer, never a traceback.

Wire messages (all JSON objects with a `type`):

    front end → kernel   {type: "hello", view}        {type: "bye", view}   (the view was removed)
                         {type: "action", view, req, action, ...arguments}
    kernel → front end   {type: "snapshot", for, session, cards: [{card, order_key}], state, context,
                          kinds (insertable from the menu), editable ({kind: fields}), confirm_delete}
                         {type: "card_added" | "card_changed", card, order_key}
                         {type: "card_removed", card_id}
                         {type: "text_delta", card_id, offset, text}   text replaces card.text[offset:]
                         {type: "state", state}
                         {type: "notice", level, text}
                         {type: "context", line, level, percent, used, window, estimated, by_kind}
                         {type: "result", for, req, ok, message, card_id, data}

`for` names the view that asked; other views ignore the message. Patches go to every view.
Changes made by other processes (another kernel, a script) are found by looking at the store every
WATCH_EVERY seconds once a view is open, and sent as the same patches.
"""

from __future__ import annotations

import logging
import threading
from pathlib import Path
from typing import Any

import anywidget
import traitlets

from .cards.models import Card, card_from_dict
from .cards.rules import EDITABLE_FIELDS, INSERTABLE
from .engine.events import SessionEvent
from .errors import InvalidInput, MewrkError

log = logging.getLogger("mewrk_jupyter")

STATIC = Path(__file__).parent / "static"
BUNDLE = STATIC / "widget.js"
STYLES = STATIC / "widget.css"

# Seconds between two text_delta messages for the streaming cards: a few per second, never one per token.
DELTA_EVERY = 0.25

# Seconds between two looks at the store for what other processes did (their edits, their turns: R4).
WATCH_EVERY = 1.0

# Kinds the widget's insert menu offers; tool calls get their own form later (T5).
MENU_KINDS = tuple(kind for kind in INSERTABLE if kind != "tool_call")


def card_payload(card: Card) -> dict[str, Any]:
    """A card as the front end needs it: its fields, minus opaque blobs (attachment bytes, signatures)."""
    data = card.model_dump(mode="json")
    if "attachments" in data:
        data["attachments"] = [
            {key: value for key, value in a.items() if key != "data"} for a in data["attachments"]
        ]
    if card.kind == "thinking":
        data["signed"] = bool(data.pop("signature", None)) or bool(data.get("encrypted"))
        data["encrypted"] = bool(data.get("encrypted"))
        data.pop("signed_text", None)
    if card.kind == "native_compaction":
        data["encrypted"] = bool(data.get("encrypted"))
    return data


def context_payload(session: Any) -> dict[str, Any]:
    """The dashboard line (D1–D4) and the breakdown behind it (T16)."""
    info = session.context
    return {
        "type": "context",
        "line": info.line(),
        "level": info.level,
        "percent": info.percent,
        "used": info.used,
        "window": info.window,
        "estimated": info.estimated,
        "by_kind": info.by_kind,
    }


class TimelineWidget(anywidget.AnyWidget):
    """The editable timeline of one session, with the composer and the dashboard line."""

    _esm = BUNDLE
    _css = STYLES

    session_id = traitlets.Unicode("").tag(sync=True)

    def __init__(self, session: Any, **kwargs: Any) -> None:
        if not BUNDLE.exists():
            raise MewrkError(
                f"The widget's front end is missing ({BUNDLE}). Reinstall mewrk_jupyter, "
                "or build it with `npm ci && npm run build` in js/."
            )
        super().__init__(session_id=session.id, **kwargs)
        self.session = session
        self._lock = threading.RLock()  # orders snapshots and patches; always taken before the session's
        self._pending: dict[str, list[Any]] = {}  # card id -> [offset, [text, …]] not yet sent
        self._lengths: dict[str, int] = {}  # card id -> length of its text as the views know it
        self._timer: threading.Timer | None = None
        self._known: dict[str, tuple[str, dict[str, Any]]] = {}  # what the views hold: id -> (key, card)
        self._state = "idle"  # the session state the views were last told
        self._closed = threading.Event()
        self._watcher: threading.Thread | None = None
        self._views: set[str] = set()  # views that said hello and not yet bye
        self._unsubscribe = session.subscribe(self._on_event)
        self.on_msg(self._on_message)

    def close(self) -> None:
        """Stop following the session and close the views."""
        self._unsubscribe()
        self._closed.set()
        with self._lock:
            if self._timer is not None:
                self._timer.cancel()
                self._timer = None
        super().close()

    # ---- kernel → front end --------------------------------------------------------------------

    def _post(self, message: dict[str, Any]) -> None:
        """Send one message to every view (tests replace this to read the wire)."""
        self.send(message)

    def snapshot(self, view: str | None = None) -> dict[str, Any]:
        """Send the whole timeline to one view (or all); returns the message."""
        with self._lock:
            self._flush_locked()  # views that already follow need that text; the new one ignores it
            timeline = self.session._loaded()
            cards = []
            self._known.clear()
            for key, card in zip(list(timeline.keys), list(timeline.cards), strict=True):
                payload = card_payload(card)
                self._lengths[card.id] = len(payload.get("text") or "")
                self._known[card.id] = (key, payload)
                cards.append({"card": payload, "order_key": key})
            self._state = self.session.state
            message = {
                "type": "snapshot",
                "for": view,
                "session": {
                    "id": self.session.id,
                    "title": self.session.title,
                    "model": self.session.settings.model,
                },
                "cards": cards,
                "state": self._state,
                "context": context_payload(self.session),
                "kinds": list(MENU_KINDS),
                "editable": {kind: list(names) for kind, names in EDITABLE_FIELDS.items()},
                "confirm_delete": bool(getattr(self.session.settings, "confirm_delete", False)),
            }
            self._post(message)
            return message

    def _on_event(self, event: SessionEvent) -> None:
        if event.kind == "reloaded":
            # Emitted while the session holds its own lock: answer from another thread so that the
            # lock order (widget, then session) is never reversed.
            threading.Thread(target=self.resync, name="mewrk-widget-reload", daemon=True).start()
            return
        if event.kind == "text_delta":
            self._queue_delta(event)
            return
        with self._lock:
            if event.kind in ("card_added", "card_changed") and event.card is not None:
                self._pending.pop(event.card.id, None)  # the card itself carries that text
                payload = card_payload(event.card)
                self._lengths[event.card.id] = len(payload.get("text") or "")
                self._flush_locked()
                self._known[event.card.id] = (event.order_key or "", payload)
                self._post({"type": event.kind, "card": payload, "order_key": event.order_key})
            elif event.kind == "card_removed":
                self._pending.pop(event.card_id or "", None)
                self._lengths.pop(event.card_id or "", None)
                self._known.pop(event.card_id or "", None)
                self._flush_locked()
                self._post({"type": "card_removed", "card_id": event.card_id})
            elif event.kind == "state":
                self._flush_locked()
                self._state = event.state or "idle"
                self._post({"type": "state", "state": self._state})
                if event.state != "running":
                    self._post(context_payload(self.session))
            elif event.kind == "notice":
                self._flush_locked()
                level = event.data.get("level", "info")
                self._post({"type": "notice", "level": level, "text": event.text or ""})

    def _queue_delta(self, event: SessionEvent) -> None:
        card_id, text = event.card_id or "", event.text or ""
        with self._lock:
            known = self._lengths.get(card_id)
            if known is None:  # the card was added before this widget subscribed
                found = self.session._loaded().get(card_id)
                current = len(getattr(found[1], "text", "") or "") if found else len(text)
                known = max(0, current - len(text))
            pending = self._pending.get(card_id)
            if pending is None:
                self._pending[card_id] = [known, [text]]
            else:
                pending[1].append(text)
            self._lengths[card_id] = known + len(text)
            if self._timer is None:
                self._timer = threading.Timer(DELTA_EVERY, self.flush)
                self._timer.daemon = True
                self._timer.start()

    def flush(self) -> None:
        """Send the text streamed since the last flush, one message per card."""
        with self._lock:
            self._flush_locked()

    def _flush_locked(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        pending, self._pending = self._pending, {}
        for card_id, (offset, parts) in pending.items():
            self._post({"type": "text_delta", "card_id": card_id, "offset": offset, "text": "".join(parts)})

    def resync(self) -> None:
        """Patch the views up to the store after another process changed the session (no snapshot)."""
        with self._lock:
            self._flush_locked()
            timeline = self.session._loaded()
            now = {}
            for key, card in zip(list(timeline.keys), list(timeline.cards), strict=True):
                now[card.id] = (key, card_payload(card))
            for card_id in [cid for cid in self._known if cid not in now]:
                self._known.pop(card_id)
                self._lengths.pop(card_id, None)
                self._post({"type": "card_removed", "card_id": card_id})
            for card_id, (key, payload) in now.items():
                known = self._known.get(card_id)
                if known == (key, payload):
                    continue
                self._known[card_id] = (key, payload)
                self._lengths[card_id] = len(payload.get("text") or "")
                kind = "card_changed" if known is not None else "card_added"
                self._post({"type": kind, "card": payload, "order_key": key})
            self._post(context_payload(self.session))

    def _watch(self) -> None:
        """Look at the store now and then: another kernel, a script or the HTTP API may change the session."""
        while not self._closed.wait(WATCH_EVERY):
            with self._lock:
                if not self._views:  # every view is gone: stop looking until one says hello again
                    self._watcher = None
                    return
            try:
                self.session._loaded()  # announces "reloaded" when another process wrote
                with self._lock:
                    state = self.session.state
                    if state != self._state:
                        self._state = state
                        self._flush_locked()
                        self._post({"type": "state", "state": state})
                        if state != "running":
                            self._post(context_payload(self.session))
            except Exception:  # a damaged store must not kill the thread silently in a loop
                log.exception("the widget could not read session %s", self.session.id)

    # ---- front end → kernel --------------------------------------------------------------------

    def _on_message(self, _widget: Any, content: Any, _buffers: Any = None) -> None:
        if not isinstance(content, dict):
            return
        view = content.get("view")
        if content.get("type") == "hello":
            self.snapshot(view)
            with self._lock:
                self._views.add(str(view))
                if self._watcher is None and not self._closed.is_set():
                    self._watcher = threading.Thread(
                        target=self._watch, name=f"mewrk-widget-watch-{self.session.id}", daemon=True
                    )
                    self._watcher.start()
        elif content.get("type") == "bye":
            with self._lock:
                self._views.discard(str(view))
        elif content.get("type") == "action":
            self.act(content, view)

    def act(self, request: dict[str, Any], view: str | None = None) -> dict[str, Any]:
        """Carry out one action from a view and answer it with a `result` message (also returned)."""
        name = request.get("action")
        handler = getattr(self, f"_do_{name}", None) if isinstance(name, str) else None
        answer: dict[str, Any] = {"type": "result", "for": view, "req": request.get("req"), "ok": True}
        answer["card_id"] = request.get("card_id") or request.get("anchor")
        try:
            if handler is None:
                raise InvalidInput(f"The widget asked for an unknown action {name!r}.")
            message, data = handler(request)
            answer.update(message=message, data=data)
        except MewrkError as exc:
            answer.update(ok=False, message=str(exc))
        except Exception as exc:  # a fault must reach the person as a sentence, not kill the comm
            log.exception("widget action %s failed", name)
            answer.update(ok=False, message=f"That did not work: {type(exc).__name__}: {exc}")
        with self._lock:
            self._flush_locked()
            self._post(answer)
            if name in ("edit", "insert", "delete", "undo", "redo"):
                self._post(context_payload(self.session))
        return answer

    def _do_edit(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        fields = request.get("fields")
        if not isinstance(fields, dict):
            raise InvalidInput("An edit needs the fields to change.")
        card = self.session.edit(_text_arg(request, "card_id"), **fields)
        return "Saved.", {"card_id": card.id}

    def _do_insert(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        kind = request.get("kind")
        if kind not in INSERTABLE:
            raise InvalidInput(f"A {kind} card cannot be inserted from the widget.")
        data = {"kind": kind, **(request.get("fields") or {})}
        try:
            card = card_from_dict(data)
        except ValueError as exc:
            raise InvalidInput(f"Invalid {kind} card: {exc}") from None
        anchor = request.get("anchor")
        where = request.get("where", "after")
        if where not in ("before", "after"):
            raise InvalidInput("A card is inserted before or after another.")
        placed = self.session.insert(card, **({where: anchor} if anchor else {}))
        return "Inserted.", {"card_id": placed.id}

    def _do_delete(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        ids = request.get("card_ids")
        if not isinstance(ids, list) or not ids:
            raise InvalidInput("Choose the cards to delete.")
        gone = self.session.delete(*ids)
        return (f"Deleted {len(gone)} cards." if len(gone) > 1 else "Deleted."), {
            "card_ids": [c.id for c in gone]
        }

    def _do_undo(self, _request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return _sentence(self.session.undo()), {}

    def _do_redo(self, _request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return _sentence(self.session.redo()), {}

    def _do_send(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        text = request.get("text") or None
        run = self.session.send(text, wait=False)
        return "", {"run_id": run.id}

    def _do_stop(self, _request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        stopped = self.session.stop()
        return ("Stopping…" if stopped else "Nothing is running."), {}

    def _do_branch(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return self._copy(request, "branch")

    def _do_fork(self, request: dict[str, Any]) -> tuple[str, dict[str, Any]]:
        return self._copy(request, "fork")

    def _copy(self, request: dict[str, Any], how: str) -> tuple[str, dict[str, Any]]:
        card_id = _text_arg(request, "card_id")
        new = self.session.branch(card_id) if how == "branch" else self.session.fork(card_id)
        verb = "Branched" if how == "branch" else "Forked"
        message = f"{verb} into session {new.id} “{new.title}” — open it with mw.Session.open('{new.id}')."
        return message, {"session_id": new.id, "title": new.title}


def _text_arg(request: dict[str, Any], name: str) -> str:
    value = request.get(name)
    if not isinstance(value, str) or not value:
        raise InvalidInput(f"The widget sent no {name.replace('_', ' ')}.")
    return value


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:] + "." if text else ""


# ---- the lead attaches these to Session (kept here so the engine never imports a surface) ------


def session_widget(session: Any) -> TimelineWidget:
    """`s.widget()`: a new timeline widget of the session."""
    return TimelineWidget(session)


def session_mimebundle(
    session: Any, include: Any = None, exclude: Any = None
) -> tuple[dict[str, Any], dict[str, Any]]:
    """`display(s)`: the widget, with the Markdown timeline for front ends without widgets."""
    from .engine.render import timeline_markdown

    data, metadata = session_widget(session)._repr_mimebundle_()
    return {**data, "text/plain": repr(session), "text/markdown": timeline_markdown(session)}, metadata


def attach_to_session(session_cls: type) -> None:
    """Give `Session` its `widget()` method and notebook display; call once, e.g. from `__init__`."""
    session_cls.widget = session_widget
    session_cls._repr_mimebundle_ = session_mimebundle
